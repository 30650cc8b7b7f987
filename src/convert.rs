//! The core's results as JS values: an outcome as `ExploreResult`, a diagnosis as `Diagnosis`,
//! and a failure as a real JS `Error` with `code`, `remediation` and `details`.

use std::path::Path;
use std::time::Duration;

use napi::bindgen_prelude::{Either, JsObjectValue, JsValue, Null};
use napi::{Env, Error, Result, Status};
use pi_codegraph_core::environment::Dropped;
use pi_codegraph_core::errors::{self, ExploreError, NoIndexKind};
use pi_codegraph_core::explore::{self, Failure, Outcome};
use pi_codegraph_core::full_output::FullOutput;
use pi_codegraph_core::limits::Cap;
use pi_codegraph_core::runner::Progress;

use crate::types::{
  Diagnosis, EnvDropped, ErrorCode, ExploreDetails, ExploreErrorDetails, ExploreProgress,
  ExploreResult, TruncatedBy,
};

impl From<errors::ErrorCode> for ErrorCode {
  fn from(code: errors::ErrorCode) -> Self {
    use errors::ErrorCode as Core;
    match code {
      Core::InvalidRequest => Self::InvalidRequest,
      Core::InvalidOptions => Self::InvalidOptions,
      Core::Workspace => Self::Workspace,
      Core::NotFound => Self::NotFound,
      Core::NoIndex => Self::NoIndex,
      Core::IndexReadOnly => Self::IndexReadOnly,
      Core::IndexBusy => Self::IndexBusy,
      Core::Spawn => Self::Spawn,
      Core::Resources => Self::Resources,
      Core::Exit => Self::Exit,
      Core::Timeout => Self::Timeout,
      Core::Cancelled => Self::Cancelled,
    }
  }
}

impl From<Cap> for TruncatedBy {
  fn from(cap: Cap) -> Self {
    match cap {
      Cap::Bytes => Self::Bytes,
      Cap::Lines => Self::Lines,
    }
  }
}

fn lossy(p: &Path) -> String {
  p.to_string_lossy().into_owned()
}

/// Milliseconds as a u32 napi field, saturating (a u32 holds 49 days).
fn millis_u32(d: Duration) -> u32 {
  u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}

fn env_dropped(dropped: &[Dropped]) -> Vec<EnvDropped> {
  dropped
    .iter()
    .map(|d| EnvDropped {
      variable: d.variable.clone(),
      entry: d.entry.clone(),
      reason: d.reason.to_owned(),
    })
    .collect()
}

pub fn progress(p: Progress) -> ExploreProgress {
  ExploreProgress {
    text: p.text,
    seen_bytes: p.seen_bytes as f64,
    seen_lines: p.seen_lines as f64,
    elapsed_ms: millis_u32(p.elapsed),
  }
}

pub fn result(o: Outcome) -> ExploreResult {
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
      env_dropped: env_dropped(&o.env_dropped),
      index_path: lossy(&o.index.dir),
      index_resolved: lossy(&o.index.resolved),
      cli_version: o.cli_version.as_ref().map(|v| v.text.clone()),
      cli_version_source: o.cli_version.map(|v| v.source.to_owned()),
      exit_code: o.exit_code,
      duration_ms: millis_u32(o.duration),
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
      full_output_missing,
    },
  }
}

pub fn diagnosis(d: &explore::Diagnosis, cwd: String) -> Diagnosis {
  let problem = d.problem.as_ref();
  Diagnosis {
    cwd,
    ready: problem.is_none(),
    executable: d.executable.as_deref().map(lossy),
    launcher: d.launcher.as_deref().map(lossy),
    executable_in_workspace: d.executable_in_workspace,
    env_dropped: env_dropped(&d.env_dropped),
    cli_version: d.cli_version.as_ref().map(|v| v.text.clone()),
    cli_version_source: d.cli_version.as_ref().map(|v| v.source.to_owned()),
    index_path: d.index.as_ref().map(|i| lossy(&i.dir)),
    index_resolved: d.index.as_ref().map(|i| lossy(&i.resolved)),
    ancestor_index: d.ancestor_index.as_deref().map(lossy),
    executable_problem: d.executable_problem.as_ref().map(ToString::to_string),
    index_problem: d.index_problem.as_ref().map(ToString::to_string),
    problem_code: problem.map(|e| e.code().into()),
    problem: problem.map(ToString::to_string),
    remediation: problem.map(ExploreError::remediation),
  }
}

/// `null` as an optional-but-present field: the JS side tells "no exit code" from "no field".
fn nullable(value: Option<i32>) -> Either<i32, Null> {
  value.map_or(Either::B(Null), Either::A)
}

/// What a failure adds to `details`: the run's context, then the variant's own fields.
pub fn error_details(
  err: &ExploreError,
  failure: &Failure,
  timeout: Duration,
) -> ExploreErrorDetails {
  let mut d = ExploreErrorDetails {
    executable: failure.executable.as_deref().map(lossy),
    executable_in_workspace: failure.executable_in_workspace,
    env_dropped: failure.env_dropped.as_deref().map(env_dropped),
    index_path: failure.index.as_ref().map(|i| lossy(&i.dir)),
    index_resolved: failure.index.as_ref().map(|i| lossy(&i.resolved)),
    cli_version: failure.cli_version.as_ref().map(|v| v.text.clone()),
    cli_version_source: failure.cli_version.as_ref().map(|v| v.source.to_owned()),
    duration_ms: failure.duration.map(|d| d.as_millis() as f64),
    ..ExploreErrorDetails::default()
  };
  match err {
    ExploreError::Exit {
      code,
      signal,
      stderr_tail,
      ..
    } => {
      d.exit_code = Some(nullable(*code));
      d.signal = Some(nullable(*signal));
      d.stderr_tail = Some(stderr_tail.clone());
    }
    ExploreError::Timeout {
      stderr_tail,
      partial_bytes,
      partial_text,
      ..
    } => {
      d.timeout_ms = Some(timeout.as_millis() as f64);
      d.stderr_tail = Some(stderr_tail.clone());
      d.partial_bytes = Some(*partial_bytes as f64);
      d.partial_text = Some(partial_text.clone());
    }
    ExploreError::Cancelled {
      partial_bytes,
      partial_text,
    } => {
      d.partial_bytes = Some(*partial_bytes as f64);
      d.partial_text = Some(partial_text.clone());
    }
    ExploreError::NoIndex {
      kind: NoIndexKind::Missing {
        ancestor: Some(ancestor),
      },
      ..
    } => d.ancestor_index = Some(lossy(ancestor)),
    _ => {}
  }
  d
}

/// A real `Error` with `code`, `remediation` and `details`; its message is self-contained because
/// Pi forwards only `message` to the model.
pub fn js_error(env: &Env, err: &ExploreError, failure: &Failure, timeout: Duration) -> Error {
  let build = || -> Result<Error> {
    let mut obj = env.create_error(Error::new(Status::GenericFailure, err.message()))?;
    obj.set_named_property("code", ErrorCode::from(err.code()))?;
    obj.set_named_property("remediation", err.remediation())?;
    obj.set_named_property("details", error_details(err, failure, timeout))?;
    Ok(Error::from(obj.to_unknown()))
  };
  // Building the object failed (the environment is going away): napi's own error rejects.
  build().unwrap_or_else(|e| e)
}
