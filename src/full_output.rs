//! Where a truncated answer's full stdout goes, so the model can `read` the rest.
//!
//! A private temp file (0600 on Unix, created by `tempfile`) in the OS temp directory, never in
//! the workspace, bounded by `DRAIN_LIMIT_BYTES`. Files live until the Pi session shuts down
//! (`releaseFullOutputs()`), the process exits, or more than `KEEP_FILES` newer ones exist.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use tempfile::TempPath;

use crate::limits::DRAIN_LIMIT_BYTES;

const KEEP_FILES: usize = 16;

/// The spill file while a run writes it.
#[derive(Debug)]
pub struct Spill {
  file: File,
  path: TempPath,
  written: u64,
  cut: bool,
}

/// A finished spill file, registered for cleanup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullOutput {
  pub path: PathBuf,
  pub bytes: u64,
  /// False when the CLI printed more than the file keeps.
  pub complete: bool,
}

impl Spill {
  pub fn create(dir: &Path) -> Option<Self> {
    let (file, path) = tempfile::Builder::new()
      .prefix("pi-codegraph-explore-")
      .suffix(".txt")
      .tempfile_in(dir)
      .ok()?
      .into_parts();
    Some(Self {
      file,
      path,
      written: 0,
      cut: false,
    })
  }

  /// Appends within the bound; a write error abandons the file (the answer stays bounded anyway).
  pub fn write(mut self, chunk: &[u8]) -> Option<Self> {
    let room = DRAIN_LIMIT_BYTES.saturating_sub(self.written) as usize;
    let take = chunk.len().min(room);
    self.cut |= take < chunk.len();
    self.file.write_all(&chunk[..take]).ok()?;
    self.written += take as u64;
    Some(self)
  }

  pub fn finish(self, complete: bool) -> FullOutput {
    let out = FullOutput {
      path: self.path.to_path_buf(),
      bytes: self.written,
      complete: complete && !self.cut,
    };
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    // Rust statics are never dropped and process.exit() runs no destructors; exit() does run
    // atexit handlers, so the files go with a normal or process.exit() exit too.
    AT_EXIT.call_once(|| unsafe {
      libc::atexit(release_at_exit);
    });
    let mut kept = registry().lock().unwrap_or_else(|p| p.into_inner());
    kept.push_back(self.path);
    while kept.len() > KEEP_FILES {
      kept.pop_front(); // dropping a TempPath deletes its file
    }
    out
  }
}

fn registry() -> &'static Mutex<VecDeque<TempPath>> {
  static KEPT: OnceLock<Mutex<VecDeque<TempPath>>> = OnceLock::new();
  KEPT.get_or_init(Default::default)
}

extern "C" fn release_at_exit() {
  release_all();
}

/// Deletes every full-output file this process still keeps; returns how many.
pub fn release_all() -> usize {
  let mut kept = registry().lock().unwrap_or_else(|p| p.into_inner());
  let n = kept.len();
  kept.clear();
  n
}

/// The OS temp directory as the snapshot names it (`TMPDIR` on Unix), but never one inside the
/// workspace: the full output must not land in the user's repository.
pub fn temp_dir(tmpdir_var: Option<&std::ffi::OsStr>, workspace: &Path) -> PathBuf {
  let platform_default = if cfg!(windows) {
    std::env::temp_dir()
  } else {
    PathBuf::from("/tmp")
  };
  let chosen = tmpdir_var
    .map(PathBuf::from)
    .filter(|p| p.is_absolute())
    .unwrap_or(platform_default.clone());
  let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
  if canonical(&chosen).starts_with(canonical(workspace)) {
    platform_default
  } else {
    chosen
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn spill_is_private_bounded_and_released() {
    let dir = tempfile::tempdir().unwrap();
    let spill = Spill::create(dir.path()).unwrap().write(b"hello").unwrap();
    let out = spill.finish(true);
    assert_eq!(std::fs::read(&out.path).unwrap(), b"hello");
    assert!(out.complete);
    #[cfg(unix)]
    {
      use std::os::unix::fs::PermissionsExt;
      assert_eq!(
        std::fs::metadata(&out.path).unwrap().permissions().mode() & 0o777,
        0o600
      );
    }
    assert!(release_all() >= 1);
    assert!(!out.path.exists());
  }

  #[cfg(unix)]
  #[test]
  fn temp_dir_is_never_inside_the_workspace() {
    let ws = tempfile::tempdir().unwrap();
    let inside = ws.path().join("tmp");
    assert_eq!(
      temp_dir(Some(inside.as_os_str()), ws.path()),
      PathBuf::from("/tmp")
    );
    assert_eq!(
      temp_dir(Some("/var/tmp".as_ref()), ws.path()),
      PathBuf::from("/var/tmp")
    );
    assert_eq!(
      temp_dir(Some("relative".as_ref()), ws.path()),
      PathBuf::from("/tmp")
    );
  }
}
