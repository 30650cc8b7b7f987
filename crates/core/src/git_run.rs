//! git as a child, with CodeGraph's rules: a description (`lib/contract/git.js` builds it: a
//! read-only subcommand from an allowlist, its arguments, caps, deadline) run as an argument
//! array in the workspace, `git` found on the absolute PATH entries outside the workspace (one
//! planted in the repository never runs), the quiet environment without the variables that point
//! git elsewhere, the C locale, stdout within the caps (no spill file), stderr's tail, the
//! deadline, cancel and the whole tree killed (`runner::run`). The settings that keep the
//! repository's own config and attributes from starting anything come first on the command line:
//! no hooks, no fsmonitor, no pager, no external diff, no textconv. The Node twin is
//! `lib/runners/node/git-run.js`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use crate::caps::{Caps, MIN_CAP_BYTES, MIN_CAP_LINES};
use crate::discovery::Launch;
use crate::env_snapshot::EnvSnapshot;
use crate::errors::{CodegraphError, GitProblem, GitReason, WorkspaceReason};
use crate::git_found::{find_git, GitFound};
use crate::runner::{run, Cancel, RunSpec};

/// The only subcommands a description may name: each reads, none writes the repository
/// (`worktree` only as [`WORKTREE_LIST`], the one form of it that reads).
pub const GIT_SUBCOMMANDS: [&str; 4] = ["diff", "ls-files", "rev-parse", "worktree"];
/// The arguments `worktree` must have, exactly: the list of the repository's worktrees.
pub const WORKTREE_LIST: [&str; 2] = ["list", "--porcelain"];
const MAX_GIT_ARGS: usize = 16;
const MAX_GIT_ARG_BYTES: usize = 512;
const MAX_GIT_TIMEOUT: Duration = Duration::from_mins(1);

#[cfg(not(windows))]
const NO_HOOKS: &str = "core.hooksPath=/dev/null";
#[cfg(windows)]
const NO_HOOKS: &str = "core.hooksPath=|no-hooks|";

/// What every run gets before its subcommand (ours come last among git's settings: they win).
const GIT_SAFETY: [&str; 14] = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  NO_HOOKS,
  "-c",
  "diff.external=",
  "-c",
  "core.quotePath=false",
  "-c",
  "core.untrackedCache=false",
  "-c",
  "color.ui=false",
  "--no-pager",
  "--no-optional-locks",
];
/// What `diff` always gets: no external diff, no textconv, no color, no renames, fixed prefixes.
const DIFF_SAFETY: [&str; 6] = [
  "--no-ext-diff",
  "--no-textconv",
  "--no-color",
  "--no-renames",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];
/// One git run as described.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitCommand {
  pub subcommand: String,
  pub args: Vec<String>,
  pub caps: Caps,
  pub timeout: Duration,
}

impl GitCommand {
  fn failed(&self, reason: GitReason) -> CodegraphError {
    CodegraphError::Git {
      subcommand: self.subcommand.chars().take(32).collect(),
      reason,
    }
  }

  /// The description's own rules; a malformed one is CODEGRAPH_GIT `invalid` and never runs.
  pub fn check(&self) -> Result<(), CodegraphError> {
    let bad = |problem| Err(self.failed(GitReason::Invalid { problem }));
    if !GIT_SUBCOMMANDS.contains(&self.subcommand.as_str()) {
      return bad(GitProblem::GitSubcommand);
    }
    let ok = |a: &String| {
      a.len() <= MAX_GIT_ARG_BYTES
        && !a.contains(['\0', '\n', '\r'])
        && (a == "HEAD"
          || (a.starts_with('-')
            && a
              .trim_start_matches('-')
              .starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            && a.len() - a.trim_start_matches('-').len() <= 2))
    };
    let listed = self.subcommand != "worktree" || self.args == WORKTREE_LIST;
    let options = self.subcommand == "worktree" || self.args.iter().all(ok);
    if self.args.len() > MAX_GIT_ARGS || !listed || !options {
      return bad(GitProblem::GitArgs);
    }
    let c = self.caps;
    if !(MIN_CAP_BYTES..=Caps::LARGEST.bytes).contains(&c.bytes)
      || !(MIN_CAP_LINES..=Caps::LARGEST.lines).contains(&c.lines)
    {
      return bad(GitProblem::Caps);
    }
    if self.timeout.is_zero() || self.timeout > MAX_GIT_TIMEOUT {
      return bad(GitProblem::TimeoutMs);
    }
    Ok(())
  }

  /// git's arguments: the safety settings, the subcommand, its safety, its arguments.
  pub fn argv(&self) -> Vec<OsString> {
    let mut argv: Vec<OsString> = GIT_SAFETY.iter().map(OsString::from).collect();
    argv.push(self.subcommand.clone().into());
    if self.subcommand == "diff" {
      argv.extend(DIFF_SAFETY.iter().map(OsString::from));
    }
    argv.extend(self.args.iter().map(OsString::from));
    argv
  }
}

/// What git printed: the text within the caps, whether they cut it, how long it ran.
#[derive(Debug)]
pub struct GitOutcome {
  pub text: String,
  pub truncated: bool,
  pub duration: Duration,
}

/// How a failed run reads, from its (C locale) stderr.
fn exit_reason(exit_code: i32, stderr_tail: String) -> GitReason {
  let s = stderr_tail.to_ascii_lowercase();
  if s.contains("not a git repository") {
    GitReason::NotRepository
  } else if s.contains("ambiguous argument 'head'")
    || s.contains("bad revision 'head'")
    || s.contains("unknown revision")
  {
    GitReason::NoHead
  } else if s.contains("dubious ownership") || s.contains("safe.directory") {
    GitReason::UnsafeOwner
  } else {
    GitReason::Exit {
      exit_code,
      stderr_tail,
    }
  }
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
  let found = tokio::task::spawn_blocking(move || find_git(&dir, &env))
    .await
    .map_err(|e| command.failed(GitReason::Spawn { os: e.to_string() }))?;
  let GitFound {
    home,
    git,
    skipped,
    vars,
  } = found;
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
  };
  let args = command.argv();
  let out = run(RunSpec {
    launch: &launch,
    args: &args,
    cwd: &home,
    env: &vars,
    timeout: command.timeout,
    deadline: started + command.timeout,
    cancel: Some(cancel),
    spill: None,
    caps: command.caps,
    progress: None,
  })
  .await
  .map_err(|e| match e {
    CodegraphError::Timeout { .. } => command.failed(GitReason::Timeout {
      timeout_ms: u64::try_from(command.timeout.as_millis()).unwrap_or(u64::MAX),
    }),
    e @ (CodegraphError::Cancelled { .. } | CodegraphError::Resources { .. }) => e,
    other => command.failed(GitReason::Spawn {
      os: other.code().as_str().to_owned(),
    }),
  })?;
  if !out.status.success() && !out.stopped_at_drain_limit() {
    let code = out.status.code().unwrap_or(-1);
    return Err(command.failed(exit_reason(code, out.stderr_tail)));
  }
  Ok(GitOutcome {
    text: out.stdout.text,
    truncated: out.stdout.truncated,
    duration: out.duration,
  })
}

#[cfg(test)]
mod tests;
