//! One CodeGraph command, start to finish: preflight, discovery, the run, and what its exit
//! means. Every command (`command::Command`; explore is one) gets the same guarantees. Plain
//! Rust, no napi types: `lib.rs` converts at the edge.

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use crate::command::Command;
use crate::discovery::Launch;
use crate::environment::{Dropped, EnvSnapshot};
use crate::errors::ExploreError;
use crate::full_output::SpillTarget;
use crate::limits::{Bounded, Caps};
use crate::preflight::IndexFound;
use crate::runner::{run, Cancel, ProgressFn, RunSpec};
use crate::version::{Probe, Version};

mod checks;
mod diagnose;
mod exit;
#[cfg(test)]
mod exit_corpus;
use checks::{blocked_cause, preflight, settle_writer, Ready};
pub use diagnose::{diagnose, Diagnosis};
use exit::classify_exit;

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
  pub duration: Duration,
  pub stdout: Bounded,
  /// What of the user's environment the child did not get (`environment::code_paths`).
  pub env_dropped: Vec<Dropped>,
}

/// Diagnostics that travel with an error (bounded: no unbounded CLI text).
#[derive(Debug, Default)]
pub struct Failure {
  /// What ran (the platform bundle's launcher when the npm shim was skipped).
  pub executable: Option<PathBuf>,
  pub executable_in_workspace: Option<bool>,
  pub index: Option<IndexFound>,
  pub cli_version: Option<Version>,
  pub duration: Option<Duration>,
  pub env_dropped: Option<Vec<Dropped>>,
}

impl Failure {
  /// What is known of a call that failed after the checks found its executable and index.
  fn after_checks(ready: &Ready, cli_version: Option<Version>, duration: Option<Duration>) -> Self {
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
      duration,
      env_dropped: Some(child_env.dropped.clone()),
    }
  }
}

/// Boxed: the error side is large and rare.
pub type Result<T> = std::result::Result<T, Box<(ExploreError, Failure)>>;

fn bare(e: ExploreError) -> Box<(ExploreError, Failure)> {
  Box::new((e, Failure::default()))
}

/// Runs `command` in `cwd` with every guarantee: the checks, the writer policy, the quiet
/// environment, the caps with marker and full-output file, the deadline (`timeout`: the
/// caller's, or the command's own), cancel, tree kill and a classified exit.
pub async fn run_command(
  command: Command,
  cwd: String,
  env: EnvSnapshot,
  timeout: Duration,
  cancel: Cancel,
  progress: Option<&ProgressFn>,
) -> Result<Outcome> {
  let deadline = Instant::now() + timeout;
  let mut ready = preflight(&command, cwd, &env, deadline, timeout, &cancel)
    .await
    .map_err(bare)?;
  settle_writer(
    ready.writer.take(),
    command.writes_index,
    &ready.index.dir,
    deadline,
    timeout,
    &cancel,
  )
  .await
  .map_err(|e| Box::new((e, Failure::after_checks(&ready, None, None))))?;
  let Ready {
    workspace,
    launch,
    child_env,
    ..
  } = &ready;
  let child_env = &child_env.vars;

  // Always an argument array, never a shell; `--` ends option parsing, so a request such as
  // "-p /etc" stays the query and never becomes the CLI's `--path`.
  let args = command.argv();
  let version = Probe::start(launch, workspace, child_env, deadline);
  let cancel_probe = cancel.clone();
  let result = run(RunSpec {
    launch,
    args: &args,
    cwd: workspace,
    env: child_env,
    timeout,
    deadline,
    cancel: Some(cancel),
    spill: Some(SpillTarget {
      tmpdir_var: env.get_set("TMPDIR").map(PathBuf::from),
      workspace: workspace.clone(),
    }),
    caps: command.caps,
    progress: progress.filter(|_| command.progress),
  })
  .await;
  // The version never delays the answer: what is known now is reported.
  let cli_version = version.now();
  let failure =
    |duration: Option<Duration>| Failure::after_checks(&ready, cli_version.clone(), duration);
  let out = match result {
    Ok(out) => out,
    Err(e) => {
      version.stop();
      // A spawn that could not enter its working directory (ENOENT, as if the CLI were
      // missing, or EACCES) ran after the workspace vanished or was locked.
      let e = match e {
        ExploreError::NotFound { .. } | ExploreError::Spawn { .. } => {
          blocked_cause(workspace, None, &cancel_probe)
            .await
            .unwrap_or(e)
        }
        e => e,
      };
      return Err(Box::new((e, failure(None))));
    }
  };

  if !out.status.success() && !out.stopped_at_drain_limit() {
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
    duration: out.duration,
    stdout: out.stdout,
    env_dropped: child_env.dropped,
  })
}
