//! What a CLI that exited non-zero meant: a workspace that vanished or was locked, an index this
//! user cannot access (`access.rs`, asked by the caller), an index it cannot use, a read-only
//! index, or a failure reported with its stderr tail (redacted by the words module).

use crate::errors::{Access, CodegraphError, NoIndexKind, NoIndexReason, ReadOnlyReason};
use crate::preflight::IndexFound;

/// What CodeGraph prints on stderr when the directory has no index (1.1 to 1.6.1).
const CLI_NO_INDEX_MARKER: &str = "no .codegraph/ index exists";
/// What CodeGraph 1.6.1 prints when it cannot open its index read-write (SQLite's message for a
/// read-only database file or directory).
const CLI_READONLY_MARKERS: &[&str] = &["attempt to write a readonly database", "SQLITE_READONLY"];
/// SQLite's SQLITE_CANTOPEN: the database (or its directory, -wal, -shm) cannot be opened, as on a
/// read-only mount, for a file this user may not read, or once the workspace is gone.
const CLI_CANTOPEN_MARKERS: &[&str] = &["unable to open database file", "SQLITE_CANTOPEN"];
/// SQLite's SQLITE_CORRUPT and SQLITE_NOTADB: a database with a valid header whose pages are
/// truncated or damaged.
const CLI_CORRUPT_MARKERS: &[&str] = &[
  "database disk image is malformed",
  "file is not a database",
  "SQLITE_CORRUPT",
  "SQLITE_NOTADB",
];
/// Bound on the stdout excerpt attached to a failure whose stderr is empty (the CLI prints its
/// validation errors, such as `Error: query must be a non-empty string`, on stdout).
const STDOUT_EXCERPT_BYTES: usize = 1024;

/// The CLI said it could not open (or find, or write) its database: the index paths' access is
/// worth checking, not only the workspace's.
pub(super) fn says_cannot_open(out: &crate::runner::RunOutput) -> bool {
  let said = |markers: &[&str]| markers.iter().any(|m| out.stderr_tail.contains(m));
  said(CLI_READONLY_MARKERS) || said(CLI_CANTOPEN_MARKERS) || said(&[CLI_NO_INDEX_MARKER])
}

/// What a failed run means. `blocked` is what the filesystem said after it (`access::
/// workspace_blocked`, or `index_blocked` when [`says_cannot_open`]): whatever the CLI said, a
/// workspace that vanished or an index this user cannot access is the cause (its own words for
/// them are "unable to open database file" or uv_cwd's ENOENT).
pub(super) fn classify_exit(
  out: &crate::runner::RunOutput,
  workspace: &std::path::Path,
  index: &IndexFound,
  blocked: Option<CodegraphError>,
) -> CodegraphError {
  if let Some(blocked) = blocked {
    return blocked;
  }
  let said = |markers: &[&str]| markers.iter().any(|m| out.stderr_tail.contains(m));
  let readonly = said(CLI_READONLY_MARKERS);
  if said(&[CLI_NO_INDEX_MARKER]) || said(CLI_CORRUPT_MARKERS) {
    // Our preflight saw a database file, but the CLI could not use it (a corrupt file, say).
    let db = index.dir.join("codegraph.db");
    return CodegraphError::NoIndex {
      path: workspace.to_path_buf(),
      reason: Box::new(NoIndexReason::CliCannotUse { path: db.clone() }),
      kind: NoIndexKind::Unusable { db },
    };
  }
  if readonly {
    return CodegraphError::IndexReadOnly {
      dir: index.dir.clone(),
      cause: Access::NotWritable,
      reason: Box::new(ReadOnlyReason::CliSaid),
    };
  }
  let code = out.status.code();
  #[cfg(unix)]
  let signal = std::os::unix::process::ExitStatusExt::signal(&out.status);
  #[cfg(not(unix))]
  let signal = None;
  // The start of stdout, shown when stderr said nothing (the CLI prints its validation errors
  // there).
  let text = &out.stdout.text;
  let stdout_excerpt = (!text.trim().is_empty()).then(|| {
    let mut end = text.len().min(STDOUT_EXCERPT_BYTES);
    while !text.is_char_boundary(end) {
      end -= 1;
    }
    text[..end].to_owned()
  });
  CodegraphError::Exit {
    code,
    signal,
    signal_name: signal.and_then(signal_name),
    stderr_tail: out.stderr_tail.clone(),
    stdout_excerpt,
  }
}

/// The usual names of the signals a crashing or killed CLI dies by.
fn signal_name(signal: i32) -> Option<&'static str> {
  #[cfg(unix)]
  {
    let name = match signal {
      libc::SIGSEGV => "SIGSEGV",
      libc::SIGKILL => "SIGKILL",
      libc::SIGABRT => "SIGABRT",
      libc::SIGBUS => "SIGBUS",
      libc::SIGILL => "SIGILL",
      libc::SIGFPE => "SIGFPE",
      libc::SIGTERM => "SIGTERM",
      libc::SIGINT => "SIGINT",
      libc::SIGHUP => "SIGHUP",
      libc::SIGPIPE => "SIGPIPE",
      _ => return None,
    };
    Some(name)
  }
  #[cfg(not(unix))]
  {
    let _ = signal;
    None
  }
}
