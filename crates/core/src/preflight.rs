//! Checks made before anything runs. They only read: nothing here creates, syncs or repairs.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::access::{denied, is_denied, is_gone, workspace_gone};
use crate::env_snapshot::EnvSnapshot;
use crate::errors::{
  os_text, CodegraphError, FileKind, NoIndexKind, NoIndexReason, Step, WorkspaceReason,
};
use crate::files::{canonical, open_workspace_file};
use crate::index_dir::{index_dir, index_dir_name_for};
use crate::resources::exhausted;

mod git_hooks;
pub use git_hooks::{own_git_hooks, SYNC_HOOKS};
mod request;
pub use request::{check_request, is_blank_char};
mod write_target;
pub use write_target::{check_removable, check_write_target, own_entries};

const DB_FILE: &str = "codegraph.db";
/// Every SQLite database starts with this 16-byte header; CodeGraph also treats a db shorter than
/// the header as "not initialised".
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

pub fn check_workspace(cwd: &str) -> Result<PathBuf, CodegraphError> {
  let path = PathBuf::from(cwd);
  let fail = |reason| {
    Err(CodegraphError::Workspace {
      path: path.clone(),
      denied: false,
      reason,
    })
  };
  let unreadable = |step, e: std::io::Error| {
    Err(
      exhausted(step, &e).unwrap_or_else(|| CodegraphError::Workspace {
        path: path.clone(),
        denied: is_denied(&e),
        reason: WorkspaceReason::Unreadable { os: os_text(&e) },
      }),
    )
  };
  if cwd.is_empty() {
    return fail(WorkspaceReason::None);
  }
  if !path.is_absolute() {
    return fail(WorkspaceReason::Relative);
  }
  // metadata() follows symlinks and never opens the target: a FIFO or device is refused here.
  match std::fs::metadata(&path) {
    // A directory we cannot list would fail later in confusing ways (as "no index").
    Ok(m) if m.is_dir() => match std::fs::read_dir(&path) {
      Ok(_) => Ok(path),
      Err(e) => unreadable(Step::ListWorkspace, e),
    },
    Ok(m) => fail(WorkspaceReason::NotDirectory {
      file_kind: kind_of(&path, &m),
    }),
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => match past_wasi(&path) {
      Some(file_kind) => fail(WorkspaceReason::NotDirectory { file_kind }),
      None => fail(WorkspaceReason::Missing),
    },
    Err(e) => unreadable(Step::ReadWorkspace, e),
  }
}

/// The index that answers, as found by [`check_index`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IndexFound {
  /// `<workspace>/.codegraph` (or the directory `index_dir` names), as the CLI will open it.
  pub dir: PathBuf,
  /// The same directory with every symlink resolved: where the data really is.
  pub resolved: PathBuf,
  /// The database's size in bytes (what one query maps and caches: the parallel limit weighs
  /// it); `None` for a command that needs no index.
  pub bytes: Option<u64>,
}

/// Set to `1` to accept an index whose directory or database resolves outside the workspace.
pub const ALLOW_EXTERNAL_INDEX_VAR: &str = "PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX";

/// `PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1`: the user accepts an existing index that resolves
/// outside the workspace.
pub fn allow_external(env: &EnvSnapshot) -> bool {
  env
    .get_set(ALLOW_EXTERNAL_INDEX_VAR)
    .is_some_and(|v| v == "1")
}

/// The index must be the workspace's own: the CLI would walk up to an ancestor's index, which
/// answers with paths relative to that ancestor. Only metadata is read, and the database header
/// only from a regular file opened non-blocking, so no FIFO, device or `/dev/stdin` symlink is
/// ever read (or waited on). `home` is the workspace with symlinks resolved ([`canonical`]).
// One match per check, in the order the CLI would meet them; splitting them would scatter the
// error mapping that each needs.
#[allow(clippy::too_many_lines)]
pub fn check_index(
  workspace: &Path,
  home: &Path,
  env: &EnvSnapshot,
) -> Result<IndexFound, CodegraphError> {
  let dir = index_dir(workspace, home, env);
  let name = dir.file_name().map(PathBuf::from).unwrap_or_default();
  let db = dir.join(DB_FILE);
  let no_index = |reason: NoIndexReason, kind: NoIndexKind| CodegraphError::NoIndex {
    path: workspace.to_path_buf(),
    kind,
    reason: Box::new(reason),
  };
  let missing = |what: &Path| missing_index(workspace, env, what);
  match std::fs::metadata(&dir) {
    Ok(m) if m.is_dir() => {}
    Ok(m) => {
      return Err(no_index(
        NoIndexReason::NotDirectory {
          file_kind: kind_of(&dir, &m),
          path: dir,
        },
        NoIndexKind::Special,
      ))
    }
    Err(e) if is_gone(&e) => {
      return Err(match past_wasi(&dir) {
        Some(file_kind) => no_index(
          NoIndexReason::NotDirectory {
            file_kind,
            path: dir,
          },
          NoIndexKind::Special,
        ),
        None => missing(&dir),
      })
    }
    Err(e) => {
      let unreadable = || CodegraphError::Workspace {
        path: workspace.to_path_buf(),
        denied: is_denied(&e),
        reason: WorkspaceReason::IndexDirUnreadable {
          dir: dir.clone(),
          os: os_text(&e),
        },
      };
      return Err(exhausted(Step::ReadIndexDir, &e).unwrap_or_else(unreadable));
    }
  }
  let bytes = match std::fs::metadata(&db) {
    Ok(m) if m.is_file() => m.len(),
    Ok(m) => {
      return Err(no_index(
        NoIndexReason::NotRegular {
          file_kind: kind_of(&db, &m),
          path: db,
        },
        NoIndexKind::Special,
      ))
    }
    Err(e) if is_gone(&e) => {
      return Err(match past_wasi(&db) {
        Some(file_kind) => no_index(
          NoIndexReason::NotRegular {
            file_kind,
            path: db,
          },
          NoIndexKind::Special,
        ),
        None => missing(&db),
      })
    }
    // `.codegraph/` may not be entered: the index may be fine, only access fails.
    Err(e) if is_denied(&e) => return Err(denied(&dir, &dir, &e)),
    Err(e) => {
      let unreadable = || {
        let kind = NoIndexKind::Unusable { db: db.clone() };
        let reason = NoIndexReason::Unreadable {
          path: db.clone(),
          os: os_text(&e),
        };
        no_index(reason, kind)
      };
      return Err(exhausted(Step::ReadIndex, &e).unwrap_or_else(unreadable));
    }
  };
  // Without a symlink in `.codegraph` or `codegraph.db` the index is inside the workspace by
  // construction; only a link needs resolving (two lstat calls instead of two realpath calls).
  let is_link =
    |p: &Path| std::fs::symlink_metadata(p).map_or(true, |m| m.file_type().is_symlink());
  let linked = is_link(&dir) || is_link(&db);
  let resolved = if linked {
    canonical(&dir)
  } else {
    home.join(&name)
  };
  if linked && !allow_external(env) {
    let db_resolved = canonical(&db);
    for (what, target) in [(&dir, &resolved), (&db, &db_resolved)] {
      if !target.starts_with(home) {
        return Err(no_index(
          NoIndexReason::Outside {
            path: what.clone(),
            target: target.clone(),
          },
          NoIndexKind::Outside {
            resolved: target.clone(),
          },
        ));
      }
    }
  }
  match read_header(&db) {
    Ok(header) if &header == SQLITE_MAGIC => Ok(IndexFound {
      dir,
      resolved,
      bytes: Some(bytes),
    }),
    Ok(_) => Err(no_index(
      NoIndexReason::NotSqlite { path: db.clone() },
      NoIndexKind::Unusable { db },
    )),
    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(no_index(
      NoIndexReason::Truncated { path: db.clone() },
      NoIndexKind::Unusable { db },
    )),
    Err(e) if is_denied(&e) => Err(denied(&dir, &db, &e)),
    Err(e) if is_gone(&e) => Err(missing(&db)),
    Err(e) => Err(exhausted(Step::ReadIndexHeader, &e).unwrap_or_else(|| {
      let reason = NoIndexReason::Unreadable {
        path: db.clone(),
        os: os_text(&e),
      };
      no_index(reason, NoIndexKind::Unusable { db })
    })),
  }
}

/// CODEGRAPH_NO_INDEX for a `what` that is not there, naming an ancestor's index if one exists.
/// When the workspace itself vanished (deleted or renamed during the call) that is the problem
/// instead: CODEGRAPH_WORKSPACE.
fn missing_index(workspace: &Path, env: &EnvSnapshot, what: &Path) -> CodegraphError {
  if let Some(gone) = workspace_gone(workspace) {
    return gone;
  }
  CodegraphError::NoIndex {
    path: workspace.to_path_buf(),
    kind: NoIndexKind::Missing {
      ancestor: ancestor_index(workspace, env),
    },
    reason: Box::new(NoIndexReason::Missing {
      path: what.to_path_buf(),
    }),
  }
}

/// The first 16 bytes of a regular file.
fn read_header(db: &Path) -> std::io::Result<[u8; 16]> {
  let mut header = [0u8; 16];
  open_workspace_file(db)?.read_exact(&mut header)?;
  Ok(header)
}

/// The nearest ancestor of `workspace` that has its own `<index dir>/codegraph.db` (a regular
/// file; the directory each ancestor's own, by the CLI's rule), found by metadata alone.
pub fn ancestor_index(workspace: &Path, env: &EnvSnapshot) -> Option<PathBuf> {
  workspace
    .ancestors()
    .skip(1)
    .take(64)
    .find(|dir| {
      let name = index_dir_name_for(dir, env);
      std::fs::metadata(dir.join(name).join(DB_FILE)).is_ok_and(|m| m.is_file())
    })
    .map(Path::to_path_buf)
}

/// What a file is, as a fact (the words module names it): `m` is `path`'s metadata, links followed.
fn kind_of(path: &Path, m: &std::fs::Metadata) -> FileKind {
  let t = m.file_type();
  if t.is_dir() {
    return FileKind::Directory;
  }
  if t.is_file() {
    return FileKind::RegularFile;
  }
  #[cfg(unix)]
  {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
      return FileKind::Fifo;
    }
    if t.is_char_device() {
      return FileKind::CharDevice;
    }
    if t.is_block_device() {
      return FileKind::BlockDevice;
    }
    if t.is_socket() {
      return FileKind::Socket;
    }
  }
  #[cfg(target_family = "wasm")]
  if let Ok(crate::host::Stat {
    special: Some(special),
    ..
  }) = crate::host::stat(path, true)
  {
    return special_kind(special);
  }
  #[cfg(not(target_family = "wasm"))]
  let _ = path;
  FileKind::Special
}

/// The host's kind of a special file, as a fact.
#[cfg(target_family = "wasm")]
fn special_kind(special: crate::host::Special) -> FileKind {
  use crate::host::Special;
  match special {
    Special::Fifo => FileKind::Fifo,
    Special::CharDevice => FileKind::CharDevice,
    Special::BlockDevice => FileKind::BlockDevice,
    Special::Socket => FileKind::Socket,
  }
}

/// What a path WASI says is not there is, when the host reaches it: a link into /proc's magic
/// links (`/dev/stdin`), which WASI, resolving links itself, cannot follow. Natively never asked.
#[cfg(target_family = "wasm")]
fn past_wasi(path: &Path) -> Option<FileKind> {
  let stat = crate::host::stat(path, true).ok()?;
  Some(stat.special.map_or(FileKind::Special, special_kind))
}

#[cfg(not(target_family = "wasm"))]
fn past_wasi(_: &Path) -> Option<FileKind> {
  None
}

#[cfg(test)]
mod tests;
