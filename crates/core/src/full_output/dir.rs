//! The private per-user directory the full-output files live in, and the sweep of files left by
//! hosts that died without cleaning up.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{NotKeptReason, FILE_PREFIX};
use crate::errors::os_text;

/// The first usable private directory among `TMPDIR`, `/tmp` and `/var/tmp` (the OS temp dir
/// on Windows) that is not inside the workspace.
pub(super) fn private_dir(
  tmpdir_var: Option<&Path>,
  workspace: &Path,
) -> Result<PathBuf, NotKeptReason> {
  let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
  let home = canonical(workspace);
  let mut candidates: Vec<PathBuf> = tmpdir_var
    .iter()
    .filter(|p| p.is_absolute())
    .map(|p| p.to_path_buf())
    .collect();
  if cfg!(windows) {
    candidates.push(std::env::temp_dir());
  } else {
    candidates.extend([PathBuf::from("/tmp"), PathBuf::from("/var/tmp")]);
  }
  let mut last = NotKeptReason::AllTempInWorkspace;
  for base in candidates {
    if canonical(&base).starts_with(&home) {
      continue;
    }
    match ensure_private(&base.join(dir_name())) {
      Ok(dir) => return Ok(dir),
      Err(e) => last = e,
    }
  }
  Err(last)
}

/// This user's id (none on Windows; the WebAssembly build asks its host).
#[cfg(unix)]
#[allow(clippy::unnecessary_wraps)] // the other builds may have none
fn uid() -> Option<u32> {
  // SAFETY: getuid(2) has no preconditions and cannot fail.
  Some(unsafe { libc::getuid() })
}

#[cfg(target_family = "wasm")]
fn uid() -> Option<u32> {
  crate::host::uid()
}

#[cfg(not(any(unix, target_family = "wasm")))]
fn uid() -> Option<u32> {
  None
}

/// This process's id (the WebAssembly build asks its host: WASI has none).
fn own_pid() -> u32 {
  #[cfg(target_family = "wasm")]
  return crate::host::pid();
  #[cfg(not(target_family = "wasm"))]
  return std::process::id();
}

pub(super) fn dir_name() -> String {
  match uid() {
    Some(uid) => format!("pi-codegraph-{uid}"),
    None => "pi-codegraph".to_owned(),
  }
}

/// Creates `dir` 0700, or accepts it if it is a real directory (not a symlink) owned by us and
/// closed to others.
fn ensure_private(dir: &Path) -> Result<PathBuf, NotKeptReason> {
  let shown = || dir.display().to_string();
  let unusable = |e: std::io::Error| NotKeptReason::DirUnusable {
    dir: shown(),
    error: os_text(&e),
  };
  #[cfg(any(unix, target_family = "wasm"))]
  {
    match private::make(dir) {
      Ok(()) => {}
      Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
      Err(e) => {
        return Err(NotKeptReason::DirCreate {
          dir: shown(),
          error: os_text(&e),
        })
      }
    }
    let (is_dir, owner, mode) = private::owner_and_mode(dir).map_err(unusable)?;
    if !is_dir || Some(owner) != uid() {
      return Err(NotKeptReason::DirNotOurs { dir: shown() });
    }
    if mode & 0o077 != 0 {
      private::close(dir).map_err(|e| NotKeptReason::DirPrivate {
        dir: shown(),
        error: os_text(&e),
      })?;
    }
  }
  #[cfg(not(any(unix, target_family = "wasm")))]
  std::fs::create_dir_all(dir).map_err(unusable)?;
  Ok(dir.to_path_buf())
}

/// The private directory's primitives: the OS's, or (WASI has no owner and no mode) the
/// WebAssembly build's host's.
#[cfg(unix)]
mod private {
  use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
  use std::path::Path;

  /// `mkdir(dir, 0o700)`.
  pub(super) fn make(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new().mode(0o700).create(dir)
  }

  /// Whether `dir` is a directory (not a link), its owner and its permission bits.
  pub(super) fn owner_and_mode(dir: &Path) -> std::io::Result<(bool, u32, u32)> {
    let m = std::fs::symlink_metadata(dir)?;
    Ok((m.file_type().is_dir(), m.uid(), m.permissions().mode()))
  }

  /// `chmod(dir, 0o700)`.
  pub(super) fn close(dir: &Path) -> std::io::Result<()> {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
  }
}

#[cfg(target_family = "wasm")]
mod private {
  use std::path::Path;

  use crate::host;

  pub(super) fn make(dir: &Path) -> std::io::Result<()> {
    host::make_private_dir(dir)
  }

  pub(super) fn owner_and_mode(dir: &Path) -> std::io::Result<(bool, u32, u32)> {
    let is_dir = std::fs::symlink_metadata(dir)?.is_dir();
    let st = host::stat(dir, false)?;
    Ok((is_dir, st.uid, st.mode))
  }

  pub(super) fn close(dir: &Path) -> std::io::Result<()> {
    host::close_to_others(dir)
  }
}

/// The pid namespace this process lives in (Linux: the inode of /proc/self/ns/pid), once.
fn pid_namespace() -> Option<u64> {
  static NS: OnceLock<Option<u64>> = OnceLock::new();
  *NS.get_or_init(|| {
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let text = link.to_str()?;
    text.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
  })
}

/// How this process's files are named: `explore-<pid>-ns<pid namespace>-` (Linux), so that a
/// sweep judges a pid only where it means the same process.
pub(super) fn owner_prefix() -> String {
  let pid = own_pid();
  match pid_namespace() {
    Some(ns) => format!("{FILE_PREFIX}{pid}-ns{ns}-"),
    None => format!("{FILE_PREFIX}{pid}-"),
  }
}

/// Whether the host that named a file `explore-<rest>` is provably gone: its pid no longer
/// exists in its own pid namespace, which must be ours. A file from another namespace (a
/// container or a bwrap sandbox sharing /tmp), whose pid says nothing here, is never swept.
/// Names without a namespace (an older pi-codegraph, a system without namespaces) are judged by
/// the pid alone, as before.
#[cfg(any(unix, target_family = "wasm"))]
fn owner_gone(rest: &str) -> bool {
  let mut parts = rest.split('-');
  let Some(pid) = parts.next().and_then(|p| p.parse::<u32>().ok()) else {
    return false;
  };
  if let Some(ns) = parts.next().and_then(|p| p.strip_prefix("ns")) {
    if ns.parse::<u64>().ok() != pid_namespace() {
      return false;
    }
  }
  pid != own_pid() && !crate::pid::exists(pid)
}

/// Once per process: deletes the files of hosts that are gone (see [`owner_gone`]).
pub(super) fn sweep_once(dir: &Path) {
  static SWEPT: OnceLock<()> = OnceLock::new();
  SWEPT.get_or_init(|| sweep(dir));
}

fn sweep(dir: &Path) {
  #[cfg(any(unix, target_family = "wasm"))]
  {
    let Ok(entries) = std::fs::read_dir(dir) else {
      return;
    };
    let uid = uid();
    for entry in entries.flatten() {
      let name = entry.file_name();
      let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(FILE_PREFIX)) else {
        continue;
      };
      let ours = entry.metadata().is_ok_and(|m| m.is_file()) && owner(&entry.path()) == uid;
      if ours && owner_gone(rest) {
        let _ = std::fs::remove_file(entry.path());
      }
    }
  }
  #[cfg(not(any(unix, target_family = "wasm")))]
  let _ = dir;
}

/// A file's owner.
#[cfg(any(unix, target_family = "wasm"))]
fn owner(path: &Path) -> Option<u32> {
  private::owner_and_mode(path)
    .ok()
    .map(|(_, owner, _)| owner)
}
