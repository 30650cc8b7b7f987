//! A diagnosis's checks and a call's checks asked off its thread, for the WebAssembly build's host (the Node runner's worker):
//! the core's own (crates/core/src/ready.rs `survey`, git_found.rs), synchronous, with the host's
//! answers installed as for the checks before a run (src/checks.rs).

// napi hands the arguments over by value.
#![allow(clippy::needless_pass_by_value)]

use std::path::PathBuf;

use napi::bindgen_prelude::{Buffer, FnArgs, Function};
use napi::Env;
use napi_derive::napi;
use pi_codegraph_core::diagnosis::Diagnosis;
use pi_codegraph_core::discovery::set_package_cli;
use pi_codegraph_core::off_thread;
use pi_codegraph_core::ready;

use crate::checks::{env_bytes, launch_value, snapshot};
use crate::host_answers::{asking, HostInfo};
use crate::types::{lossy, AddonDiagnosis};

/// A diagnosis of a workspace, all but the CLI's version, in the addon's `AddonDiagnosis` shape
/// (`diagnosis`); and, when the CLI was found, what to probe its version with (`launch`, in
/// `workspace`, with the child's environment `childEnv`: names and values alternating, as UTF-8).
#[napi(object, object_from_js = false)]
pub struct SurveyResult {
  pub diagnosis: AddonDiagnosis,
  pub launch: Option<serde_json::Value>,
  pub workspace: Option<String>,
  pub child_env: Vec<Buffer>,
}

/// The diagnosis's checks of `cwd` (crates/core/src/ready.rs `survey`) made a diagnosis
/// (crates/core/src/diagnosis.rs), on the caller's thread.
#[napi(js_name = "surveyWorkspace")]
pub fn survey_workspace(
  env: &Env,
  cwd: String,
  on_behalf_of: Option<String>,
  vars: Vec<String>,
  package_cli: Option<String>,
  ask: Function<'_, FnArgs<(String, String)>, String>,
  info: HostInfo,
) -> napi::Result<SurveyResult> {
  let snapshot = snapshot(&vars);
  set_package_cli(package_cli.map(PathBuf::from));
  let on_behalf_of = on_behalf_of.map(PathBuf::from);
  asking(env, &ask, info, || {
    let (d, to_probe) = match ready::survey(&cwd, on_behalf_of.as_deref(), &snapshot) {
      Ok(survey) => Diagnosis::of(survey),
      Err(e) => (Diagnosis::failed(e), None),
    };
    SurveyResult {
      diagnosis: AddonDiagnosis::of(&d, cwd.clone()),
      launch: to_probe.as_ref().map(|p| launch_value(&p.launch)),
      workspace: to_probe.as_ref().map(|p| lossy(&p.workspace)),
      child_env: to_probe.map(|p| env_bytes(&p.vars)).unwrap_or_default(),
    }
  })
}

/// One of the checks a call asks off its thread (crates/core/src/off_thread.rs `Check`, as JSON),
/// answered on the caller's thread (the Node runner's worker) with the host's facts: its answer,
/// as JSON.
#[napi(js_name = "answerCheck")]
pub fn answer_check(
  env: &Env,
  check: String,
  ask: Function<'_, FnArgs<(String, String)>, String>,
  info: HostInfo,
) -> napi::Result<String> {
  let check: off_thread::Check =
    serde_json::from_str(&check).map_err(|e| napi::Error::from_reason(e.to_string()))?;
  let answer = asking(env, &ask, info, || off_thread::answer(check))?;
  serde_json::to_string(&answer).map_err(|e| napi::Error::from_reason(e.to_string()))
}
