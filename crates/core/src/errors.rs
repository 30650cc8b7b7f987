//! Every way an explore can fail, each with a stable code and a one-line remediation.
//!
//! The codes are the public contract: JS callers and the model branch on them, so a variant's
//! code never changes once released. Messages stay short and bounded: every path goes through
//! [`shown`], and the stderr tail is the only CLI-provided text that reaches them, already capped
//! by `limits`.

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::resources::Resource;

/// The longest a path may be in a message; longer ones keep their start and end.
const MAX_SHOWN_PATH_CHARS: usize = 240;

/// A path as a message may show it: lossy UTF-8, control characters escaped (a directory name
/// with a newline must not add lines to what the model reads), at most `MAX_SHOWN_PATH_CHARS`.
pub fn shown(path: &Path) -> String {
  let mut escaped = String::new();
  for c in path.to_string_lossy().chars() {
    if c.is_control() {
      escaped.extend(c.escape_default());
    } else {
      escaped.push(c);
    }
  }
  let count = escaped.chars().count();
  if count <= MAX_SHOWN_PATH_CHARS {
    return escaped;
  }
  let half = MAX_SHOWN_PATH_CHARS / 2;
  let head: String = escaped.chars().take(half).collect();
  let tail: String = escaped.chars().skip(count - half).collect();
  format!("{head}…({} characters omitted)…{tail}", count - 2 * half)
}

/// Why a workspace has no index that pi-codegraph may use; each has its own remediation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoIndexKind {
  /// No `.codegraph/codegraph.db` here; `ancestor` is the nearest parent directory that has one.
  Missing { ancestor: Option<PathBuf> },
  /// `codegraph.db` exists but is not a usable SQLite database (the CLI refuses to rebuild it).
  Unusable { db: PathBuf },
  /// `.codegraph` or `codegraph.db` is not a regular directory/file (a FIFO, a device, a socket…):
  /// refused without being opened.
  Special,
  /// The index resolves (through a symlink) outside the workspace.
  Outside { resolved: PathBuf },
}

/// Why the index cannot be opened read-write. The index itself may be fine in each case, so no
/// remediation ever says to move or delete it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
  /// SQLite said the database is read-only (no write permission on `.codegraph/` or its files).
  NotWritable,
  /// This user may not read, write or enter `path` (EACCES/EPERM).
  Denied { path: PathBuf },
  /// The filesystem holding the index is mounted read-only (EROFS).
  ReadOnlyMount,
}

#[derive(Debug, Error)]
pub enum ExploreError {
  #[error("the Explore request is invalid: {reason}")]
  InvalidRequest { reason: String },

  #[error("the explore options are invalid: {reason}")]
  InvalidOptions { reason: String },

  #[error("the workspace {} is not usable: {reason}", shown(path))]
  Workspace {
    path: PathBuf,
    reason: String,
    /// This user may not read or enter it (EACCES/EPERM): a permissions remediation.
    denied: bool,
  },

  #[error("the CodeGraph CLI was not found: {reason}")]
  NotFound { reason: String },

  #[error("this workspace has no usable CodeGraph index: {reason}")]
  NoIndex {
    path: PathBuf,
    reason: String,
    kind: NoIndexKind,
  },

  #[error("the CodeGraph index cannot be opened read-write: {reason}")]
  IndexReadOnly {
    dir: PathBuf,
    reason: String,
    cause: Access,
  },

  #[error("CodeGraph is writing this workspace's index right now ({}){}", writer_says(lock, *pid, *rebuild), busy_note(*waited_ms))]
  IndexBusy {
    /// The lock file that names the writer.
    lock: PathBuf,
    pid: u32,
    rebuild: bool,
    /// How long this call waited for the writer to finish.
    waited_ms: u64,
  },

  #[error("codegraph could not be started: {reason}")]
  Spawn { reason: String },

  #[error("pi-codegraph ran out of {resource}: {reason}")]
  Resources { resource: Resource, reason: String },

  #[error("codegraph explore {how}")]
  Exit {
    how: String,
    code: Option<i32>,
    signal: Option<i32>,
    stderr_tail: String,
  },

  #[error("codegraph explore did not finish within {timeout_ms} ms and was stopped{}", partial_note(*partial_bytes))]
  Timeout {
    timeout_ms: u64,
    stderr_tail: String,
    partial_bytes: u64,
    /// What the CLI had printed, within the output caps (for `details.partialText`).
    partial_text: String,
  },

  #[error("{}", cancelled_note(*partial_bytes))]
  Cancelled {
    partial_bytes: u64,
    partial_text: String,
  },
}

fn writer_says(lock: &Path, pid: u32, rebuild: bool) -> String {
  match pid {
    0 => format!(
      "{} holds only its first page: `codegraph init` is creating it",
      shown(lock)
    ),
    _ => format!("pid {pid} holds {}: {}", shown(lock), writer_kind(rebuild)),
  }
}

fn writer_kind(rebuild: bool) -> &'static str {
  if rebuild {
    "a `codegraph index` rebuild"
  } else {
    "`codegraph init`, `index` or `sync`"
  }
}

fn busy_note(waited_ms: u64) -> String {
  match waited_ms {
    0 => ", so an answer now could come from a partial index".into(),
    ms => format!(
      ", still after {:.1} s of waiting; an answer now could come from a partial index",
      ms as f64 / 1000.0
    ),
  }
}

fn partial_note(bytes: u64) -> String {
  match bytes {
    0 => " before it printed anything".into(),
    n => format!(" after printing {n} bytes of a partial answer (kept in details.partialText)"),
  }
}

fn cancelled_note(bytes: u64) -> String {
  match bytes {
    0 => "the explore was cancelled before codegraph printed anything, and codegraph was stopped"
      .into(),
    n => format!(
      "the explore was cancelled after codegraph had printed {n} bytes (the partial answer is in details.partialText), and codegraph was stopped"
    ),
  }
}

/// The stable machine-readable codes, one per [`ExploreError`] variant. The addon mirrors them
/// as a JS string enum; [`ErrorCode::as_str`] is the text both use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
  InvalidRequest,
  InvalidOptions,
  Workspace,
  NotFound,
  NoIndex,
  IndexReadOnly,
  IndexBusy,
  Spawn,
  Resources,
  Exit,
  Timeout,
  Cancelled,
}

impl ErrorCode {
  /// The code as JS and the model see it.
  pub fn as_str(self) -> &'static str {
    match self {
      Self::InvalidRequest => "CODEGRAPH_INVALID_REQUEST",
      Self::InvalidOptions => "CODEGRAPH_INVALID_OPTIONS",
      Self::Workspace => "CODEGRAPH_WORKSPACE",
      Self::NotFound => "CODEGRAPH_NOT_FOUND",
      Self::NoIndex => "CODEGRAPH_NO_INDEX",
      Self::IndexReadOnly => "CODEGRAPH_INDEX_READONLY",
      Self::IndexBusy => "CODEGRAPH_INDEX_BUSY",
      Self::Spawn => "CODEGRAPH_SPAWN",
      Self::Resources => "CODEGRAPH_RESOURCES",
      Self::Exit => "CODEGRAPH_EXIT",
      Self::Timeout => "CODEGRAPH_TIMEOUT",
      Self::Cancelled => "CODEGRAPH_CANCELLED",
    }
  }
}

impl std::fmt::Display for ErrorCode {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    f.write_str(self.as_str())
  }
}

impl ExploreError {
  /// The stable machine-readable code, also the JS `error.code`.
  pub fn code(&self) -> ErrorCode {
    match self {
      Self::InvalidRequest { .. } => ErrorCode::InvalidRequest,
      Self::InvalidOptions { .. } => ErrorCode::InvalidOptions,
      Self::Workspace { .. } => ErrorCode::Workspace,
      Self::NotFound { .. } => ErrorCode::NotFound,
      Self::NoIndex { .. } => ErrorCode::NoIndex,
      Self::IndexReadOnly { .. } => ErrorCode::IndexReadOnly,
      Self::IndexBusy { .. } => ErrorCode::IndexBusy,
      Self::Spawn { .. } => ErrorCode::Spawn,
      Self::Resources { .. } => ErrorCode::Resources,
      Self::Exit { .. } => ErrorCode::Exit,
      Self::Timeout { .. } => ErrorCode::Timeout,
      Self::Cancelled { .. } => ErrorCode::Cancelled,
    }
  }

  /// What the user (or the model, on the user's behalf) can do about it, in one line.
  pub fn remediation(&self) -> String {
    match self {
      Self::InvalidRequest { .. } => {
        "Send one non-empty natural-language question of at most 10,000 characters (as JavaScript counts them), without NUL bytes.".into()
      }
      Self::InvalidOptions { .. } => {
        "Pass options as { timeoutMs?: milliseconds, onProgress?: function } and the signal as an AbortSignal, or leave them out.".into()
      }
      Self::Workspace {
        path, denied: true, ..
      } => format!(
        "Give this user read and execute access to {} (check its owner and mode with `ls -ld`), or start Pi as a user who can read it; codegraph_explore only runs in Pi's active workspace.",
        shown(path)
      ),
      Self::Workspace { .. } => {
        "Start Pi in an existing project directory; codegraph_explore only runs in Pi's active workspace.".into()
      }
      Self::NotFound { .. } => {
        "Install the CodeGraph CLI (npm install -g @colbymchenry/codegraph) and make sure `codegraph` is on PATH, or set PI_CODEGRAPH_BIN to its absolute path.".into()
      }
      Self::NoIndex { path, kind, .. } => no_index_remediation(path, kind),
      Self::IndexReadOnly { dir, cause, .. } => access_remediation(dir, cause),
      Self::IndexBusy { lock, pid: 0, .. } => format!(
        "Ask again once `codegraph init` has finished; pi-codegraph never starts, stops or repeats indexing. If no CodeGraph process is indexing, an init was interrupted: run `codegraph index` in the workspace (the database {} is only started).",
        shown(lock)
      ),
      Self::IndexBusy { lock, pid, .. } => format!(
        "Ask again once CodeGraph has finished writing the index; pi-codegraph never starts, stops or repeats indexing. If no CodeGraph process runs as pid {pid}, the lock is stale: delete {}.",
        shown(lock)
      ),
      Self::Spawn { .. } => {
        "Check that the codegraph executable is a runnable program and that the workspace is readable.".into()
      }
      Self::Resources { resource, .. } => resource.remediation().into(),
      Self::Exit { .. } => {
        "Read the stderr tail below; run the same `codegraph explore` in the workspace to reproduce it.".into()
      }
      Self::Timeout { .. } => {
        "Ask a narrower question that names concrete symbols or files, or check the index with `codegraph status`.".into()
      }
      Self::Cancelled { .. } => "Nothing to fix: the request was cancelled.".into(),
    }
  }

  /// The full, self-contained message: Pi hands only `error.message` to the model, so the code and
  /// the remediation have to be in it.
  pub fn message(&self) -> String {
    let mut msg = format!(
      "{}: {}.\nRemediation: {}",
      self.code(),
      self,
      self.remediation()
    );
    match self {
      Self::Exit { stderr_tail, .. } if stderr_tail.trim().is_empty() => {
        msg.push_str("\nstderr: (empty)");
      }
      // What a stuck CLI said before it was stopped is often the reason (a lock, a prompt).
      Self::Exit { stderr_tail, .. } | Self::Timeout { stderr_tail, .. }
        if !stderr_tail.trim().is_empty() =>
      {
        msg.push_str("\nstderr (last 4 KB):\n");
        msg.push_str(stderr_tail.trim_end());
      }
      _ => {}
    }
    msg
  }
}

fn access_remediation(dir: &Path, cause: &Access) -> String {
  let rw =
    "CodeGraph opens its index read-write even to explore (it creates codegraph.db-wal and -shm)";
  let keep = "The index itself may be fine: do not move or delete it. pi-codegraph itself never writes the index.";
  match cause {
    Access::NotWritable => format!(
      "{rw}: make {} and its files writable for this user. pi-codegraph itself never writes the index.",
      shown(dir)
    ),
    Access::Denied { path } => format!(
      "This user may not access {}: make {} and its files readable and writable for this user (check owner and mode with `ls -la`), or start Pi as the user who owns the index; {rw}. {keep}",
      shown(path),
      shown(dir)
    ),
    Access::ReadOnlyMount => format!(
      "{} is on a read-only filesystem and {rw}: remount it read-write, or start Pi in a writable copy of the project. {keep}",
      shown(dir)
    ),
  }
}

fn no_index_remediation(workspace: &Path, kind: &NoIndexKind) -> String {
  let ws = shown(workspace);
  let never = "pi-codegraph never creates, syncs or repairs the index.";
  match kind {
    NoIndexKind::Missing {
      ancestor: Some(ancestor),
    } => format!(
      "The enclosing project {} has a CodeGraph index: start Pi there (cd {} && pi) to use it; its answers name files relative to that directory. Only if you want a separate, partial index of this subdirectory, run `codegraph init` in {ws} yourself. {never}",
      shown(ancestor),
      shown(ancestor),
    ),
    NoIndexKind::Missing { ancestor: None } => {
      format!("Run `codegraph init` in {ws} yourself; {never}")
    }
    NoIndexKind::Unusable { db } => format!(
      "Move or delete {} (CodeGraph cannot rebuild it in place), then run `codegraph init` in {ws} yourself; {never}",
      shown(db)
    ),
    NoIndexKind::Special => format!(
      "Replace it with a real index: remove it, then run `codegraph init` in {ws} yourself; {never}"
    ),
    NoIndexKind::Outside { .. } => format!(
      "Start Pi in the project that owns that index, run `codegraph init` in {ws} for an index of its own, or set PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1 to accept an index outside the workspace. {never}"
    ),
  }
}

#[cfg(test)]
mod tests;
