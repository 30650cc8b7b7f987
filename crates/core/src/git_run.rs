//! git as a child, with CodeGraph's rules (the native runner's; the Node runner's launch is
//! `lib/runners/node/git-run.js`): a checked description (`git_command`) run as its argument array
//! in the workspace, `git` found on the absolute PATH entries outside the workspace (one planted in
//! the repository never runs), the quiet environment without the variables that point git
//! elsewhere, the C locale (`git_found`), stdout within the caps (no spill file), stderr's tail,
//! the deadline, cancel and the whole tree killed (`child::run`).

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use crate::child::{run, Cancel, RunBounds, RunSpec};
use crate::discovery::Launch;
use crate::env_snapshot::EnvSnapshot;
use crate::errors::{CodegraphError, GitReason, WorkspaceReason};
use crate::git_command::GitCommand;
use crate::off_thread::{self, Answer, Check};

/// What git printed: the text within the caps, whether they cut it, how long it ran.
#[derive(Debug)]
pub struct GitOutcome {
  pub text: String,
  pub truncated: bool,
  pub duration: Duration,
}

/// Runs `command` in `cwd` (absolute; the workspace). Checks first, then finds git and runs it.
pub async fn run_git(
  command: GitCommand,
  cwd: String,
  env: EnvSnapshot,
  cancel: Cancel,
) -> Result<GitOutcome, CodegraphError> {
  let started = Instant::now();
  command.check()?;
  let dir = PathBuf::from(&cwd);
  if !dir.is_absolute() {
    return Err(CodegraphError::Workspace {
      path: dir,
      denied: false,
      reason: WorkspaceReason::Relative,
    });
  }
  // Discovery and the environment read the filesystem: off the async workers.
  let deadline = started + command.timeout;
  let check = Check::FindGit {
    dir,
    env: env.vars().to_vec(),
  };
  let found = off_thread::ask(check, deadline, command.timeout, &cancel).await;
  let found = found.map_err(|e| command.run_failed(e.code().as_str()).unwrap_or(e))?;
  let Answer::Git {
    home,
    git,
    skipped,
    vars,
    exec_refused,
  } = found
  else {
    return Err(off_thread::unexpected(&found));
  };
  let Some(git) = git else {
    return Err(command.failed(GitReason::NotFound { skipped }));
  };
  let launch = Launch {
    executable: git.clone(),
    program: git,
    prefix: Vec::new(),
    in_workspace: false,
    bundle: None,
    beside_package: false,
    exec_refused,
  };
  let args = command.argv();
  let out = run(RunSpec {
    launch: &launch,
    args: &args,
    cwd: &home,
    env: &vars,
    bounds: RunBounds {
      timeout: command.timeout,
      deadline,
      cancel: Some(cancel),
      spill: None,
      caps: command.caps,
      progress: None,
    },
    background: false,
  })
  .await
  .map_err(|e| command.run_failed(e.code().as_str()).unwrap_or(e))?;
  if !out.exit.success() && !out.stopped_at_drain_limit() {
    let code = out.exit.code.unwrap_or(-1);
    return Err(command.exited(code, out.stderr_tail));
  }
  Ok(GitOutcome {
    text: out.stdout.text,
    truncated: out.stdout.truncated,
    duration: out.duration,
  })
}
