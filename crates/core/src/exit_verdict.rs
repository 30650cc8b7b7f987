//! What a CLI that exited non-zero meant: a workspace that vanished or was locked, an index this
//! user cannot access (asked of the filesystem by the caller, `blocked`), an index it cannot use,
//! a read-only index, or a failure reported with its stderr tail (redacted by the words module).
//! Both builds decide it here: the native runner (`command_run/exit.rs` reads its exit status)
//! and the WebAssembly core for the Node runner (src/output.rs).

use std::path::Path;

use crate::errors::{Access, CodegraphError, NoIndexKind, NoIndexReason, ReadOnlyReason};

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
/// The usual names of the signals a crashing or killed CLI dies by: a failure names only these.
pub const COMMON_SIGNALS: [&str; 10] = [
  "SIGSEGV", "SIGKILL", "SIGABRT", "SIGBUS", "SIGILL", "SIGFPE", "SIGTERM", "SIGINT", "SIGHUP",
  "SIGPIPE",
];

/// How a child ended, in both builds: its exit code, or the signal that ended it (Unix). The
/// native build reads it from the OS's status ([`Exit::of`]); the WebAssembly build is told it by
/// its host (WASI has no exit status to read).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exit {
  pub code: Option<i32>,
  pub signal: Option<i32>,
  /// The signal's usual name, one of [`COMMON_SIGNALS`] (the host's name for its number: signals
  /// are numbered differently on Linux and macOS).
  pub signal_name: Option<&'static str>,
}

impl Exit {
  /// Exit code 0.
  pub fn success(self) -> bool {
    self.code == Some(0)
  }

  /// The exit the OS reported.
  #[cfg(not(target_family = "wasm"))]
  pub fn of(status: std::process::ExitStatus) -> Self {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    Self {
      code: status.code(),
      signal,
      signal_name: signal.and_then(signal_name),
    }
  }

  /// The exit the host reported: its code, or the signal's number and the host's name for it.
  pub fn told(code: Option<i32>, signal: Option<i32>, name: Option<&str>) -> Self {
    Self {
      code,
      signal,
      signal_name: name.and_then(|name| COMMON_SIGNALS.iter().find(|c| **c == name).copied()),
    }
  }
}

/// The usual names of the signals a crashing or killed CLI dies by.
#[cfg(not(target_family = "wasm"))]
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

/// How a run ended, as its runner saw it.
#[derive(Debug, Clone, Copy)]
pub struct Exited<'a> {
  pub code: Option<i32>,
  /// The signal that ended it: its number, and the name the host gives it.
  pub signal: Option<i32>,
  pub signal_name: Option<&'a str>,
  /// The end of stderr, cleaned (`limits::StderrTail`).
  pub stderr_tail: &'a str,
  /// The stdout kept, cleaned.
  pub stdout_text: &'a str,
}

/// The CLI said it could not open (or find, or write) its database: the index paths' access is
/// worth checking, not only the workspace's.
pub fn says_cannot_open(stderr_tail: &str) -> bool {
  let said = |markers: &[&str]| markers.iter().any(|m| stderr_tail.contains(m));
  said(CLI_READONLY_MARKERS) || said(CLI_CANTOPEN_MARKERS) || said(&[CLI_NO_INDEX_MARKER])
}

/// What a failed run means. `blocked` is what the filesystem said after it (`access::
/// workspace_blocked`, or `index_blocked` when [`says_cannot_open`]): whatever the CLI said, a
/// workspace that vanished or an index this user cannot access is the cause (its own words for
/// them are "unable to open database file" or uv_cwd's ENOENT).
pub fn classify_exit(
  exited: &Exited,
  workspace: &Path,
  index_dir: &Path,
  blocked: Option<CodegraphError>,
) -> CodegraphError {
  if let Some(blocked) = blocked {
    return blocked;
  }
  let said = |markers: &[&str]| markers.iter().any(|m| exited.stderr_tail.contains(m));
  if said(&[CLI_NO_INDEX_MARKER]) || said(CLI_CORRUPT_MARKERS) {
    // Our preflight saw a database file, but the CLI could not use it (a corrupt file, say).
    let db = index_dir.join("codegraph.db");
    return CodegraphError::NoIndex {
      path: workspace.to_path_buf(),
      reason: Box::new(NoIndexReason::CliCannotUse { path: db.clone() }),
      kind: NoIndexKind::Unusable { db },
    };
  }
  if said(CLI_READONLY_MARKERS) {
    return CodegraphError::IndexReadOnly {
      dir: index_dir.to_path_buf(),
      cause: Access::NotWritable,
      reason: Box::new(ReadOnlyReason::CliSaid),
    };
  }
  // The start of stdout, shown when stderr said nothing (the CLI prints its validation errors
  // there).
  let text = exited.stdout_text;
  let stdout_excerpt = (!text.trim().is_empty()).then(|| {
    let mut end = text.len().min(STDOUT_EXCERPT_BYTES);
    while !text.is_char_boundary(end) {
      end -= 1;
    }
    text[..end].to_owned()
  });
  let signal_name = exited.signal_name.and_then(|name| {
    COMMON_SIGNALS
      .iter()
      .find(|common| **common == name)
      .copied()
  });
  CodegraphError::Exit {
    code: exited.code,
    signal: exited.signal,
    signal_name,
    stderr_tail: exited.stderr_tail.to_owned(),
    stdout_excerpt,
  }
}
