//! The core's results as JS values: an outcome as `RunResult` (lib/api/answer.js finishes it), and
//! a failure as a real JS `Error` with `code`, `facts` and `details` (a diagnosis fills its own
//! shape, src/types/diagnosis.rs, in both builds). No words: lib/words/ builds messages and
//! remediations from the codes and facts.

use napi::bindgen_prelude::{JsObjectValue, JsValue};
use napi::{Env, Error, Result, Status};
use pi_codegraph_core::caps::Cap;
use pi_codegraph_core::command_run::{Failure, Outcome};
use pi_codegraph_core::errors::CodegraphError;
use pi_codegraph_core::full_output::FullOutput;

use crate::types::{
  lossy, millis_f64, millis_u32, AnswerDetails, AnswerFacts, EnvDropped, ErrorCode, ErrorDetails,
  GitResult, RunResult, TruncatedBy,
};

impl From<Cap> for TruncatedBy {
  fn from(cap: Cap) -> Self {
    match cap {
      Cap::Bytes => Self::Bytes,
      Cap::Lines => Self::Lines,
    }
  }
}

pub fn result(o: Outcome) -> RunResult {
  let (full_output_path, full_output_bytes, full_output_missing, complete) =
    match &o.stdout.full_output {
      Some(FullOutput::Kept {
        path,
        bytes,
        complete,
      }) => (
        Some(lossy(path)),
        Some(*bytes as f64),
        None,
        Some(*complete),
      ),
      Some(FullOutput::NotKept { reason }) => (None, None, serde_json::to_value(reason).ok(), None),
      None => (None, None, None, None),
    };
  RunResult {
    text: o.stdout.text,
    answer: AnswerFacts {
      subcommand: o.subcommand,
      printed_nothing: o.printed_nothing,
      max_bytes: u32::try_from(o.caps.bytes).unwrap_or(u32::MAX),
      max_lines: u32::try_from(o.caps.lines).unwrap_or(u32::MAX),
      full_output_complete: complete,
      full_output_missing,
    },
    details: AnswerDetails {
      request: o.request,
      cwd: lossy(&o.cwd),
      executable: lossy(o.launch.runs()),
      discovered_executable: lossy(&o.launch.executable),
      executable_in_workspace: o.launch.in_workspace,
      env_dropped: EnvDropped::list(&o.env_dropped),
      index_dir: lossy(&o.index.dir),
      index_resolved: lossy(&o.index.resolved),
      index_bytes: o.index.bytes.map(|b| b as f64),
      cli_version: o.cli_version.as_ref().map(|v| v.text.clone()),
      cli_version_source: o.cli_version.map(|v| v.source.to_owned()),
      exit_code: o.exit_code,
      duration_ms: millis_u32(o.times.duration),
      lock_wait_ms: millis_u32(o.times.lock_wait),
      run_ms: millis_u32(o.times.run),
      warm: o.warm.then_some(true),
      truncated: o.stdout.truncated,
      truncated_by: o.stdout.truncated_by.map(TruncatedBy::from),
      total_bytes: o.stdout.total_bytes as f64,
      total_lines: o.stdout.total_lines as f64,
      totals_exact: o.stdout.totals_exact,
      // Both are bounded by the caps (50 KB, 2000 lines).
      kept_bytes: u32::try_from(o.stdout.kept_bytes).unwrap_or(u32::MAX),
      kept_lines: u32::try_from(o.stdout.kept_lines).unwrap_or(u32::MAX),
      full_output_path,
      full_output_bytes,
      // Worded by lib/api/answer.js from `answer.fullOutputMissing`.
      full_output_missing: None,
      output_tail: o.stdout.output_tail,
    },
  }
}

/// What a failure's run adds to `details` (the facts add the rest, in lib/words/).
pub fn error_details(failure: &Failure) -> ErrorDetails {
  ErrorDetails {
    executable: failure.executable.as_deref().map(lossy),
    executable_in_workspace: failure.executable_in_workspace,
    env_dropped: failure.env_dropped.as_deref().map(EnvDropped::list),
    index_dir: failure.index.as_ref().map(|i| lossy(&i.dir)),
    index_resolved: failure.index.as_ref().map(|i| lossy(&i.resolved)),
    cli_version: failure.cli_version.as_ref().map(|v| v.text.clone()),
    cli_version_source: failure.cli_version.as_ref().map(|v| v.source.to_owned()),
    duration_ms: failure.duration.map(millis_f64),
    lock_wait_ms: failure.lock_wait.map(millis_f64),
    run_ms: failure.run.map(millis_f64),
    ..ErrorDetails::default()
  }
}

/// A real `Error` with the stable `code`, the failure's `facts` and the run's `details`: the glue
/// (lib/api/failures.js) words it through lib/words/ into the public Error.
pub fn js_error(env: &Env, err: &CodegraphError, failure: &Failure) -> Error {
  let build = || -> Result<Error> {
    let code = err.code();
    let mut obj = env.create_error(Error::new(Status::GenericFailure, code.as_str()))?;
    obj.set_named_property("code", ErrorCode::from(code))?;
    obj.set_named_property("facts", err.facts())?;
    obj.set_named_property("details", error_details(failure))?;
    // Kept as the very object (natively `From` keeps it too; in the WebAssembly build only this does).
    Ok(Error::from_unknown_without_coercion(obj.to_unknown()))
  };
  // Building the object failed (the environment is going away): napi's own error rejects.
  build().unwrap_or_else(|e| e)
}

/// What git printed, for JS.
pub fn git_result(out: pi_codegraph_core::git_run::GitOutcome) -> GitResult {
  GitResult {
    text: out.text,
    truncated: out.truncated,
    duration_ms: millis_f64(out.duration),
  }
}
