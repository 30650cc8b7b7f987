//! A git run as described (`lib/contract/git.js` builds the descriptions; src/args/git.rs reads
//! one out of JS for both builds): a read-only subcommand from an allowlist, arguments that are
//! options or `HEAD`, caps and a deadline; the argument array git runs with, its safety settings
//! first, so that the repository's own config and attributes can start nothing (no hooks, no
//! fsmonitor, no pager, no external diff, no textconv, paths unquoted); and what a run that did
//! not answer means. Running it is `git_run` (native) or the Node runner's (the WebAssembly build).

use std::ffi::OsString;
use std::time::Duration;

use crate::caps::{Caps, MIN_CAP_BYTES, MIN_CAP_LINES};
use crate::errors::{CodegraphError, GitProblem, GitReason};

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
  pub(crate) fn failed(&self, reason: GitReason) -> CodegraphError {
    invalid_git(&self.subcommand, reason)
  }

  /// What a run of this description that did not answer means (`code`: the runner's problem's
  /// code): a timeout or a failed start is CODEGRAPH_GIT; a cancel or a resource running out is
  /// the caller's to pass on as it is (None).
  pub fn run_failed(&self, code: &str) -> Option<CodegraphError> {
    match code {
      "CODEGRAPH_CANCELLED" | "CODEGRAPH_RESOURCES" => None,
      "CODEGRAPH_TIMEOUT" => Some(self.failed(GitReason::Timeout {
        timeout_ms: u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX),
      })),
      other => Some(self.failed(GitReason::Spawn {
        os: other.to_owned(),
      })),
    }
  }

  /// What a run of this description that exited non-zero means, from its (C locale) stderr.
  pub fn exited(&self, exit_code: i32, stderr_tail: String) -> CodegraphError {
    self.failed(exit_reason(exit_code, stderr_tail))
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

/// CODEGRAPH_GIT for the description of `subcommand` (its first 32 characters).
pub fn invalid_git(subcommand: &str, reason: GitReason) -> CodegraphError {
  CodegraphError::Git {
    subcommand: subcommand.chars().take(32).collect(),
    reason,
  }
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

#[cfg(test)]
mod tests;
