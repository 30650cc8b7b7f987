//! What a CLI that exited non-zero meant: a workspace that vanished or was locked, an index this
//! user cannot access (`access.rs`, asked by the caller), an index it cannot use, a read-only
//! index, or a failure reported with its (redacted) stderr tail.

use crate::errors::{shown, Access, ExploreError, NoIndexKind};
use crate::preflight::IndexFound;
use crate::sanitize::redact;

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
  blocked: Option<ExploreError>,
) -> ExploreError {
  if let Some(blocked) = blocked {
    return blocked;
  }
  let said = |markers: &[&str]| markers.iter().any(|m| out.stderr_tail.contains(m));
  let readonly = said(CLI_READONLY_MARKERS);
  if said(&[CLI_NO_INDEX_MARKER]) || said(CLI_CORRUPT_MARKERS) {
    // Our preflight saw a database file, but the CLI could not use it (a corrupt file, say).
    let db = index.dir.join("codegraph.db");
    return ExploreError::NoIndex {
      path: workspace.to_path_buf(),
      reason: format!("codegraph cannot use {} as an index", shown(&db)),
      kind: NoIndexKind::Unusable { db },
    };
  }
  if readonly {
    return ExploreError::IndexReadOnly {
      dir: index.dir.clone(),
      reason: "codegraph explore failed with \"attempt to write a readonly database\"".into(),
      cause: Access::NotWritable,
    };
  }
  let code = out.status.code();
  #[cfg(unix)]
  let signal = std::os::unix::process::ExitStatusExt::signal(&out.status);
  #[cfg(not(unix))]
  let signal = None;
  let how = match (code, signal) {
    (Some(c), _) => format!("exited with code {c}"),
    (None, Some(s)) => match signal_name(s) {
      Some(name) => format!("was killed by {name} (signal {s})"),
      None => format!("was killed by signal {s}"),
    },
    (None, None) => "ended abnormally".into(),
  };
  let mut stderr_tail = out.stderr_tail.clone();
  if stderr_tail.trim().is_empty() && !out.stdout.text.trim().is_empty() {
    let text = &out.stdout.text;
    let mut end = text.len().min(STDOUT_EXCERPT_BYTES);
    while !text.is_char_boundary(end) {
      end -= 1;
    }
    stderr_tail = format!("(stderr empty; stdout began:)\n{}", redact(&text[..end]));
  }
  ExploreError::Exit {
    how,
    code,
    signal,
    stderr_tail,
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
