//! The calls that run processes: `runCommand()`, `diagnose()`, `releaseFullOutputs()`,
//! `setPackageCli()` and the contract's limits. The native addon only: the WebAssembly build has
//! the source calls alone (src/wasm.rs), and the JS runner launches CodeGraph.

use std::path::PathBuf;

use napi::bindgen_prelude::{Object, Unknown};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::{Env, Result};
use napi_derive::napi;
use pi_codegraph_core::child::{self, Cancel, ProgressFn};
use pi_codegraph_core::command_run::{self, Failure, DEFAULT_TIMEOUT};
use pi_codegraph_core::errors::CodegraphError;
#[cfg(not(target_family = "wasm"))]
use pi_codegraph_core::warm;
use pi_codegraph_core::{caps, full_output};

use crate::git_call::since;
use crate::types::{AddonDiagnosis, Progress};
use crate::{args, convert, env_capture, runtime};

// The contract's limits, exported so that JS glue, bench and docs read them instead of copying.
// Every value fits a u32 (the largest is 16 MiB); the `as` only changes the type.

/// A request's bound (every command's positional text) in UTF-16 code units (what JS `length` counts).
#[napi]
pub const MAX_REQUEST_CHARS: u32 = caps::MAX_REQUEST_CHARS as u32;
/// What the model may see of stdout, the truncation marker included: bytes ...
#[napi]
pub const MAX_OUTPUT_BYTES: u32 = caps::MAX_BYTES as u32;
/// ... and lines, whichever is hit first.
#[napi]
pub const MAX_OUTPUT_LINES: u32 = caps::MAX_LINES as u32;
/// stdout past the caps is drained, counted and kept in the full-output file up to this many bytes.
#[napi]
pub const DRAIN_LIMIT_BYTES: u32 = caps::DRAIN_LIMIT_BYTES as u32;
/// How much of the end of stderr an error carries.
#[napi]
pub const STDERR_TAIL_BYTES: u32 = caps::STDERR_TAIL_BYTES as u32;
/// The default deadline of one explore.
#[napi]
pub const DEFAULT_TIMEOUT_MS: u32 = DEFAULT_TIMEOUT.as_millis() as u32;

/// Runs one CodeGraph command, described by `command` (`lib/contract/commands.js` builds them: explore is
/// `{ subcommand: "explore", positional: request, ... }`), in `cwd`, with every guarantee of the
/// runner. Every failure, bad arguments and a malformed description included, rejects the
/// promise with an Error whose `code` is a stable CODEGRAPH_* code, with the
/// failure's `facts` and bounded `details` (the glue, lib/api/failures.js, words it into the
/// public Error through lib/words/); nothing is started for a malformed description.
///
/// The `Result` is only napi-rs's own failure to create the promise (the environment shutting
/// down): then there is no promise to reject and napi-rs throws. The JS glue (`index.js`) awaits
/// inside an `async` function, so even that reaches its caller as a rejection.
#[napi(
  ts_args_type = "command: CodegraphCommand, cwd: string, signal?: AbortSignal | null, options?: RunOptions | null",
  ts_return_type = "Promise<RunResult>"
)]
pub fn run_command<'env>(
  env: &'env Env,
  command: Unknown<'env>,
  cwd: Unknown<'env>,
  signal: Option<Unknown<'env>>,
  options: Option<Unknown<'env>>,
) -> Result<Object<'env>> {
  // The call's own clock: its details' durationMs runs from here (argument reading included).
  let started = tokio::time::Instant::now();
  let cancel = Cancel::default();
  let (args, link) = args::run_args(env, &command, &cwd, signal, options, &cancel);
  let snapshot = env_capture::js_environment(env);

  let work = async move {
    // The host's load is not the call's time (see `host_ready`).
    let started = if runtime::host_ready().await {
      tokio::time::Instant::now()
    } else {
      started
    };
    let args = match args {
      Ok(args) => args,
      Err(e) => return Err(Box::new((e, since(started)))),
    };
    let report = args.on_progress.map(|tsfn| {
      move |p: child::Progress| {
        // NonBlocking: a slow JS listener must never stall the pipe reader. With a return
        // callback, napi-rs catches what the listener throws instead of raising it as an
        // uncaught exception: a failing listener never takes the host down.
        tsfn.call_with_return_value(
          Progress::of(p),
          ThreadsafeFunctionCallMode::NonBlocking,
          |_, _| Ok(()),
        );
      }
    });
    let report = report.as_ref().map(|f| f as &ProgressFn);
    command_run::run_command(
      args.command,
      args.cwd,
      snapshot,
      args.timeout,
      cancel,
      report,
      started,
    )
    .await
  };
  runtime::promise(env, work, move |env, outcome| {
    if let Some(link) = link {
      link.detach(&env);
    }
    let failed = match outcome {
      Ok(Ok(outcome)) => return Ok(convert::result(outcome)),
      Ok(Err(failed)) => failed,
      // No runtime to run the call on, or the call itself died: a coded error all the same.
      Err(e) => Box::new((e, since(started))),
    };
    let (err, failure): &(CodegraphError, Failure) = &failed;
    Err(convert::js_error(&env, err, failure))
  })
}

/// Reports, without running an explore and without writing anything, whether `cwd` is ready:
/// which `codegraph` would run (and its version) and whether the workspace has its own index.
/// Never rejects (a problem is part of the diagnosis); the `Result` is as for `runCommand`.
/// `workspace`: Pi's, when `cwd` is another root (its code is kept from the child too).
#[napi(
  ts_args_type = "cwd: string, workspace?: string | null",
  ts_return_type = "Promise<AddonDiagnosis>"
)]
pub fn diagnose<'env>(
  env: &'env Env,
  cwd: Unknown<'env>,
  workspace: Option<Unknown<'env>>,
) -> Result<Object<'env>> {
  let snapshot = env_capture::js_environment(env);
  // A non-string is reported like any unusable workspace (an empty path).
  let cwd = args::string_arg(&cwd).unwrap_or_default();
  // Only an absolute path counts; anything else is no workspace besides cwd.
  let on_behalf_of = workspace
    .as_ref()
    .and_then(args::string_arg)
    .map(PathBuf::from)
    .filter(|p| p.is_absolute());
  let for_settle = cwd.clone();
  let work = async move {
    runtime::host_ready().await;
    command_run::diagnose_for(cwd, on_behalf_of, snapshot).await
  };
  runtime::promise(env, work, move |env, found| match found {
    Ok(found) => Ok(AddonDiagnosis::of(&found, for_settle)),
    Err(e) => Err(convert::js_error(&env, &e, &Failure::default())),
  })
}

/// Deletes full-output temp files of truncated answers: the listed paths (one session's), or
/// with no list every file this process keeps. The Pi extension calls it on `session_shutdown`
/// with its own session's paths. Returns how many were deleted.
#[napi(ts_args_type = "paths?: string[] | null")]
#[allow(clippy::needless_pass_by_value)] // napi hands the list over by value
pub fn release_full_outputs(paths: Option<Vec<String>>) -> u32 {
  let released = match paths {
    Some(paths) => {
      let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
      full_output::release(&paths)
    }
    None => full_output::release_all(),
  };
  u32::try_from(released).unwrap_or(u32::MAX)
}

/// Where the CodeGraph CLI installed beside this package is (its `node_modules/.bin/codegraph`),
/// or `null` for none: discovery runs it when `PI_CODEGRAPH_BIN` is unset and none is on PATH,
/// under the same workspace rule. The package sets it once, when it loads.
#[napi(ts_args_type = "path: string | null")]
#[allow(clippy::needless_pass_by_value)] // napi hands the string over by value
pub fn set_package_cli(path: Option<String>) {
  pi_codegraph_core::discovery::set_package_cli(path.map(PathBuf::from));
}

#[cfg(not(target_family = "wasm"))]
/// Stops every long-lived CodeGraph this process runs (`codegraph serve --mcp`, started for calls
/// whose description asks `warm` while the user has auto sync on): their whole trees, after their
/// stdin closes. The Pi extension calls it at `session_shutdown` and when auto sync is turned off.
/// Resolves with how many ran.
#[napi(ts_return_type = "Promise<number>")]
pub fn stop_warm(env: &Env) -> Result<Object<'_>> {
  runtime::promise(env, warm::stop_all(), |_, stopped| Ok(stopped.unwrap_or(0)))
}

#[cfg(not(target_family = "wasm"))]
/// The long-lived CodeGraphs running now: `{ cwd, pid }` each (for `/codegraph doctor`).
#[napi(ts_return_type = "Array<{ cwd: string; pid: number | null }>")]
pub fn warm_servers() -> Vec<WarmServer> {
  warm::running()
    .into_iter()
    .map(|(cwd, pid)| WarmServer {
      cwd: cwd.to_string_lossy().into_owned(),
      pid,
    })
    .collect()
}

#[cfg(not(target_family = "wasm"))]
#[napi(object)]
pub struct WarmServer {
  pub cwd: String,
  pub pid: Option<u32>,
}
