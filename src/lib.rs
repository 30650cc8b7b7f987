//! The napi surface of pi-codegraph: one async `explore()`. Everything else lives in modules
//! named for what they do; this file only converts between JS values and those modules.
#![deny(clippy::all)]

mod discovery;
mod environment;
mod errors;
mod explore;
mod full_output;
#[cfg(unix)]
mod host_watch;
mod limits;
mod preflight;
mod runner;
mod sanitize;
mod version;

use std::path::PathBuf;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;

use crate::environment::EnvSnapshot;
use crate::errors::{ExploreError, NoIndexKind};
use crate::explore::{Failure, Outcome, DEFAULT_TIMEOUT};
use crate::full_output::FullOutput;
use crate::runner::Cancel;

/// The contract's limits, exported so that JS glue, bench and docs read them instead of copying.
/// The Explore request's bound in UTF-16 code units (what JS `length` counts).
#[napi]
pub const MAX_REQUEST_CHARS: u32 = limits::MAX_REQUEST_CHARS as u32;
/// What the model may see of stdout, the truncation marker included: bytes ...
#[napi]
pub const MAX_OUTPUT_BYTES: u32 = limits::MAX_BYTES as u32;
/// ... and lines, whichever is hit first.
#[napi]
pub const MAX_OUTPUT_LINES: u32 = limits::MAX_LINES as u32;
/// stdout past the caps is drained, counted and kept in the full-output file up to this many bytes.
#[napi]
pub const DRAIN_LIMIT_BYTES: u32 = limits::DRAIN_LIMIT_BYTES as u32;
/// How much of the end of stderr an error carries.
#[napi]
pub const STDERR_TAIL_BYTES: u32 = limits::STDERR_TAIL_BYTES as u32;
/// The default deadline of one explore.
#[napi]
pub const DEFAULT_TIMEOUT_MS: u32 = explore::DEFAULT_TIMEOUT.as_millis() as u32;

/// Options for direct callers (tests, scripts). The model never reaches these: the Pi tool's
/// only parameter is the request. Declared for the generated TypeScript types; `parse_options`
/// reads them, so a wrong type rejects with a stable code.
#[napi(object, object_to_js = false)]
pub struct ExploreOptions {
  /// Milliseconds before the CLI is stopped with CODEGRAPH_TIMEOUT. Default 30000.
  pub timeout_ms: Option<u32>,
  /// Called with the bounded output so far, at most every 250 ms while the CLI prints.
  #[napi(ts_type = "(progress: ExploreProgress) => void")]
  pub on_progress: Option<ProgressCallback>,
}

type ProgressCallback = ThreadsafeFunction<ExploreProgress, (), ExploreProgress, Status, false>;

#[napi(object)]
pub struct ExploreProgress {
  /// The output kept so far, within the same caps as the final text.
  pub text: String,
  pub seen_bytes: f64,
  pub seen_lines: f64,
  pub elapsed_ms: u32,
}

#[napi(object)]
pub struct ExploreDetails {
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
  /// The workspace's index directory (`<cwd>/.codegraph`) and where it really is, symlinks
  /// resolved.
  pub index_path: String,
  pub index_resolved: String,
  /// The CLI's version, null when not known yet. Never used to refuse.
  pub cli_version: Option<String>,
  /// Where the version came from: "package.json" (the installed package's metadata) or
  /// "--version" (a probe run beside an earlier call).
  pub cli_version_source: Option<String>,
  /// 0, or -1 when pi-codegraph stopped a CLI that printed more than 16 MiB (the text is kept).
  pub exit_code: i32,
  pub duration_ms: u32,
  pub truncated: bool,
  /// "bytes" or "lines" when truncated.
  pub truncated_by: Option<String>,
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
}

#[napi(object)]
pub struct ExploreResult {
  /// The bounded CodeGraph answer, with a truncation marker when it was cut.
  pub text: String,
  pub details: ExploreDetails,
}

/// Runs `codegraph explore -- <request>` in `cwd`, which must hold its own CodeGraph index.
/// Never throws: every failure rejects with an Error whose `code` is a stable CODEGRAPH_* code,
/// with a `remediation` line and bounded `details`.
#[napi(
  ts_args_type = "request: string, cwd: string, signal?: AbortSignal | null, options?: ExploreOptions | null",
  ts_return_type = "Promise<ExploreResult>"
)]
pub fn explore<'env>(
  env: &'env Env,
  request: Unknown<'env>,
  cwd: Unknown<'env>,
  signal: Option<Unknown<'env>>,
  options: Option<Unknown<'env>>,
) -> Result<PromiseRaw<'env, ExploreResult>> {
  let cancel = Cancel::default();
  // The first problem with the arguments; every later check is skipped, and the promise rejects.
  let args = (|| {
    let request = string_arg(&request).ok_or_else(|| ExploreError::InvalidRequest {
      reason: "it is not a string".into(),
    })?;
    let cwd = string_arg(&cwd).ok_or_else(|| ExploreError::Workspace {
      path: Default::default(),
      reason: "the workspace path is not a string".into(),
    })?;
    let (timeout, on_progress) = parse_options(env, options)?;
    let link = link_signal(env, signal, &cancel)?;
    Ok((request, cwd, timeout, on_progress, link))
  })();
  // A getter or Proxy trap that threw left its exception pending; the rejection replaces it.
  clear_pending_exception(env);
  let (args, link) = match args {
    Ok((request, cwd, timeout, on_progress, link)) => {
      (Ok((request, cwd, timeout, on_progress)), link)
    }
    Err(e) => (Err(e), None),
  };
  let timeout = args.as_ref().map_or(DEFAULT_TIMEOUT, |a| a.2);
  let snapshot = js_environment(env);

  let work = async move {
    Ok(match args {
      Err(e) => Err(Box::new((e, Failure::default()))),
      Ok((request, cwd, timeout, on_progress)) => {
        let report = on_progress.map(|tsfn| {
          move |p: runner::Progress| {
            let progress = ExploreProgress {
              text: p.text,
              seen_bytes: p.seen_bytes as f64,
              seen_lines: p.seen_lines as f64,
              elapsed_ms: p.elapsed.as_millis().min(u128::from(u32::MAX)) as u32,
            };
            // NonBlocking: a slow JS listener must never stall the pipe reader. With a return
            // callback, napi-rs catches what the listener throws instead of raising it as an
            // uncaught exception: a failing listener never takes the host down.
            tsfn.call_with_return_value(
              progress,
              ThreadsafeFunctionCallMode::NonBlocking,
              |_, _| Ok(()),
            );
          }
        });
        let report = report.as_ref().map(|f| f as &runner::ProgressFn);
        explore::explore(request, cwd, snapshot, timeout, cancel, report).await
      }
    })
  };
  env.spawn_future_with_callback(work, move |env, outcome| {
    if let Some(link) = link {
      link.detach(env);
    }
    match outcome {
      Ok(outcome) => Ok(to_result(outcome)),
      Err(failed) => Err(to_js_error(env, &failed.0, &failed.1, timeout)),
    }
  })
}

/// Links the caller's signal to `cancel`. An already aborted signal rejects at once.
fn link_signal(
  env: &Env,
  signal: Option<Unknown>,
  cancel: &Cancel,
) -> std::result::Result<Option<AbortLink>, ExploreError> {
  let not_a_signal = || invalid_options("the signal is not an AbortSignal");
  let Some(signal) = signal else {
    return Ok(None);
  };
  match signal.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => Ok(None),
    Ok(ValueType::Object) => {
      let signal = Object::from_unknown(signal).map_err(|_| not_a_signal())?;
      let aborted = signal
        .get_named_property::<Unknown>("aborted")
        .and_then(|a| a.coerce_to_bool())
        .map_err(|_| invalid_options("signal.aborted cannot be read"))?;
      if aborted {
        return Err(ExploreError::Cancelled {
          partial_bytes: 0,
          partial_text: String::new(),
        });
      }
      AbortLink::attach(env, &signal, cancel.clone())
        .map(Some)
        .map_err(|_| not_a_signal())
    }
    _ => Err(not_a_signal()),
  }
}

/// Takes a pending JS exception (thrown by a getter, a Proxy trap or a listener method) out of
/// the environment: the call reports it as a rejection with a code instead.
fn clear_pending_exception(env: &Env) {
  let mut pending = false;
  // SAFETY: `env` is the live environment of the current JS call on this thread; both calls only
  // read or clear its exception slot and write to the local out-pointers.
  unsafe {
    napi::sys::napi_is_exception_pending(env.raw(), &mut pending);
    if pending {
      let mut exception = std::ptr::null_mut();
      napi::sys::napi_get_and_clear_last_exception(env.raw(), &mut exception);
    }
  }
}

#[napi(object)]
pub struct Diagnosis {
  pub cwd: String,
  /// True when an explore can run here: CodeGraph found and the workspace has its own index.
  pub ready: bool,
  pub executable: Option<String>,
  /// What runs instead (CodeGraph's platform bundle launcher, when `executable` is its npm shim).
  pub launcher: Option<String>,
  /// The executable lives inside the workspace (by the user's choice).
  pub executable_in_workspace: bool,
  pub cli_version: Option<String>,
  /// "package.json" or "--version".
  pub cli_version_source: Option<String>,
  pub index_path: Option<String>,
  /// The index directory with symlinks resolved.
  pub index_resolved: Option<String>,
  /// When the workspace has no index: the nearest ancestor directory that has its own.
  pub ancestor_index: Option<String>,
  /// Each check's own result: why no executable, why no index (null when that check passed or
  /// could not run).
  pub executable_problem: Option<String>,
  pub index_problem: Option<String>,
  /// What stops an explore here, as the same code, message and remediation `explore` would give.
  pub problem_code: Option<String>,
  pub problem: Option<String>,
  pub remediation: Option<String>,
}

/// Reports, without running an explore and without writing anything, whether `cwd` is ready:
/// which `codegraph` would run (and its version) and whether the workspace has its own index.
#[napi(ts_args_type = "cwd: string", ts_return_type = "Promise<Diagnosis>")]
pub fn diagnose<'env>(env: &'env Env, cwd: Unknown<'env>) -> Result<PromiseRaw<'env, Diagnosis>> {
  let snapshot = js_environment(env);
  // A non-string is reported like any unusable workspace (an empty path).
  let cwd = string_arg(&cwd).unwrap_or_default();
  let work = async move { Ok(explore::diagnose(cwd.clone(), snapshot).await.into_js(cwd)) };
  env.spawn_future(work)
}

impl explore::Diagnosis {
  fn into_js(self, cwd: String) -> Diagnosis {
    let lossy = |p: PathBuf| p.to_string_lossy().into_owned();
    Diagnosis {
      cwd,
      ready: self.problem.is_none(),
      executable: self.executable.map(lossy),
      launcher: self.launcher.map(lossy),
      executable_in_workspace: self.executable_in_workspace,
      cli_version: self.cli_version.as_ref().map(|v| v.text.clone()),
      cli_version_source: self.cli_version.map(|v| v.source.to_owned()),
      index_path: self.index.as_ref().map(|i| lossy(i.dir.clone())),
      index_resolved: self.index.map(|i| lossy(i.resolved)),
      ancestor_index: self.ancestor_index.map(lossy),
      executable_problem: self.executable_problem.map(|e| e.to_string()),
      index_problem: self.index_problem.map(|e| e.to_string()),
      problem_code: self.problem.as_ref().map(|e| e.code().to_owned()),
      problem: self.problem.as_ref().map(|e| e.to_string()),
      remediation: self.problem.as_ref().map(|e| e.remediation()),
    }
  }
}

/// Deletes full-output temp files of truncated answers: the listed paths (one session's), or
/// with no list every file this process keeps. The Pi extension calls it on `session_shutdown`
/// with its own session's paths. Returns how many were deleted.
#[napi(ts_args_type = "paths?: string[] | null")]
pub fn release_full_outputs(paths: Option<Vec<String>>) -> u32 {
  match paths {
    Some(paths) => {
      let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
      full_output::release(&paths) as u32
    }
    None => full_output::release_all() as u32,
  }
}

/// The environment as JS sees it, read on the JS thread. Under Node `process.env` writes through
/// to the C `environ` (on this same thread), so `environ` is read directly: cheap, and no race
/// with a `setenv` from a worker thread. Under Bun assignments to `process.env` never reach
/// `environ`, so there the object itself is read, key by key.
fn js_environment(env: &Env) -> EnvSnapshot {
  static ENV_IS_JS_ONLY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
  let process = || -> Result<Object> { env.get_global()?.get_named_property("process") };
  let js_only = *ENV_IS_JS_ONLY.get_or_init(|| {
    let bun = || -> Result<bool> {
      let versions: Object = process()?.get_named_property("versions")?;
      Ok(versions.get_named_property::<Unknown>("bun")?.get_type()? == ValueType::String)
    };
    bun().unwrap_or(false)
  });
  if !js_only {
    return EnvSnapshot::capture();
  }
  let read = || -> Result<EnvSnapshot> {
    let vars: Object = process()?.get_named_property("env")?;
    let keys = vars.get_property_names()?;
    let mut pairs = Vec::new();
    for i in 0..keys.get_array_length()? {
      let key: String = keys.get_element(i)?;
      if let Some(value) = string_arg(&vars.get_named_property::<Unknown>(&key)?) {
        pairs.push((key.into(), value.into()));
      }
    }
    Ok(EnvSnapshot::from_vars(pairs))
  };
  read().unwrap_or_else(|_| EnvSnapshot::capture())
}

fn invalid_options(reason: &str) -> ExploreError {
  ExploreError::InvalidOptions {
    reason: reason.to_owned(),
  }
}

/// Options as a caller may really pass them: checked here so that a wrong type rejects with
/// CODEGRAPH_INVALID_OPTIONS instead of napi's untyped conversion error (or a wrapped u32).
fn parse_options(
  env: &Env,
  options: Option<Unknown>,
) -> std::result::Result<(Duration, Option<ProgressCallback>), ExploreError> {
  let defaults = (DEFAULT_TIMEOUT, None);
  let Some(options) = options else {
    return Ok(defaults);
  };
  let options = match options.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => return Ok(defaults),
    Ok(ValueType::Object) => {
      Object::from_unknown(options).map_err(|_| invalid_options("options is not an object"))?
    }
    _ => return Err(invalid_options("options is not an object")),
  };
  let field = |name: &str| {
    options
      .get_named_property::<Unknown>(name)
      .map_err(|_| invalid_options(&format!("options.{name} cannot be read")))
  };
  let timeout_value = field("timeoutMs")?;
  let timeout = match timeout_value.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => DEFAULT_TIMEOUT,
    kind => {
      let ms = match kind {
        Ok(ValueType::Number) => timeout_value
          .coerce_to_number()
          .and_then(|n| n.get_double())
          .ok(),
        _ => None,
      }
      .filter(|ms| ms.is_finite() && *ms >= 1.0 && *ms <= f64::from(i32::MAX))
      .ok_or_else(|| {
        invalid_options("options.timeoutMs must be a number of milliseconds from 1 to 2147483647")
      })?;
      Duration::from_millis(ms as u64)
    }
  };
  let progress_value = field("onProgress")?;
  let on_progress = match progress_value.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => None,
    Ok(ValueType::Function) => Some(
      unsafe { ProgressCallback::from_napi_value(env.raw(), progress_value.raw()) }
        .map_err(|_| invalid_options("options.onProgress cannot be used as a callback"))?,
    ),
    _ => return Err(invalid_options("options.onProgress must be a function")),
  };
  Ok((timeout, on_progress))
}

fn string_arg(value: &Unknown) -> Option<String> {
  match value.get_type() {
    Ok(ValueType::String) => value
      .coerce_to_string()
      .ok()?
      .into_utf8()
      .ok()?
      .into_owned()
      .ok(),
    _ => None,
  }
}

/// An `abort` listener on the caller's signal, removed again when the call settles. Listening
/// (instead of napi-rs's `AbortSignal`, which assigns `signal.onabort`) leaves the caller's own
/// handlers alone, and the same signal can serve many calls.
struct AbortLink {
  signal: ObjectRef<false>,
  listener: FunctionRef<(), ()>,
}

type ListenerFn<'a> = Function<'a, FnArgs<(&'static str, Function<'a, (), ()>)>, Unknown<'a>>;

impl AbortLink {
  fn attach(env: &Env, signal: &Object, cancel: Cancel) -> Result<Self> {
    let listener = env.create_function_from_closure::<(), (), _>("codegraphAbort", move |_| {
      cancel.cancel();
      Ok(())
    })?;
    let add: ListenerFn = signal.get_named_property("addEventListener")?;
    add.apply(signal, FnArgs::from(("abort", listener)))?;
    Ok(Self {
      signal: signal.create_ref()?,
      listener: listener.create_ref()?,
    })
  }

  fn detach(self, env: &Env) {
    let removed = (|| -> Result<()> {
      let signal = self.signal.get_value(env)?;
      let remove: ListenerFn = signal.get_named_property("removeEventListener")?;
      remove.apply(
        signal,
        FnArgs::from(("abort", self.listener.borrow_back(env)?)),
      )?;
      Ok(())
    })();
    // A `removeEventListener` that throws must not keep the promise from settling.
    if removed.is_err() {
      clear_pending_exception(env);
    }
    let _ = self.signal.unref(env);
  }
}

fn to_result(o: Outcome) -> ExploreResult {
  let lossy = |p: &std::path::Path| p.to_string_lossy().into_owned();
  let (full_output_path, full_output_bytes, full_output_missing) = match &o.stdout.full_output {
    Some(FullOutput::Kept { path, bytes, .. }) => (Some(lossy(path)), Some(*bytes as f64), None),
    Some(FullOutput::NotKept { reason }) => (None, None, Some(reason.clone())),
    None => (None, None, None),
  };
  ExploreResult {
    text: o.text,
    details: ExploreDetails {
      request: o.request,
      cwd: lossy(&o.cwd),
      executable: lossy(o.launch.runs()),
      discovered_executable: lossy(&o.launch.executable),
      executable_in_workspace: o.launch.in_workspace,
      index_path: lossy(&o.index.dir),
      index_resolved: lossy(&o.index.resolved),
      cli_version: o.cli_version.as_ref().map(|v| v.text.clone()),
      cli_version_source: o.cli_version.map(|v| v.source.to_owned()),
      exit_code: o.exit_code,
      duration_ms: o.duration.as_millis().min(u128::from(u32::MAX)) as u32,
      truncated: o.stdout.truncated,
      truncated_by: o.stdout.truncated_by.map(str::to_owned),
      total_bytes: o.stdout.total_bytes as f64,
      total_lines: o.stdout.total_lines as f64,
      totals_exact: o.stdout.totals_exact,
      kept_bytes: o.stdout.kept_bytes as u32,
      kept_lines: o.stdout.kept_lines as u32,
      full_output_path,
      full_output_bytes,
      full_output_missing,
    },
  }
}

/// A real `Error` with `code`, `remediation` and `details`; its message is self-contained because
/// Pi forwards only `message` to the model.
fn to_js_error(env: &Env, err: &ExploreError, failure: &Failure, timeout: Duration) -> Error {
  let build = || -> Result<Error> {
    let mut obj = env.create_error(Error::new(Status::GenericFailure, err.message()))?;
    obj.set_named_property("code", err.code())?;
    obj.set_named_property("remediation", err.remediation())?;
    let mut details = Object::new(env)?;
    if let Some(exe) = &failure.executable {
      details.set_named_property("executable", exe.to_string_lossy().as_ref())?;
    }
    if let Some(inside) = failure.executable_in_workspace {
      details.set_named_property("executableInWorkspace", inside)?;
    }
    if let Some(index) = &failure.index {
      details.set_named_property("indexPath", index.dir.to_string_lossy().as_ref())?;
      details.set_named_property("indexResolved", index.resolved.to_string_lossy().as_ref())?;
    }
    if let Some(v) = &failure.cli_version {
      details.set_named_property("cliVersion", v.text.as_str())?;
      details.set_named_property("cliVersionSource", v.source)?;
    }
    if let Some(d) = failure.duration {
      details.set_named_property("durationMs", d.as_millis() as f64)?;
    }
    match err {
      ExploreError::Exit {
        code,
        signal,
        stderr_tail,
        ..
      } => {
        details.set_named_property("exitCode", *code)?;
        details.set_named_property("signal", *signal)?;
        details.set_named_property("stderrTail", stderr_tail.as_str())?;
      }
      ExploreError::Timeout {
        stderr_tail,
        partial_bytes,
        partial_text,
        ..
      } => {
        details.set_named_property("timeoutMs", timeout.as_millis() as f64)?;
        details.set_named_property("stderrTail", stderr_tail.as_str())?;
        details.set_named_property("partialBytes", *partial_bytes as f64)?;
        details.set_named_property("partialText", partial_text.as_str())?;
      }
      ExploreError::Cancelled {
        partial_bytes,
        partial_text,
      } => {
        details.set_named_property("partialBytes", *partial_bytes as f64)?;
        details.set_named_property("partialText", partial_text.as_str())?;
      }
      ExploreError::NoIndex {
        kind: NoIndexKind::Missing {
          ancestor: Some(ancestor),
        },
        ..
      } => {
        details.set_named_property("ancestorIndex", ancestor.to_string_lossy().as_ref())?;
      }
      _ => {}
    }
    obj.set_named_property("details", details)?;
    Ok(Error::from(obj.to_unknown()))
  };
  build().unwrap_or_else(|e| e)
}
