//! `runGit()`: one git description run with CodeGraph's rules (crates/core/src/git_run.rs), in
//! both builds: natively on the addon's runtime, in the WebAssembly build on the core's own thread
//! with its host starting git (src/host_child.rs).

use napi::bindgen_prelude::{Object, Unknown};
use napi::{Env, Result};
use napi_derive::napi;
use pi_codegraph_core::child::Cancel;
use pi_codegraph_core::command_run::Failure;
use pi_codegraph_core::git_run;

use crate::{args, convert, env_capture, runtime};

/// Runs one git description (`lib/contract/git.js` builds it; src/args/git.rs reads it, a
/// malformed one CODEGRAPH_GIT `invalid`) in `cwd` with CodeGraph's rules
/// (`pi_codegraph_core::git_run`). Resolves with `{ text, truncated, durationMs }`; rejects as
/// `runCommand` does (CODEGRAPH_GIT, CODEGRAPH_CANCELLED, CODEGRAPH_WORKSPACE, CODEGRAPH_RESOURCES).
#[napi(
  ts_args_type = "command: object, cwd: string, signal?: AbortSignal | null",
  ts_return_type = "Promise<GitResult>"
)]
#[allow(clippy::needless_pass_by_value)]
pub fn run_git<'env>(
  env: &'env Env,
  command: Unknown<'env>,
  cwd: String,
  signal: Option<Unknown<'env>>,
) -> Result<Object<'env>> {
  let started = tokio::time::Instant::now();
  let cancel = Cancel::default();
  let read = args::read_git(env, &command);
  let link = read
    .as_ref()
    .map_err(Clone::clone)
    .and_then(|_| args::link_signal(env, signal, &cancel));
  let snapshot = env_capture::js_environment(env);
  let (link, linked) = match link {
    Ok(link) => (link, Ok(())),
    Err(e) => (None, Err(e)),
  };
  let work = async move {
    runtime::host_ready().await;
    linked?;
    git_run::run_git(read?, cwd, snapshot, cancel).await
  };
  runtime::promise(env, work, move |env, outcome| {
    if let Some(link) = link {
      link.detach(&env);
    }
    match outcome.and_then(|r| r) {
      Ok(out) => Ok(convert::git_result(out)),
      Err(e) => Err(convert::js_error(&env, &e, &since(started))),
    }
  })
}

/// What is known of a call that failed before the core ran it: how long it took.
pub(crate) fn since(started: tokio::time::Instant) -> Failure {
  Failure {
    duration: Some(started.elapsed()),
    ..Failure::default()
  }
}
