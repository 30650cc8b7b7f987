//! One CodeGraph command, start to finish: preflight, discovery, the run, and what its exit
//! means. Every command (`command::Command`; explore is one) gets the same guarantees. Plain
//! Rust, no napi types: `lib.rs` converts at the edge.

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use crate::caps::Caps;
use crate::child::{run, Cancel, ProgressFn, RunBounds, RunOutput, RunSpec};
use crate::command::Command;
use crate::discovery::Launch;
use crate::env_snapshot::EnvSnapshot;
use crate::environment::Dropped;
use crate::errors::CodegraphError;
use crate::full_output::SpillTarget;
use crate::limits::Bounded;
use crate::preflight::IndexFound;
use crate::version::{Probe, Version};
#[cfg(not(target_family = "wasm"))]
use crate::warm::{self, Ask, Served};

mod checks;
mod diagnose;
mod exit;
#[cfg(test)]
mod exit_corpus;
use checks::{
  after_failed_run, blocked_cause, preflight, refuse_interrupted, settle_writer, Ready,
};
pub use diagnose::{diagnose, diagnose_for, Diagnosis};
use exit::{classify_exit, cli_started};

pub use crate::command::DEFAULT_TIMEOUT;
/// How long a reading command waits for CodeGraph to finish writing the index (an `init` of a small
/// project or a `sync` takes a second or two) before it says the index is busy.
pub const WRITER_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub struct Outcome {
  /// CodeGraph printed nothing but white space (the answer is then worded by lib/words/).
  pub printed_nothing: bool,
  /// The command's subcommand and caps: the glue fits the text and its marker to them.
  pub subcommand: String,
  pub caps: Caps,
  pub request: String,
  pub cwd: PathBuf,
  pub launch: Launch,
  pub index: IndexFound,
  pub cli_version: Option<Version>,
  pub exit_code: i32,
  pub times: Times,
  pub stdout: Bounded,
  /// Answered by the workspace's long-lived CodeGraph (`warm`), not by a process of its own.
  pub warm: bool,
  /// What of the user's environment the child did not get (`environment::code_paths`).
  pub env_dropped: Vec<Dropped>,
}

/// Where an answered call's time went. `lock_wait` and `run` are disjoint parts of `duration`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Times {
  /// The whole call: from entering the runner (its `started`) to the answer.
  pub duration: Duration,
  /// Waiting for a CodeGraph writer (`codegraph.lock`, `rebuild.pid`, a database being
  /// created) before the run; zero when none was active.
  pub lock_wait: Duration,
  /// The CLI run itself: spawn to exit.
  pub run: Duration,
}

/// Diagnostics that travel with an error (bounded: no unbounded CLI text).
#[derive(Debug, Default)]
pub struct Failure {
  /// What ran (the platform bundle's launcher when the npm shim was skipped).
  pub executable: Option<PathBuf>,
  pub executable_in_workspace: Option<bool>,
  pub index: Option<IndexFound>,
  pub cli_version: Option<Version>,
  /// The whole call until the failure (from entering the runner).
  pub duration: Option<Duration>,
  /// Waiting for a CodeGraph writer, once the checks got that far (for CODEGRAPH_INDEX_BUSY the
  /// time waited: its `waited_ms`).
  pub lock_wait: Option<Duration>,
  /// The CLI run until it failed, once it was started.
  pub run: Option<Duration>,
  pub env_dropped: Option<Vec<Dropped>>,
}

impl Failure {
  /// What is known of a call that failed after the checks found its executable and index.
  fn after_checks(
    ready: &Ready,
    cli_version: Option<Version>,
    lock_wait: Duration,
    run: Option<Duration>,
  ) -> Self {
    let Ready {
      launch,
      index,
      child_env,
      ..
    } = ready;
    Self {
      executable: Some(launch.runs().to_path_buf()),
      executable_in_workspace: Some(launch.in_workspace),
      index: Some(index.clone()),
      cli_version,
      duration: None,
      lock_wait: Some(lock_wait),
      run,
      env_dropped: Some(child_env.dropped.clone()),
    }
  }
}

/// Boxed: the error side is large and rare.
pub type Result<T> = std::result::Result<T, Box<(CodegraphError, Failure)>>;

fn bare(e: CodegraphError) -> Box<(CodegraphError, Failure)> {
  Box::new((e, Failure::default()))
}

/// Runs `command` in `cwd` with every guarantee: the checks, the writer policy, the quiet
/// environment, the caps with marker and full-output file, the deadline (`timeout`, the
/// caller's or the command's own, counted from `started`), cancel, tree kill and a classified
/// exit. `started` is when the caller's call entered the runner: the answer's `duration` and a
/// failure's run from it.
pub async fn run_command(
  command: Command,
  cwd: String,
  env: EnvSnapshot,
  timeout: Duration,
  cancel: Cancel,
  progress: Option<&ProgressFn>,
  started: Instant,
) -> Result<Outcome> {
  let mut result = run_timed(command, cwd, env, timeout, cancel, progress, started).await;
  match &mut result {
    Ok(outcome) => outcome.times.duration = started.elapsed(),
    Err(failed) => failed.1.duration = Some(started.elapsed()),
  }
  result
}

/// The writer policy ([`settle_writer`]), timed: how long this call waited for a CodeGraph
/// writer before its run (zero when none was active).
async fn wait_timed(
  ready: &mut Ready,
  command: &Command,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> Result<Duration> {
  let writer = ready.writer.take();
  let waiting = writer.is_some();
  let wait_started = Instant::now();
  let mut settled = settle_writer(
    writer,
    command.writes_index,
    &ready.index.dir,
    deadline,
    timeout,
    cancel,
  )
  .await;
  if settled.is_ok() {
    let found = ready.interrupted.take();
    let dir = &ready.index.dir;
    settled = refuse_interrupted(found, waiting, command, dir, deadline, timeout, cancel).await;
  }
  let lock_wait = if waiting {
    wait_started.elapsed()
  } else {
    Duration::ZERO
  };
  settled.map(|()| lock_wait).map_err(|e| {
    // A busy index says how long this call waited: the same fact, the same number.
    let lock_wait = match &e {
      CodegraphError::IndexBusy { waited_ms, .. } => Duration::from_millis(*waited_ms),
      _ => lock_wait,
    };
    Box::new((e, Failure::after_checks(ready, None, lock_wait, None)))
  })
}

async fn run_timed(
  command: Command,
  cwd: String,
  env: EnvSnapshot,
  timeout: Duration,
  cancel: Cancel,
  progress: Option<&ProgressFn>,
  started: Instant,
) -> Result<Outcome> {
  let deadline = started + timeout;
  let (mut ready, chosen) = preflight(&command, cwd, &env, deadline, timeout, &cancel)
    .await
    .map_err(bare)?;
  let lock_wait = wait_timed(&mut ready, &command, deadline, timeout, &cancel).await?;
  let Ready {
    workspace,
    launch,
    child_env,
    ..
  } = &ready;
  let child_env = &child_env.vars;

  let version = Probe::start(launch, workspace, child_env, deadline);
  let cancel_probe = cancel.clone();
  let run_started = Instant::now();
  let spill = match chosen {
    Some(chosen) => SpillTarget::Chosen(chosen),
    None => SpillTarget::Find {
      tmpdir_var: env.get_set("TMPDIR").map(PathBuf::from),
      workspace: workspace.clone(),
    },
  };
  let (result, warm) =
    serve_or_run(&command, &ready, spill, deadline, timeout, cancel, progress).await;
  // The version never delays the answer: what is known now is reported.
  let cli_version = version.now();
  let failure =
    |run: Option<Duration>| Failure::after_checks(&ready, cli_version.clone(), lock_wait, run);
  let out = match result {
    Ok(out) => out,
    Err(e) => {
      let ran = cli_started(&e).then(|| run_started.elapsed());
      version.stop();
      let e = after_failed_run(e, workspace, &ready.index.dir, &cancel_probe).await;
      return Err(Box::new((e, failure(ran))));
    }
  };

  if !out.exit.success() && !out.stopped_at_drain_limit() {
    version.stop();
    let dir = exit::says_cannot_open(&out).then_some(ready.index.dir.as_path());
    let blocked = blocked_cause(workspace, dir, &cancel_probe).await;
    let err = classify_exit(&out, workspace, &ready.index, blocked);
    return Err(Box::new((err, failure(Some(out.duration)))));
  }

  // An empty answer is a fact; lib/words/ words it, and the truncation marker too.
  let printed_nothing = out.stdout.text.trim().is_empty() && !out.stdout.truncated;
  let Ready {
    workspace,
    index,
    launch,
    child_env,
    ..
  } = ready;
  Ok(Outcome {
    printed_nothing,
    subcommand: command.subcommand,
    caps: command.caps,
    request: command.positional.unwrap_or_default(),
    cwd: workspace,
    launch,
    index,
    cli_version,
    // Our own stop at the drain limit is not the CLI's verdict; -1 marks "stopped by us".
    exit_code: if out.stopped_at_drain_limit() { -1 } else { 0 },
    // `duration` is the whole call's, set by `run_command` as it answers.
    times: Times {
      duration: Duration::ZERO,
      lock_wait,
      run: out.duration,
    },
    stdout: out.stdout,
    warm,
    env_dropped: child_env.dropped,
  })
}

/// The command answered by the workspace's long-lived CodeGraph when the description asks `warm`
/// and it can (`warm::serve`), else run as a process of its own; whether the server answered. A
/// write that CodeGraph does not make beside its server stops it first.
async fn serve_or_run(
  command: &Command,
  ready: &Ready,
  spill: SpillTarget,
  deadline: Instant,
  timeout: Duration,
  cancel: Cancel,
  progress: Option<&ProgressFn>,
) -> (std::result::Result<RunOutput, CodegraphError>, bool) {
  let Ready {
    workspace,
    launch,
    child_env,
    ..
  } = ready;
  // The WebAssembly build keeps no long-lived CodeGraph: a process per call.
  #[cfg(not(target_family = "wasm"))]
  {
    warm::stop_before_write(command, workspace).await;
    if command.warm {
      let ask = Ask {
        command,
        launch,
        workspace,
        env: &child_env.vars,
        index_dir: &ready.index.dir,
        deadline,
        timeout,
        cancel: &cancel,
        spill: Some(spill.clone()),
      };
      match warm::serve(ask).await {
        Served::Answered(out) => return (Ok(out), true),
        Served::Stopped(e) => return (Err(e), false),
        Served::Unavailable => {}
      }
    }
  }
  // Always an argument array, never a shell; `--` ends option parsing, so a request such as
  // "-p /etc" stays the query and never becomes the CLI's `--path`.
  let args = command.argv();
  let spec = RunSpec {
    launch,
    args: &args,
    cwd: workspace,
    env: &child_env.vars,
    bounds: RunBounds {
      timeout,
      deadline,
      cancel: Some(cancel),
      spill: Some(spill),
      caps: command.caps,
      progress: progress.filter(|_| command.progress),
    },
    background: false,
  };
  (run(spec).await, false)
}
