//! The checks before and after a run, for the WebAssembly build's host (the Node runner's worker,
//! lib/runners/node/source-worker.js, never Pi's thread): the core's own (crates/core/src/ready.rs,
//! index_writer.rs, access.rs), synchronous, each bounded by the host's deadline on the worker.
//! What WASI cannot ask the core asks the host (src/host_answers.rs).

// napi hands the arguments over by value.
#![allow(clippy::needless_pass_by_value)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use napi::bindgen_prelude::{Buffer, FnArgs, Function};
use napi::Env;
use napi_derive::napi;
use pi_codegraph_core::access::{index_blocked, workspace_blocked};
use pi_codegraph_core::command::Command;
use pi_codegraph_core::discovery::{set_package_cli, Launch};
use pi_codegraph_core::env_snapshot::EnvSnapshot;
use pi_codegraph_core::errors::CodegraphError;
use pi_codegraph_core::full_output;
use pi_codegraph_core::index_writer::{active_writer, interrupted_write};
use pi_codegraph_core::preflight::IndexFound;
use pi_codegraph_core::ready::{self, Ready};

use crate::host_answers::{asking, HostInfo};
use crate::types::{lossy, EnvDropped, Problem};

/// A command as the host's reading of it gave it (src/call.rs `CheckedCommand`), for its checks.
#[napi(object)]
pub struct ChecksRequest {
  /// The workspace, as the caller gave it (well-formed).
  pub cwd: String,
  pub subcommand: String,
  pub positional: Option<String>,
  pub workspace: Option<String>,
  pub needs_index: bool,
  pub writes_index: bool,
  pub refuses_interrupted: bool,
  /// The caller's environment, names and values alternating, in its order.
  pub env: Vec<String>,
  /// The CLI installed beside the package, when the host found one (`setPackageCli`).
  pub package_cli: Option<String>,
}

/// What the checks established, or their problem. `ready` is the core's `Ready` as plain data;
/// the child's environment is `childEnv` (names and values alternating, as UTF-8: emnapi decodes a
/// string of over 16 bytes with a `TextDecoder` that drops a leading U+FEFF).
#[napi(object, object_from_js = false)]
pub struct ChecksResult {
  pub problem: Option<Problem>,
  pub ready: Option<serde_json::Value>,
  pub child_env: Vec<Buffer>,
  /// What of the caller's environment the child does not get.
  pub dropped: Vec<EnvDropped>,
}

/// The caller's environment from its names and values, alternating.
pub(crate) fn snapshot(pairs: &[String]) -> EnvSnapshot {
  let vars: Vec<(OsString, OsString)> = pairs
    .chunks(2)
    .filter(|pair| pair.len() == 2)
    .map(|pair| (pair[0].clone().into(), pair[1].clone().into()))
    .collect();
  EnvSnapshot::from_vars(vars)
}

/// A child's environment for the host: names and values alternating, as UTF-8.
pub(crate) fn env_bytes(vars: &[(OsString, OsString)]) -> Vec<Buffer> {
  vars
    .iter()
    .flat_map(|(k, v)| [k, v])
    .map(|s| Buffer::from(s.to_string_lossy().into_owned().into_bytes()))
    .collect()
}

fn command_of(request: &ChecksRequest) -> Command {
  let mut command = Command::explore(String::new());
  command.subcommand.clone_from(&request.subcommand);
  command.positional.clone_from(&request.positional);
  command.workspace = request.workspace.as_ref().map(PathBuf::from);
  command.needs_index = request.needs_index;
  command.writes_index = request.writes_index;
  command.allow_interrupted =
    request.needs_index && !request.writes_index && !request.refuses_interrupted;
  command
}

/// An index found, as plain data.
pub(crate) fn index_value(index: &IndexFound) -> serde_json::Value {
  serde_json::json!({
    "dir": lossy(&index.dir),
    "resolved": lossy(&index.resolved),
    "bytes": index.bytes,
  })
}

/// How the CLI is launched, as plain data (with its version from package metadata).
pub(crate) fn launch_value(launch: &Launch) -> serde_json::Value {
  serde_json::json!({
      "executable": lossy(&launch.executable),
      "program": lossy(&launch.program),
      "prefix": launch.prefix.iter().map(|p| p.to_string_lossy()).collect::<Vec<_>>(),
      "inWorkspace": launch.in_workspace,
      "besidePackage": launch.beside_package,
      "bundle": launch.bundle.as_ref().map(|b| serde_json::json!({
        "launcher": lossy(&b.launcher),
        "version": b.version,
      })),
      "packageVersion": ready::package_version(launch),
      "execFormat": pi_codegraph_core::off_thread::refused(&launch.program),
  })
}

/// Where a cut answer's full output would go (crates/core/src/full_output.rs `find_place`), as
/// the host thread's collector takes it (src/output.rs `OutputPlace`).
fn spill_value(env: &EnvSnapshot, workspace: &Path) -> serde_json::Value {
  let tmpdir = env.get_set("TMPDIR").map(PathBuf::from);
  match full_output::find_place(tmpdir.as_deref(), workspace) {
    Ok(place) => serde_json::json!({ "dir": lossy(&place.dir), "prefix": place.prefix }),
    Err(reason) => serde_json::json!({ "reason": reason }),
  }
}

fn ready_value(r: &Ready, env: &EnvSnapshot) -> serde_json::Value {
  serde_json::json!({
    "spill": spill_value(env, &r.workspace),
    "workspace": lossy(&r.workspace),
    "index": index_value(&r.index),
    "launch": launch_value(&r.launch),
    "writer": r.writer,
    "interrupted": r.interrupted.as_ref().map(CodegraphError::facts),
  })
}

/// The checks before a run (the native runner's, crates/core/src/ready.rs), on the caller's thread.
#[napi(js_name = "runChecks")]
pub fn run_checks(
  env: &Env,
  request: ChecksRequest,
  ask: Function<'_, FnArgs<(String, String)>, String>,
  info: HostInfo,
) -> napi::Result<ChecksResult> {
  let snapshot = snapshot(&request.env);
  let command = command_of(&request);
  set_package_cli(request.package_cli.as_ref().map(PathBuf::from));
  asking(env, &ask, info, || {
    match ready::checks(&command, &request.cwd, &snapshot) {
      Ok(r) => ChecksResult {
        problem: None,
        ready: Some(ready_value(&r, &snapshot)),
        child_env: env_bytes(&r.child_env.vars),
        dropped: EnvDropped::list(&r.child_env.dropped),
      },
      Err(e) => ChecksResult {
        problem: Some(Problem::of(&e)),
        ready: None,
        child_env: Vec::new(),
        dropped: Vec::new(),
      },
    }
  })
}

/// What the index's lock files say now: the live writer (`writer`), or the unfinished write with
/// none at work (`interrupted`); each null when there is none, or the problem reading them.
#[napi(object, object_from_js = false)]
pub struct WriterNow {
  pub problem: Option<Problem>,
  pub writer: Option<serde_json::Value>,
  pub interrupted: Option<serde_json::Value>,
}

/// The index writer at work in `index_dir` now (`interrupted`: also the unfinished write).
#[napi(js_name = "writerNow")]
pub fn writer_now(
  env: &Env,
  index_dir: String,
  interrupted: bool,
  ask: Function<'_, FnArgs<(String, String)>, String>,
  info: HostInfo,
) -> napi::Result<WriterNow> {
  let dir = PathBuf::from(index_dir);
  asking(env, &ask, info, || {
    let found = active_writer(&dir).and_then(|writer| {
      let unfinished = match (&writer, interrupted) {
        (None, true) => interrupted_write(&dir)?,
        _ => None,
      };
      Ok((writer, unfinished))
    });
    match found {
      Ok((writer, unfinished)) => WriterNow {
        problem: None,
        writer: writer.map(|w| serde_json::to_value(w).unwrap_or_default()),
        interrupted: unfinished.map(|i| serde_json::to_value(i).unwrap_or_default()),
      },
      Err(e) => WriterNow {
        problem: Some(Problem::of(&e)),
        writer: None,
        interrupted: None,
      },
    }
  })
}

/// After a failed spawn or exit: whether the workspace vanished or was locked (and, with
/// `index_dir`, whether the index paths are accessible); null when nothing is blocked.
#[napi(js_name = "blockedCause")]
pub fn blocked_cause(
  env: &Env,
  workspace: String,
  index_dir: Option<String>,
  ask: Function<'_, FnArgs<(String, String)>, String>,
  info: HostInfo,
) -> napi::Result<Option<Problem>> {
  let ws = PathBuf::from(workspace);
  asking(env, &ask, info, || {
    let blocked = match index_dir {
      Some(dir) => index_blocked(&ws, Path::new(&dir)),
      None => workspace_blocked(&ws),
    };
    blocked.as_ref().map(Problem::of)
  })
}
