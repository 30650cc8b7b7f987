//! A copy of another worktree's CodeGraph index into a worktree that has none (`/codegraph init`
//! in a git worktree: "copy the index of <sibling> and sync it"). The copy is the product's own:
//! new files of this worktree (never a link, never a file shared with the sibling), made in a
//! temporary directory beside the target and renamed into place only once whole, so that a
//! failure or a cancel leaves no index behind and the sibling's is only read.
//!
//! What is copied: CodeGraph's database (`codegraph.db`), its write-ahead log when one is there
//! (the database is not whole without it), and `.gitignore`. Never a lock, a daemon's files, the
//! shared-memory index (`-shm`, rebuilt on open) or anything else. Each is opened as a regular
//! file, never through a link ([`crate::files::open_workspace_file`]): the sibling's directory is a
//! repository's, so a link there is refused, not followed.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::files::{canonical, open_workspace_file, within};

/// The files of an index directory that make the index, in the order they are copied. The first
/// is required.
pub const INDEX_FILES: [&str; 3] = ["codegraph.db", "codegraph.db-wal", ".gitignore"];
/// How much is read and written at a time; `stopped` and the deadline are asked between pieces.
const PIECE: usize = 1 << 20;

/// What to copy: the sibling's index directory into `to` (which must not exist, below
/// `workspace`), within `deadline`.
#[derive(Debug, Clone)]
pub struct CopyRequest {
  pub workspace: PathBuf,
  pub from: PathBuf,
  pub to: PathBuf,
  pub deadline: Duration,
}

/// What was copied: each file's name, and the bytes in all.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Copied {
  pub files: Vec<String>,
  pub bytes: u64,
}

/// Why nothing was copied (nothing is left behind in any case).
#[derive(Debug, PartialEq, Eq)]
pub enum CopyRefusal {
  /// `from` is not a directory (a link to one is refused too).
  FromNotDirectory,
  /// The sibling's directory has no database.
  NoDatabase,
  /// One of [`INDEX_FILES`] is there but is not a regular file (a link, a FIFO, a device).
  NotRegular { name: String },
  /// `to` exists already: this worktree has an index directory.
  TargetExists,
  /// `to` is not below the workspace (its directory, links resolved).
  TargetOutside,
  /// Stopped by the caller, or at the deadline.
  Stopped { why: &'static str },
  /// A system call failed: which step, on which path, and the OS's words.
  Io {
    step: &'static str,
    path: PathBuf,
    os: String,
  },
}

fn io<'a>(step: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> CopyRefusal + 'a {
  move |e| CopyRefusal::Io {
    step,
    path: path.to_path_buf(),
    os: e.to_string(),
  }
}

/// Copies the index in `request.from` into `request.to`; `stopped()` is asked between pieces.
pub fn copy_index(
  request: &CopyRequest,
  stopped: &dyn Fn() -> bool,
) -> Result<Copied, CopyRefusal> {
  let started = Instant::now();
  let from_kind = std::fs::symlink_metadata(&request.from).map_err(io("read", &request.from))?;
  if !from_kind.is_dir() {
    return Err(CopyRefusal::FromNotDirectory);
  }
  if std::fs::symlink_metadata(&request.to).is_ok() {
    return Err(CopyRefusal::TargetExists);
  }
  let parent = request.to.parent().map(canonical);
  if !parent.is_some_and(|p| within(&p, &canonical(&request.workspace))) {
    return Err(CopyRefusal::TargetOutside);
  }
  let present: Vec<&str> = INDEX_FILES
    .iter()
    .copied()
    .filter(|name| std::fs::symlink_metadata(request.from.join(name)).is_ok())
    .collect();
  if !present.contains(&INDEX_FILES[0]) {
    return Err(CopyRefusal::NoDatabase);
  }
  let partial = partial_dir(&request.to);
  std::fs::create_dir(&partial).map_err(io("create", &partial))?;
  let check = || {
    if stopped() {
      Err(CopyRefusal::Stopped { why: "cancelled" })
    } else if started.elapsed() >= request.deadline {
      Err(CopyRefusal::Stopped { why: "deadline" })
    } else {
      Ok(())
    }
  };
  let copied = (|| {
    let mut copied = Copied::default();
    for name in present {
      copied.bytes += copy_file(&request.from.join(name), &partial.join(name), name, &check)?;
      copied.files.push(name.to_owned());
    }
    check()?;
    // Whole: into place at once. A target made meanwhile is not replaced.
    if std::fs::symlink_metadata(&request.to).is_ok() {
      return Err(CopyRefusal::TargetExists);
    }
    std::fs::rename(&partial, &request.to).map_err(io("rename", &request.to))?;
    Ok(copied)
  })();
  if copied.is_err() {
    let _ = std::fs::remove_dir_all(&partial);
  }
  copied
}

/// The temporary directory beside `to`, named for this copy: the clock's nanoseconds (WASI has
/// no process id; `create_dir` refuses a name that exists).
fn partial_dir(to: &Path) -> PathBuf {
  let name = to.file_name().map_or_else(
    || ".codegraph".to_owned(),
    |n| n.to_string_lossy().into_owned(),
  );
  let nanos = std::time::SystemTime::now()
    .duration_since(std::time::UNIX_EPOCH)
    .map_or(0, |d| d.subsec_nanos());
  to.with_file_name(format!("{name}.copying-{nanos:09}"))
}

/// One file, piece by piece, into a new file (never over an existing one). Returns its bytes.
fn copy_file(
  from: &Path,
  to: &Path,
  name: &str,
  check: &dyn Fn() -> Result<(), CopyRefusal>,
) -> Result<u64, CopyRefusal> {
  let mut source = open_workspace_file(from).map_err(|e| {
    if e.kind() == std::io::ErrorKind::NotFound {
      io("open", from)(e)
    } else {
      CopyRefusal::NotRegular {
        name: name.to_owned(),
      }
    }
  })?;
  let mut target = std::fs::OpenOptions::new()
    .write(true)
    .create_new(true)
    .open(to)
    .map_err(io("create", to))?;
  let mut buffer = vec![0u8; PIECE];
  let mut bytes = 0u64;
  loop {
    check()?;
    let n = source.read(&mut buffer).map_err(io("read", from))?;
    if n == 0 {
      break;
    }
    target.write_all(&buffer[..n]).map_err(io("write", to))?;
    bytes += n as u64;
  }
  target.sync_all().map_err(io("write", to))?;
  Ok(bytes)
}

#[cfg(test)]
mod tests;
