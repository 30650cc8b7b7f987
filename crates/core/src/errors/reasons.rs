//! The tagged facts an error carries: what kind of file, which reason, which step. Each enum
//! serializes as `{ "is": "<tag>", ...fields }`; `lib/words/reasons.js` words every tag
//! (`__test__/contracts/words.test.mjs` fails when one has no words).

use std::path::PathBuf;

use serde::Serialize;

use super::{lossy, lossy_opt};

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
  /// The index directory `dir` is not the workspace's own to write (a link where CodeGraph would
  /// write) or to delete (a mount point, someone else's files): refused before anything runs.
  NotOwn {
    #[serde(serialize_with = "lossy")]
    dir: PathBuf,
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
  /// A symbolic link where CodeGraph would write, resolving inside the workspace (or nowhere).
  Linked {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    #[serde(serialize_with = "lossy")]
    target: PathBuf,
  },
  /// A mount point (another filesystem, or a bind mount) that `uninit` would empty.
  MountPoint {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
  },
  /// An entry CodeGraph does not make, which `uninit` would delete.
  ForeignEntry {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
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
  /// A file the kernel would not execute itself, which the host's spawn would hand to /bin/sh
  /// (the WebAssembly build's; `exec_format`): never started.
  ExecFormat {
    #[serde(serialize_with = "lossy")]
    executable: PathBuf,
    why: String,
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
