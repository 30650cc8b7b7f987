//! Why a workspace or index that looked fine cannot be used: it vanished during the call, this
//! user may not access it, or it is on a read-only mount. Asked only after something failed, so
//! the answer names the real cause instead of "install CodeGraph" or "move the index away".

use std::io::ErrorKind;
use std::path::Path;

use crate::errors::{
  os_text, Access, CodegraphError, NoIndexKind, NoIndexReason, ReadOnlyReason, WorkspaceReason,
};

/// CODEGRAPH_WORKSPACE when the workspace no longer exists as a directory (deleted, or renamed
/// away, between the checks and now).
pub fn workspace_gone(workspace: &Path) -> Option<CodegraphError> {
  match std::fs::metadata(workspace) {
    Ok(m) if m.is_dir() => None,
    Err(e) if !is_gone(&e) => None,
    _ => Some(CodegraphError::Workspace {
      path: workspace.to_path_buf(),
      denied: false,
      reason: WorkspaceReason::Removed,
    }),
  }
}

/// [`workspace_gone`], or CODEGRAPH_WORKSPACE with a permissions remediation when this user may
/// no longer read or enter it (a chmod during the call; a spawn's chdir then fails with EACCES).
pub fn workspace_blocked(workspace: &Path) -> Option<CodegraphError> {
  workspace_gone(workspace).or_else(|| match access(workspace, false) {
    Err(e) if is_denied(&e) => Some(CodegraphError::Workspace {
      path: workspace.to_path_buf(),
      denied: true,
      reason: WorkspaceReason::Blocked { os: os_text(&e) },
    }),
    _ => None,
  })
}

/// `e` says a path (or one of its parents) is not there.
pub fn is_gone(e: &std::io::Error) -> bool {
  matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

/// `e` is a permission refusal (EACCES, or EPERM from a security module).
pub fn is_denied(e: &std::io::Error) -> bool {
  e.kind() == ErrorKind::PermissionDenied
}

/// CODEGRAPH_INDEX_READONLY for a path of the index this user may not access.
pub fn denied(dir: &Path, path: &Path, e: &std::io::Error) -> CodegraphError {
  CodegraphError::IndexReadOnly {
    dir: dir.to_path_buf(),
    cause: Access::Denied {
      path: path.to_path_buf(),
    },
    reason: Box::new(ReadOnlyReason::Denied {
      path: path.to_path_buf(),
      os: os_text(e),
    }),
  }
}

/// After the CLI failed to open its database: what in `<workspace>/.codegraph` this user cannot
/// read and write (the directory, the db and its -wal/-shm when they exist), or None when every
/// access is allowed. Checked with access(2), which also reports a read-only mount (EROFS).
pub fn index_blocked(workspace: &Path, dir: &Path) -> Option<CodegraphError> {
  if let Some(blocked) = workspace_blocked(workspace) {
    return Some(blocked);
  }
  let db = dir.join("codegraph.db");
  let checks = [
    (dir.to_path_buf(), true),
    (db.clone(), true),
    (dir.join("codegraph.db-wal"), false),
    (dir.join("codegraph.db-shm"), false),
  ];
  for (path, required) in checks {
    let Err(e) = access(&path, true) else {
      continue;
    };
    if is_gone(&e) {
      if !required {
        continue;
      }
      return Some(CodegraphError::NoIndex {
        path: workspace.to_path_buf(),
        kind: NoIndexKind::Missing { ancestor: None },
        reason: Box::new(NoIndexReason::Removed { path }),
      });
    }
    if e.kind() == ErrorKind::ReadOnlyFilesystem {
      return Some(CodegraphError::IndexReadOnly {
        dir: dir.to_path_buf(),
        cause: Access::ReadOnlyMount,
        reason: Box::new(ReadOnlyReason::ReadOnlyMount { path }),
      });
    }
    if is_denied(&e) {
      return Some(denied(dir, &path, &e));
    }
  }
  None
}

/// access(2) for reading (and entering a directory), plus writing when `write`.
#[cfg(unix)]
fn access(path: &Path, write: bool) -> std::io::Result<()> {
  use std::os::unix::ffi::OsStrExt;
  let c = std::ffi::CString::new(path.as_os_str().as_bytes())?;
  let is_dir = std::fs::metadata(path)?.is_dir();
  let mut mode = libc::R_OK;
  if write {
    mode |= libc::W_OK;
  }
  if is_dir {
    mode |= libc::X_OK;
  }
  // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
  if unsafe { libc::access(c.as_ptr(), mode) } == 0 {
    Ok(())
  } else {
    Err(std::io::Error::last_os_error())
  }
}

/// access(2) as the WebAssembly build's host answers it.
#[cfg(target_family = "wasm")]
fn access(path: &Path, write: bool) -> std::io::Result<()> {
  use crate::host::{EXECUTE, READ, WRITE};
  let is_dir = std::fs::metadata(path)?.is_dir();
  let mode = READ | if write { WRITE } else { 0 } | if is_dir { EXECUTE } else { 0 };
  crate::host::access(path, mode)
}

/// Windows has no access(2) with these answers; the CLI's own message stands.
#[cfg(not(any(unix, target_family = "wasm")))]
fn access(path: &Path, _write: bool) -> std::io::Result<()> {
  std::fs::metadata(path).map(|_| ())
}
