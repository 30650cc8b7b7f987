//! The private per-user directory the full-output files live in, and the sweep of files left by
//! hosts that died without cleaning up.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::SpillTarget;

/// The first usable private directory among `TMPDIR`, `/tmp` and `/var/tmp` (the OS temp dir
/// on Windows) that is not inside the workspace.
pub(super) fn private_dir(target: &SpillTarget) -> Result<PathBuf, String> {
  let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
  let home = canonical(&target.workspace);
  let mut candidates: Vec<PathBuf> = target
    .tmpdir_var
    .iter()
    .filter(|p| p.is_absolute())
    .cloned()
    .collect();
  if cfg!(windows) {
    candidates.push(std::env::temp_dir());
  } else {
    candidates.extend([PathBuf::from("/tmp"), PathBuf::from("/var/tmp")]);
  }
  let mut last = "every temporary directory is inside the workspace".to_owned();
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

/// This user's id.
#[cfg(unix)]
fn uid() -> u32 {
  // SAFETY: getuid(2) has no preconditions and cannot fail.
  unsafe { libc::getuid() }
}

pub(super) fn dir_name() -> String {
  #[cfg(unix)]
  return format!("pi-codegraph-{}", uid());
  #[cfg(not(unix))]
  return "pi-codegraph".to_owned();
}

/// Creates `dir` 0700, or accepts it if it is a real directory (not a symlink) owned by us and
/// closed to others.
fn ensure_private(dir: &Path) -> Result<PathBuf, String> {
  #[cfg(unix)]
  {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
      Ok(()) => {}
      Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
      Err(e) => return Err(format!("{} could not be created ({e})", dir.display())),
    }
    let m = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !m.file_type().is_dir() || m.uid() != uid() {
      return Err(format!(
        "{} is not a directory of this user's",
        dir.display()
      ));
    }
    if m.permissions().mode() & 0o077 != 0 {
      std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| format!("{} could not be made private ({e})", dir.display()))?;
    }
  }
  #[cfg(not(unix))]
  std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
  Ok(dir.to_path_buf())
}

/// Once per process: deletes the files of hosts that are gone (their pid is in the name).
pub(super) fn sweep_once(dir: &Path) {
  static SWEPT: OnceLock<()> = OnceLock::new();
  SWEPT.get_or_init(|| sweep(dir));
}

fn sweep(dir: &Path) {
  #[cfg(unix)]
  {
    use super::FILE_PREFIX;
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
      return;
    };
    let me = std::process::id();
    let uid = uid();
    for entry in entries.flatten() {
      let name = entry.file_name();
      let Some(pid) = name
        .to_str()
        .and_then(|n| n.strip_prefix(FILE_PREFIX))
        .and_then(|rest| rest.split('-').next())
        .and_then(|pid| pid.parse::<u32>().ok())
      else {
        continue;
      };
      let ours = entry
        .metadata()
        .is_ok_and(|m| m.is_file() && m.uid() == uid);
      let gone = pid != me && !crate::pid::exists(pid);
      if ours && gone {
        let _ = std::fs::remove_file(entry.path());
      }
    }
  }
  #[cfg(not(unix))]
  let _ = dir;
}
