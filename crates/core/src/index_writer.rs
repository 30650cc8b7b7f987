//! Whether CodeGraph is writing the index right now.
//!
//! `codegraph init`, `index` and `sync` hold `.codegraph/codegraph.lock` (the writer's pid) while
//! they write, and `codegraph index` also holds `.codegraph/rebuild.pid` (JSON with the pid)
//! while it rebuilds the database from scratch. An explore meanwhile answers from a half-built
//! graph and says nothing (CodeGraph 1.6.1 during an `init`: 54 symbols in 2 files where the
//! finished index gives 73 in 3), so `explore` waits for the writer, bounded, and otherwise says
//! why it did not answer. Only these two files are read: regular files of a few bytes, opened
//! non-blocking. A lock whose pid no longer runs is stale and ignored, as CodeGraph itself does.
//! `writer.pid` is not a sign of writing: an MCP server holds it for as long as it runs.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::preflight::open_regular;

/// Held by `codegraph index` for a whole rebuild (JSON: `{"pid": …, "mode": "rebuild", …}`).
const REBUILD_FILE: &str = "rebuild.pid";
/// Held by every write of the index (`init`, `index`, `sync`): the writer's pid as text.
const LOCK_FILE: &str = "codegraph.lock";
/// CodeGraph's lock files are a few dozen bytes; anything larger is not one.
const MAX_LOCK_BYTES: u64 = 4096;

/// A live process writing the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
  /// The lock file that names it.
  pub lock: PathBuf,
  pub pid: u32,
  /// True for `rebuild.pid` (a full rebuild), false for `codegraph.lock` (any write).
  pub rebuild: bool,
}

/// The live writer of the index in `index_dir`, if any: a rebuild first (it says more).
pub fn active_writer(index_dir: &Path) -> Option<Writer> {
  [(REBUILD_FILE, true), (LOCK_FILE, false)]
    .into_iter()
    .find_map(|(name, rebuild)| {
      let lock = index_dir.join(name);
      let pid = read_pid(&lock, rebuild)?;
      alive(pid).then_some(Writer { lock, pid, rebuild })
    })
}

/// The pid a lock file names, when it is a small regular file in CodeGraph's format.
fn read_pid(path: &Path, json: bool) -> Option<u32> {
  let mut text = String::new();
  open_regular(path)
    .ok()?
    .take(MAX_LOCK_BYTES)
    .read_to_string(&mut text)
    .ok()?;
  let pid = if json {
    serde_json::from_str::<serde_json::Value>(&text)
      .ok()?
      .get("pid")?
      .as_u64()?
  } else {
    let digits = text.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
      return None;
    }
    digits.parse::<u64>().ok()?
  };
  // 0 (and anything past an i32) would address a process group or nothing at all.
  u32::try_from(pid)
    .ok()
    .filter(|p| *p > 0 && i32::try_from(*p).is_ok())
}

/// Whether process `pid` exists (one we may not signal counts: it exists).
#[cfg(unix)]
pub fn alive(pid: u32) -> bool {
  let Ok(pid) = libc::pid_t::try_from(pid) else {
    return false;
  };
  if pid <= 0 {
    return false;
  }
  // SAFETY: signal 0 delivers nothing; it only asks whether the process exists.
  let found = unsafe { libc::kill(pid, 0) } == 0;
  (found || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)) && !zombie(pid)
}

/// A process that has exited but is not reaped yet has finished writing (Linux; elsewhere the
/// question is not asked).
#[cfg(unix)]
fn zombie(pid: libc::pid_t) -> bool {
  std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
    stat
      .rfind(')')
      .and_then(|i| stat[i + 1..].split_whitespace().next())
      .is_some_and(|state| state == "Z" || state == "X")
  })
}

/// Whether process `pid` exists and has not exited (access denied: it exists).
#[cfg(windows)]
pub fn alive(pid: u32) -> bool {
  type Handle = *mut core::ffi::c_void;
  const PROCESS_QUERY_LIMITED_INFORMATION: u32 = 0x1000;
  const STILL_ACTIVE: u32 = 259;
  const ERROR_ACCESS_DENIED: u32 = 5;
  #[link(name = "kernel32")]
  extern "system" {
    fn OpenProcess(access: u32, inherit: i32, pid: u32) -> Handle;
    fn GetExitCodeProcess(process: Handle, code: *mut u32) -> i32;
    fn CloseHandle(handle: Handle) -> i32;
    fn GetLastError() -> u32;
  }
  // SAFETY: OpenProcess takes plain values and returns a handle or null; a non-null handle is
  // ours, read by GetExitCodeProcess into a live local and closed exactly once.
  unsafe {
    let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
    if process.is_null() {
      return GetLastError() == ERROR_ACCESS_DENIED;
    }
    let mut code = 0u32;
    let read = GetExitCodeProcess(process, &raw mut code) != 0;
    CloseHandle(process);
    !read || code == STILL_ACTIVE
  }
}

#[cfg(not(any(unix, windows)))]
pub fn alive(_pid: u32) -> bool {
  false
}

#[cfg(test)]
mod tests;
