//! Every way an explore can fail: a stable code and the facts of the case. No words here: the
//! JS words module (lib/words/) builds every message and remediation from a code and its facts,
//! for the addon and the Node runner alike. Facts are typed (paths, pids, a tag for each kind of
//! reason, the OS's own text for an I/O error) and serialize, camelCase, into the `facts` object
//! the addon hands to JS; paths are raw (lossy UTF-8), since shortening them for a message is
//! words too.
//!
//! The codes are the public contract: JS callers and the model branch on them, so a variant's
//! code never changes once released.

use std::path::PathBuf;

use serde::{Serialize, Serializer};

use crate::resources::Resource;

/// A path as a fact: lossy UTF-8 (a non-UTF-8 name still reaches the message, as U+FFFD).
#[allow(clippy::ptr_arg)] // serde hands over the field itself
fn lossy<S: Serializer>(p: &PathBuf, s: S) -> Result<S::Ok, S::Error> {
  s.serialize_str(&p.to_string_lossy())
}

#[allow(clippy::ref_option)] // serde hands over the field itself
fn lossy_opt<S: Serializer>(p: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
  match p {
    Some(p) => s.serialize_str(&p.to_string_lossy()),
    None => s.serialize_none(),
  }
}

/// The OS's own text for an I/O error, as a fact (one line, as `io::Error` displays it).
pub fn os_text(e: &std::io::Error) -> String {
  e.to_string()
}

/// What a file that is not what it should be is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FileKind {
  Directory,
  RegularFile,
  Fifo,
  CharDevice,
  BlockDevice,
  Socket,
  Special,
}

/// Why a workspace has no index that pi-codegraph may use; each has its own remediation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum NoIndexKind {
  /// No `.codegraph/codegraph.db` here; `ancestor` is the nearest parent directory that has one.
  Missing {
    #[serde(serialize_with = "lossy_opt")]
    ancestor: Option<PathBuf>,
  },
  /// `codegraph.db` exists but is not a usable SQLite database (the CLI refuses to rebuild it).
  Unusable {
    #[serde(serialize_with = "lossy")]
    db: PathBuf,
  },
  /// `.codegraph` or `codegraph.db` is not a regular directory/file (a FIFO, a device, a socket…):
  /// refused without being opened.
  Special,
  /// The index resolves (through a symlink) outside the workspace.
  Outside {
    #[serde(serialize_with = "lossy")]
    resolved: PathBuf,
  },
}

/// Why the index cannot be opened read-write. The index itself may be fine in each case, so no
/// remediation ever says to move or delete it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Access {
  /// SQLite said the database is read-only (no write permission on `.codegraph/` or its files).
  NotWritable,
  /// This user may not read, write or enter `path` (EACCES/EPERM).
  Denied {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
  },
  /// The filesystem holding the index is mounted read-only (EROFS).
  ReadOnlyMount,
}

/// Why the request was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum RequestReason {
  NotString,
  /// Only whitespace and invisible characters.
  Blank,
  Nul,
  /// Longer than `limit` UTF-16 units.
  TooLong {
    units: usize,
    limit: usize,
  },
  /// Rust refuses batch-file arguments it cannot escape safely for cmd.exe.
  BatchUnsafe {
    #[serde(serialize_with = "lossy")]
    executable: PathBuf,
  },
}

/// Why the options (or the signal) were refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum OptionsReason {
  NotObject,
  /// Reading `options.<field>` threw.
  Unreadable {
    field: &'static str,
  },
  /// `field` (`options.timeoutMs`, `command.timeoutMs`) is not 1 to `i32::MAX` milliseconds.
  TimeoutMs {
    field: &'static str,
  },
  OnProgress,
  ProgressUnusable,
  NotSignal,
  AbortedUnreadable,
  /// The command description is not an object.
  NotCommand,
  /// Reading `command.<field>` threw.
  CommandUnreadable {
    field: &'static str,
  },
  /// `command.<field>` is not what it must be: `expected` is `string`, `wholeNumber`,
  /// `boolean`, `progress` or `stringList`.
  CommandField {
    field: &'static str,
    expected: &'static str,
  },
  /// The subcommand is not 1 to `max_bytes` lowercase letters and dashes.
  Subcommand {
    max_bytes: usize,
  },
  TooManyOptions {
    max: usize,
  },
  /// An option that is not `--name` or `--name=value` (its first 40 characters).
  BadOption {
    shown: String,
    max_bytes: usize,
  },
  Caps {
    min_bytes: usize,
    max_bytes: usize,
    min_lines: usize,
    max_lines: usize,
  },
  /// `field`'s timeout is above what an index-writing command may have.
  WriteTimeout {
    field: &'static str,
    max_ms: u64,
  },
}

/// Why the workspace cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum WorkspaceReason {
  NotString,
  None,
  Relative,
  Missing,
  NotDirectory {
    file_kind: FileKind,
  },
  Unreadable {
    os: String,
  },
  /// Removed or renamed during the call.
  Removed,
  /// It can no longer be read or entered (a chmod during the call).
  Blocked {
    os: String,
  },
  IndexDirUnreadable {
    #[serde(serialize_with = "lossy")]
    dir: PathBuf,
    os: String,
  },
  /// The filesystem did not answer a diagnosis's checks in time.
  Unanswered,
}

/// Why no CodeGraph CLI can run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum NotFoundReason {
  OverrideRelative {
    variable: &'static str,
    #[serde(serialize_with = "lossy")]
    value: PathBuf,
  },
  OverrideMissing {
    variable: &'static str,
    #[serde(serialize_with = "lossy")]
    value: PathBuf,
  },
  NotOnPath {
    names: &'static [&'static str],
    /// The first one found inside the workspace, skipped.
    #[serde(serialize_with = "lossy_opt")]
    skipped: Option<PathBuf>,
    allow_variable: &'static str,
  },
  /// The spawn said ENOENT: it, or its interpreter, does not exist.
  CannotExecute {
    #[serde(serialize_with = "lossy")]
    executable: PathBuf,
  },
}

/// Why the workspace has no usable index; `path` is the file or directory in question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum NoIndexReason {
  NotDirectory {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    file_kind: FileKind,
  },
  NotRegular {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    file_kind: FileKind,
  },
  Missing {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
  },
  Unreadable {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    os: String,
  },
  Outside {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    #[serde(serialize_with = "lossy")]
    target: PathBuf,
  },
  NotSqlite {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
  },
  Truncated {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
  },
  Removed {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
  },
  /// The CLI said it cannot use the database.
  CliCannotUse {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
  },
}

/// Why the index cannot be opened read-write (what was seen; [`Access`] is what to do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ReadOnlyReason {
  Denied {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    os: String,
  },
  ReadOnlyMount {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
  },
  /// The CLI said "attempt to write a readonly database".
  CliSaid,
}

/// Why the CLI could not be started (or waited for).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum SpawnReason {
  /// The checks' thread died; `text` is what the runtime said.
  ChecksFailed {
    text: String,
  },
  /// The addon's runtime could not start (`text`: the OS's words, when there were any).
  RuntimeFailed {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
  },
  /// The call's task died inside the addon.
  CallFailed {
    text: String,
  },
  Wait {
    os: String,
  },
  /// EACCES: from exec (not executable) or from entering the workspace.
  Permission {
    #[serde(serialize_with = "lossy")]
    executable: PathBuf,
  },
  Other {
    #[serde(serialize_with = "lossy")]
    executable: PathBuf,
    os: String,
  },
}

/// What was being done when a resource ran out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Step {
  ListWorkspace,
  ReadWorkspace,
  ReadIndexDir,
  ReadIndex,
  ReadIndexHeader,
  ReadLock,
  WaitCli,
  Start {
    #[serde(serialize_with = "lossy")]
    executable: PathBuf,
  },
  StartRuntime,
  /// A thread of the addon could not start (a panic's text is the `os` fact).
  AddonThread,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum ExploreError {
  InvalidRequest {
    reason: RequestReason,
  },
  InvalidOptions {
    reason: OptionsReason,
  },
  Workspace {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    /// This user may not read or enter it (EACCES/EPERM): a permissions remediation.
    denied: bool,
    reason: WorkspaceReason,
  },
  NotFound {
    reason: NotFoundReason,
  },
  NoIndex {
    /// The workspace.
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    kind: NoIndexKind,
    /// Boxed: its paths would make every `Result<_, ExploreError>` large (Windows paths are 32
    /// bytes).
    reason: Box<NoIndexReason>,
  },
  IndexReadOnly {
    #[serde(serialize_with = "lossy")]
    dir: PathBuf,
    cause: Access,
    /// Boxed, as `NoIndex`'s reason.
    reason: Box<ReadOnlyReason>,
  },
  IndexBusy {
    /// The lock file that names the writer.
    #[serde(serialize_with = "lossy")]
    lock: PathBuf,
    /// 0: no lock yet, the database is only being created.
    pid: u32,
    rebuild: bool,
    /// How long this call waited for the writer to finish.
    waited_ms: u64,
  },
  Spawn {
    reason: SpawnReason,
  },
  Resources {
    resource: Resource,
    step: Step,
    /// The OS's (or the panic's) own text.
    os: String,
  },
  Exit {
    #[serde(rename = "exitCode")]
    code: Option<i32>,
    signal: Option<i32>,
    /// The usual name of `signal`, when it has one.
    signal_name: Option<&'static str>,
    /// The end of stderr: clean and bounded, NOT redacted (the words module redacts it).
    stderr_tail: String,
    /// The start of stdout when it is not blank (shown when stderr said nothing), unredacted.
    stdout_excerpt: Option<String>,
  },
  Timeout {
    timeout_ms: u64,
    /// Unredacted, as for `Exit`.
    stderr_tail: String,
    /// The workspace checks, not the CLI, were still running.
    stalled: bool,
    partial_bytes: u64,
    /// What the CLI had printed, within the output caps (for `details.partialText`).
    partial_text: String,
  },
  Cancelled {
    partial_bytes: u64,
    partial_text: String,
  },
}

impl ExploreError {
  /// CODEGRAPH_CANCELLED before anything was printed.
  pub fn cancelled() -> Self {
    Self::Cancelled {
      partial_bytes: 0,
      partial_text: String::new(),
    }
  }

  /// The facts as JSON, for the JS words module (`facts` on the addon's rejection).
  pub fn facts(&self) -> serde_json::Value {
    // Every field serializes (strings, numbers, tags); a failure would be a bug.
    serde_json::to_value(self).unwrap_or_default()
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
}

#[cfg(test)]
mod tests;
