//! Whether the kernel will execute a file itself, for a runner that cannot spawn without a shell's
//! fallback: for a file the kernel refuses (ENOEXEC: no `#!` line, a corrupt binary, a binary for
//! another CPU), libuv runs it with /bin/sh, which then reads the file as shell commands. The
//! native runner never does (CODEGRAPH_SPAWN); the Node runner asks this before the spawn (its
//! checks carry the answer, `src/checks.rs`). Judged from the header as Linux's binfmt_elf and
//! binfmt_script judge it: an ELF must be for this machine (class, byte order, e_machine; unless
//! an enabled binfmt_misc handler, such as qemu-user, matches it), of an executable type and with
//! program headers inside the file; a `#!` script's interpreter is judged the same way, as the
//! kernel nests them (at most 4 deep). `platform` and `arch` are Node's names for the host.

use std::io::Read;
use std::path::Path;

/// ELF e_machine and class (1: 32-bit, 2: 64-bit) a machine runs, by Node's `process.arch`.
const ELF_MACHINES: &[(&str, &[(u16, u8)])] = &[
  ("x64", &[(62, 2), (3, 1)]), // and IA-32 compatibility
  ("ia32", &[(3, 1)]),
  ("arm64", &[(183, 2), (40, 1)]), // and AArch32 compatibility
  ("arm", &[(40, 1)]),
  ("riscv64", &[(243, 2)]),
  ("ppc64", &[(21, 2)]),
  ("s390x", &[(22, 2)]),
  ("loong64", &[(258, 2)]),
];
/// Mach-O (thin and fat) magic numbers, as the first four bytes read big-endian.
const MACHO: [u32; 5] = [
  0xfeed_face,
  0xfeed_facf,
  0xcefa_edfe,
  0xcffa_edfe,
  0xcafe_babe,
];
/// The kernel reads the first 256 bytes (BINPRM_BUF_SIZE) and nests interpreters 4 deep.
const HEAD_BYTES: u64 = 256;
const MAX_NESTING: u8 = 4;
const BINFMT_MISC: &str = "/proc/sys/fs/binfmt_misc";

/// The host the judgement is for (Node's names: `linux`/`darwin`, `x64`/`arm64`).
pub struct Host<'a> {
  pub platform: &'a str,
  pub arch: &'a str,
  /// Whether this user may execute a path (access(2) `X_OK`).
  pub executable: &'a dyn Fn(&Path) -> bool,
}

/// Why the kernel would refuse to execute `program` (so a shell would be handed it), or None when
/// it would run it, or when the file cannot be read (the spawn then says why itself).
pub fn problem(program: &Path, host: &Host<'_>) -> Option<String> {
  problem_at(program, host, 0)
}

fn problem_at(program: &Path, host: &Host<'_>, depth: u8) -> Option<String> {
  if host.platform == "win32" || !(host.executable)(program) {
    return None;
  }
  let file = crate::files::open_regular(program).ok()?;
  let size = file.metadata().ok()?.len();
  let mut head = Vec::new();
  file.take(HEAD_BYTES).read_to_end(&mut head).ok()?;
  let magic = head
    .get(..4)
    .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
  let macos = host.platform == "darwin";
  if magic == 0x7f45_4c46 {
    return if macos {
      Some("an ELF binary, which macOS does not run".into())
    } else {
      elf_problem(&head, size, host.arch)
    };
  }
  if MACHO.contains(&magic) {
    return (!macos).then(|| "a macOS (Mach-O) binary".into());
  }
  if let Some(line) = head.strip_prefix(b"#!") {
    // `#!interpreter [arg]`: the interpreter must be runnable too, or ENOEXEC comes back.
    let line = String::from_utf8_lossy(line);
    let line = line.split('\n').next().unwrap_or_default().trim();
    let interpreter = line.split([' ', '\t']).next().unwrap_or_default();
    if interpreter.is_empty() {
      return Some("a #! line without an interpreter".into());
    }
    if depth >= MAX_NESTING {
      return Some("#! interpreters nested too deep".into());
    }
    let inner = problem_at(Path::new(interpreter), host, depth + 1)?;
    return Some(format!("its #! interpreter {interpreter} is {inner}"));
  }
  Some("neither a #! script nor a native program".into())
}

/// Why the kernel would refuse this ELF header (`head`, of a file of `size` bytes), or None.
fn elf_problem(head: &[u8], size: u64, arch: &str) -> Option<String> {
  if head.len() < 52 {
    return Some("a truncated ELF header".into());
  }
  let (class, order) = (head[4], head[5]);
  if !(1..=2).contains(&class) || !(1..=2).contains(&order) || head[6] != 1 {
    return Some("a corrupt ELF header".into());
  }
  let little = order == 1;
  let wide = class == 2;
  let uint = |at: usize, len: usize| {
    let bytes = head.get(at..at + len).unwrap_or_default();
    let fold = |acc: u64, b: &u8| (acc << 8) | u64::from(*b);
    if little {
      bytes.iter().rev().fold(0, fold)
    } else {
      bytes.iter().fold(0, fold)
    }
  };
  let (kind, machine) = (uint(16, 2), uint(18, 2) as u16);
  let phoff = if wide { uint(32, 8) } else { uint(28, 4) };
  let phentsize = uint(if wide { 54 } else { 42 }, 2);
  let phnum = uint(if wide { 56 } else { 44 }, 2);
  if kind != 2 && kind != 3 {
    return Some("an ELF file that is not an executable".into());
  }
  let native = ELF_MACHINES.iter().find(|(a, _)| *a == arch);
  if let Some((_, machines)) = native {
    if !machines.contains(&(machine, class)) && !binfmt_runs(head) {
      return Some(format!(
        "an ELF binary for another machine (e_machine {machine}, not {arch})"
      ));
    }
  }
  let entry = if wide { 56 } else { 32 };
  let end = phnum.saturating_mul(phentsize).saturating_add(phoff);
  if phentsize != entry || phnum == 0 || end > size {
    return Some(
      "a corrupt ELF binary (its program headers are missing or outside the file)".into(),
    );
  }
  None
}

/// Whether an enabled binfmt_misc handler (qemu-user for a foreign CPU, say) matches `head` by
/// magic: the kernel then runs the file through it.
fn binfmt_runs(head: &[u8]) -> bool {
  let Ok(entries) = std::fs::read_dir(BINFMT_MISC) else {
    return false;
  };
  entries.flatten().any(|entry| {
    let name = entry.file_name();
    if name == "register" || name == "status" {
      return false;
    }
    let Ok(text) = std::fs::read_to_string(entry.path()) else {
      return false;
    };
    let field = |key: &str| {
      text
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
        .map(str::trim)
    };
    let hex = |s: Option<&str>| -> Vec<u8> {
      let s = s.unwrap_or_default();
      (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
    };
    let (magic, mask) = (hex(field("magic")), hex(field("mask")));
    let offset: usize = field("offset").and_then(|o| o.parse().ok()).unwrap_or(0);
    text.starts_with("enabled")
      && !magic.is_empty()
      && magic.iter().enumerate().all(|(i, byte)| {
        let seen = head.get(offset + i).copied();
        seen.is_some_and(|b| b & mask.get(i).copied().unwrap_or(0xff) == *byte)
      })
  })
}

#[cfg(test)]
mod tests {
  use super::*;

  fn host(executable: &dyn Fn(&Path) -> bool) -> Host<'_> {
    Host {
      platform: "linux",
      arch: "x64",
      executable,
    }
  }

  #[test]
  fn a_script_without_a_shebang_or_a_foreign_binary_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let yes = |_: &Path| true;
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "echo hi\n").unwrap();
    assert_eq!(
      problem(&plain, &host(&yes)).as_deref(),
      Some("neither a #! script nor a native program")
    );
    let script = dir.path().join("script");
    std::fs::write(&script, format!("#!{}\n", plain.display())).unwrap();
    assert!(problem(&script, &host(&yes))
      .unwrap()
      .starts_with("its #! interpreter"));
    let macho = dir.path().join("macho");
    std::fs::write(&macho, [0xcf, 0xfa, 0xed, 0xfe, 0, 0, 0, 0]).unwrap();
    assert_eq!(
      problem(&macho, &host(&yes)).as_deref(),
      Some("a macOS (Mach-O) binary")
    );
    let no = |_: &Path| false;
    assert_eq!(problem(&plain, &host(&no)), None, "the spawn says why");
  }

  #[test]
  fn this_machines_own_binaries_run() {
    let yes = |_: &Path| true;
    let sh = Path::new("/bin/sh");
    if sh.exists() && cfg!(all(target_os = "linux", target_arch = "x86_64")) {
      assert_eq!(problem(sh, &host(&yes)), None);
    }
  }
}
