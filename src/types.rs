//! The typed JS surface: the objects and string enums `binding.d.ts` declares. Only shapes here;
//! `convert` fills them from the core's values.

use napi::bindgen_prelude::{Either, Null};
use napi::threadsafe_function::ThreadsafeFunction;
use napi::Status;
use napi_derive::napi;

mod diagnosis;
pub use diagnosis::AddonDiagnosis;

/// A path as JS gets it (lossy where it is not UTF-8), for every shape of both builds.
pub(crate) fn lossy(p: &std::path::Path) -> String {
  p.to_string_lossy().into_owned()
}

/// The stable codes every call's rejection (and a diagnosis's `problemCode`) carries.
#[napi(string_enum)]
#[derive(Debug, PartialEq, Eq)]
pub enum ErrorCode {
  #[napi(value = "CODEGRAPH_INVALID_REQUEST")]
  InvalidRequest,
  #[napi(value = "CODEGRAPH_INVALID_OPTIONS")]
  InvalidOptions,
  #[napi(value = "CODEGRAPH_WORKSPACE")]
  Workspace,
  #[napi(value = "CODEGRAPH_NOT_FOUND")]
  NotFound,
  #[napi(value = "CODEGRAPH_NO_INDEX")]
  NoIndex,
  #[napi(value = "CODEGRAPH_INDEX_READONLY")]
  IndexReadOnly,
  #[napi(value = "CODEGRAPH_INDEX_BUSY")]
  IndexBusy,
  #[napi(value = "CODEGRAPH_INDEX_INTERRUPTED")]
  IndexInterrupted,
  #[napi(value = "CODEGRAPH_SPAWN")]
  Spawn,
  #[napi(value = "CODEGRAPH_RESOURCES")]
  Resources,
  #[napi(value = "CODEGRAPH_EXIT")]
  Exit,
  #[napi(value = "CODEGRAPH_TIMEOUT")]
  Timeout,
  #[napi(value = "CODEGRAPH_CANCELLED")]
  Cancelled,
  #[napi(value = "CODEGRAPH_GIT")]
  Git,
  /// Never produced by the addon: the JS glue raises it when the addon cannot load. Listed so
  /// that the TypeScript union of codes has one source.
  #[napi(value = "CODEGRAPH_ADDON")]
  Addon,
  /// Never produced by the addon: the Pi extension refuses every call with it in a project Pi
  /// does not trust (`ctx.isProjectTrusted()` false), before any process or file is touched.
  #[napi(value = "CODEGRAPH_UNTRUSTED")]
  Untrusted,
}

/// Which cap cut a truncated answer.
#[napi(string_enum)]
#[derive(Debug, PartialEq, Eq)]
pub enum TruncatedBy {
  #[napi(value = "bytes")]
  Bytes,
  #[napi(value = "lines")]
  Lines,
}

/// The options of one run (`runCommand`; the public calls' `CallOptions` add to them). The model
/// never reaches these: the Pi tools' parameters are the request and arguments. Declared for the
/// generated TypeScript types; `args` reads them by hand, so a wrong type rejects with a stable
/// code.
#[napi(object, object_to_js = false)]
pub struct RunOptions {
  /// Milliseconds before the CLI is stopped with CODEGRAPH_TIMEOUT. Default 30000.
  pub timeout_ms: Option<u32>,
  /// Called with the bounded output so far (and the end of all of it), at most every 250 ms
  /// while the CLI prints; output that arrived within the 250 ms is reported once they have
  /// passed. None is made once the CLI run has ended.
  #[napi(ts_type = "(progress: Progress) => void")]
  pub on_progress: Option<ProgressCallback>,
}

/// A CodeGraph command as data, as `lib/contract/commands.js` builds it: `codegraph <subcommand>
/// <options> [-- <positional>]`. Declared for the generated TypeScript types; `args::command`
/// reads it by hand, so a wrong field rejects with CODEGRAPH_INVALID_OPTIONS (the positional
/// text with CODEGRAPH_INVALID_REQUEST) and nothing starts.
#[napi(object, object_to_js = false)]
pub struct CodegraphCommand {
  /// Lowercase letters and dashes (`explore`, `status`).
  pub subcommand: String,
  /// Each `--name` or `--name=value` (a name of lowercase letters, digits and dashes).
  pub options: Vec<String>,
  /// The user's text, passed after `--`; a request's rules apply. Absent: no `--` and no text.
  pub positional: Option<String>,
  /// What the model may see of stdout, the marker included (4096 to `MAX_OUTPUT_BYTES`) ...
  pub max_bytes: u32,
  /// ... and lines (10 to `MAX_OUTPUT_LINES`).
  pub max_lines: u32,
  /// The command's deadline unless `options.timeoutMs` says otherwise; an index-writing
  /// command's is at most `MAX_WRITE_TIMEOUT_MS`.
  pub timeout_ms: u32,
  /// Writes the index: refused at once with CODEGRAPH_INDEX_BUSY while another writer is
  /// active (a reading command waits for it).
  pub writes_index: bool,
  /// Needs the workspace's own index (CODEGRAPH_NO_INDEX without it).
  pub needs_index: bool,
  /// May read an index whose last write never finished (default false: a command that reads
  /// the index is refused with CODEGRAPH_INDEX_INTERRUPTED; `status` reports that state itself).
  pub allow_interrupted: Option<bool>,
  /// `"stdout"`: partial stdout goes to `onProgress` as it arrives; `"none"`: no progress.
  #[napi(ts_type = "\"stdout\" | \"none\"")]
  pub progress: String,
  /// Pi's workspace (absolute), when `cwd` is another root the command runs in on its behalf:
  /// code inside it is kept from the child as code inside `cwd` is. Absent: `cwd` alone.
  pub workspace: Option<String>,
  /// Answer through the workspace's long-lived CodeGraph (`codegraph serve --mcp`, started on
  /// first use, stopped by `stopWarm()`) when the command is one it answers as the CLI would
  /// (explore, node); the glue sets it while the user has auto sync on. Default false: a process.
  pub warm: Option<bool>,
}

pub type ProgressCallback = ThreadsafeFunction<Progress, (), Progress, Status, false>;

#[napi(object)]
pub struct Progress {
  /// The output kept so far, within the same caps as the final text.
  pub text: String,
  /// The end of all the output seen so far, whatever the caps kept (the latest line of a long
  /// run's progress): its last 1024 bytes at most, cleaned as `text` is, never a cut character;
  /// when the output is longer, from its first whole line where one starts within them. Empty
  /// before any output.
  pub tail: String,
  /// Cleaned bytes and lines seen so far (counted as the final totals are).
  pub seen_bytes: f64,
  pub seen_lines: f64,
  pub elapsed_ms: u32,
}

/// Milliseconds as a u32 napi field, saturating (a u32 holds 49 days).
pub fn millis_u32(d: std::time::Duration) -> u32 {
  u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}

/// Whole milliseconds as a JS number (exact below 2^53 ms).
pub fn millis_f64(d: std::time::Duration) -> f64 {
  d.as_millis() as f64
}

impl Progress {
  /// A progress report of the core's child (`child::Progress`), for JS.
  pub fn of(p: pi_codegraph_core::child::Progress) -> Self {
    Self {
      text: p.text,
      tail: p.tail,
      seen_bytes: p.seen_bytes as f64,
      seen_lines: p.seen_lines as f64,
      elapsed_ms: millis_u32(p.elapsed),
    }
  }
}

/// One entry of the user's environment that the child did not get, because through it the
/// workspace could choose the code that runs (a PATH directory inside the workspace, say).
#[napi(object, object_from_js = false)]
#[derive(Clone)]
pub struct EnvDropped {
  /// The variable (`PATH`, `NODE_OPTIONS`, `LD_PRELOAD`, ...).
  pub variable: String,
  /// The entry that was left out, printable and bounded (the whole value for NODE_OPTIONS: the
  /// option that decided it).
  pub entry: String,
  /// Why: "inside the workspace", "relative: …", "empty: …", "loads …". (The addon hands over
  /// the raw entry and a `DropReason` tag; lib/words/environment.js shows and words them.)
  pub reason: String,
}

/// The facts beside an answer's text (`Answer.details`, to which the glue adds its own).
#[napi(object, object_from_js = false)]
pub struct AnswerDetails {
  pub request: String,
  pub cwd: String,
  /// The `codegraph` executable that ran: CodeGraph's platform bundle launcher when discovery
  /// found its npm shim (the shim would only exec it), else what discovery found.
  pub executable: String,
  /// What discovery found (on PATH or in `PI_CODEGRAPH_BIN`).
  pub discovered_executable: String,
  /// True when that executable lives inside the workspace (only ever by the user's choice:
  /// `PI_CODEGRAPH_BIN`, or `PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1`).
  pub executable_in_workspace: bool,
  /// What of the user's environment the CLI did not get (empty when nothing; everything is
  /// passed with `PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1`).
  pub env_dropped: Vec<EnvDropped>,
  /// The directory the CLI opened as the workspace's index (`<cwd>/.codegraph`, by CodeGraph's own
  /// rule) and where it really is, symlinks resolved.
  pub index_dir: String,
  pub index_resolved: String,
  /// The index database's size in bytes (absent for a command that needs no index).
  pub index_bytes: Option<f64>,
  /// The CLI's version, absent when not known yet. Never used to refuse.
  pub cli_version: Option<String>,
  /// Where the version came from: "package.json" (the installed package's metadata) or
  /// "--version" (a probe run beside an earlier call).
  pub cli_version_source: Option<String>,
  /// 0, or -1 when pi-codegraph stopped a CLI that printed more than 16 MiB (the text is kept).
  pub exit_code: i32,
  /// The whole runner call in milliseconds: from entering `runCommand` (argument checks, the
  /// workspace checks, the wait for a writer, the run) to the answer. At least
  /// `lockWaitMs + runMs`.
  pub duration_ms: u32,
  /// Milliseconds this call waited for CodeGraph to finish writing the index
  /// (`codegraph.lock`, `rebuild.pid`, a database being created) before the run; 0 when no
  /// writer was active.
  pub lock_wait_ms: u32,
  /// Milliseconds of the CLI run itself: from its start to its exit.
  pub run_ms: u32,
  /// Present (true) when the workspace's long-lived CodeGraph answered (auto sync on), not a
  /// process of this call's own; `runMs` is then its answer's time.
  pub warm: Option<bool>,
  pub truncated: bool,
  /// Which cap cut the text, when truncated.
  pub truncated_by: Option<TruncatedBy>,
  /// stdout bytes and lines the CLI printed (lower bounds when `totalsExact` is false).
  pub total_bytes: f64,
  pub total_lines: f64,
  pub totals_exact: bool,
  /// stdout bytes and lines kept in `text` (before the truncation marker).
  pub kept_bytes: u32,
  pub kept_lines: u32,
  /// When truncated: a private temp file with the full stdout (up to 16 MiB, cleaned like the
  /// text), kept until `releaseFullOutputs([path])` (the Pi tool: at session shutdown) or exit.
  pub full_output_path: Option<String>,
  pub full_output_bytes: Option<f64>,
  /// When truncated and no file could be kept: why.
  pub full_output_missing: Option<String>,
  /// Only when truncated: the end of the whole output (as a progress report's `tail`: its last
  /// 1024 bytes at most, cleaned, from its first whole line), e.g. a long write's final summary
  /// that `text` does not reach. Absent when not truncated: `text` already ends with it.
  pub output_tail: Option<String>,
}

/// What the addon's `runCommand` resolves with: the answer as stored and the facts to finish it.
/// The public calls resolve with an `Answer` (index.d.ts), which lib/api/answer.js makes of it.
#[napi(object, object_from_js = false)]
pub struct RunResult {
  /// The CodeGraph answer as stored: within the caps when not truncated; when truncated, the
  /// glue (lib/api/answer.js) fits it and the worded truncation marker to `answer`'s caps.
  pub text: String,
  pub details: AnswerDetails,
  /// Facts the glue needs to finish the answer.
  pub answer: AnswerFacts,
}

/// What lib/api/answer.js and lib/words/ need to finish an answer: the empty answer's subcommand,
/// the caps the marker counts against, whether the full-output file holds everything.
#[napi(object, object_from_js = false)]
pub struct AnswerFacts {
  pub subcommand: String,
  /// CodeGraph printed nothing but white space.
  pub printed_nothing: bool,
  pub max_bytes: u32,
  pub max_lines: u32,
  /// When a full-output file was kept: false when the CLI printed more than it holds.
  pub full_output_complete: Option<bool>,
  /// When truncated and no file could be kept: why (`NotKeptReason`, a tag and its facts).
  pub full_output_missing: Option<serde_json::Value>,
}

/// The `details` of a rejection: bounded diagnostics. A field is present only when the failure
/// has it (absent, not null); `exitCode` and `signal` are null on CODEGRAPH_EXIT when the CLI
/// ended by the other. The addon fills the run's context; the words module (lib/words/) adds
/// what the failure's facts say (the exit, the redacted stderr tail, the partial answer ...).
#[napi(object, object_from_js = false)]
#[derive(Default)]
pub struct ErrorDetails {
  /// What ran (the platform bundle's launcher when the npm shim was skipped).
  pub executable: Option<String>,
  pub executable_in_workspace: Option<bool>,
  /// What of the user's environment the CLI did not get (once the checks passed).
  pub env_dropped: Option<Vec<EnvDropped>>,
  /// The index directory the CLI opens and where it really is (once the checks found it).
  pub index_dir: Option<String>,
  pub index_resolved: Option<String>,
  pub cli_version: Option<String>,
  pub cli_version_source: Option<String>,
  /// Always: the whole runner call in milliseconds, from entering `runCommand` to the failure.
  pub duration_ms: Option<f64>,
  /// Once the checks found the index: milliseconds waited for a CodeGraph writer before the
  /// run (0 when none was active; on CODEGRAPH_INDEX_BUSY the whole wait).
  pub lock_wait_ms: Option<f64>,
  /// Once the CLI was started: milliseconds of its run until it failed (was stopped, exited).
  pub run_ms: Option<f64>,
  /// CODEGRAPH_EXIT: the exit code, or null when a signal ended the CLI.
  pub exit_code: Option<Either<i32, Null>>,
  /// CODEGRAPH_EXIT: the signal that ended the CLI, or null when it exited.
  pub signal: Option<Either<i32, Null>>,
  /// CODEGRAPH_EXIT and CODEGRAPH_TIMEOUT: the end of stderr, cleaned and redacted.
  pub stderr_tail: Option<String>,
  /// CODEGRAPH_TIMEOUT: the deadline that was hit.
  pub timeout_ms: Option<f64>,
  /// CODEGRAPH_TIMEOUT and CODEGRAPH_CANCELLED: what the CLI had printed, within the caps.
  pub partial_bytes: Option<f64>,
  pub partial_text: Option<String>,
  /// CODEGRAPH_NO_INDEX: the nearest ancestor directory with its own index.
  pub ancestor_index: Option<String>,
  /// CODEGRAPH_TIMEOUT: the CodeGraph writer active on the index as the call timed out (read
  /// again at that moment, by the rules the wait before the run uses), or null: none, or the
  /// checks never reached the index.
  pub writer_seen: Option<Either<WriterSeen, Null>>,
}

/// A CodeGraph process writing the index, as CODEGRAPH_TIMEOUT's `details.writerSeen` names it.
#[napi(object, object_from_js = false)]
pub struct WriterSeen {
  /// Its pid; 0 when no lock names it yet (`codegraph init` is creating the database).
  pub pid: u32,
  /// The file that names it: `codegraph.lock`, `rebuild.pid`, or the database being created.
  pub lock: String,
  /// True for `rebuild.pid` (a `codegraph index` rebuild).
  pub rebuild: bool,
}

/// A failure as the addon hands it to JS: the stable code and the facts of the case (paths raw,
/// a tag per kind of reason). lib/words/ builds the message and remediation from them.
#[napi(object, object_from_js = false)]
pub struct Problem {
  pub code: ErrorCode,
  #[napi(ts_type = "Record<string, unknown>")]
  pub facts: serde_json::Value,
}

/// What one git run printed (`runGit`): stdout within the description's caps.
#[napi(object)]
pub struct GitResult {
  pub text: String,
  /// The caps cut the text (a diff longer than 4 MiB, say).
  pub truncated: bool,
  pub duration_ms: f64,
}
