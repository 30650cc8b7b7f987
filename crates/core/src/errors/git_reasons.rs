//! Why a git run could not answer (CODEGRAPH_GIT's facts): the reasons of `crate::git_run`.

use std::path::PathBuf;

use serde::Serialize;

use super::lossy_opt;

/// What was wrong with a description (`GitCommand::check`, and src/args/git.rs as it reads one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase")]
pub enum GitProblem {
  /// Not a description of a git run (`program` is not "git").
  GitProgram,
  GitSubcommand,
  GitArgs,
  Caps,
  TimeoutMs,
}

/// Why git could not answer (CODEGRAPH_GIT's `reason`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum GitReason {
  /// No git on the absolute PATH entries outside the workspace; `skipped`: one inside it.
  NotFound {
    #[serde(serialize_with = "lossy_opt", skip_serializing_if = "Option::is_none")]
    skipped: Option<PathBuf>,
  },
  NotRepository,
  NoHead,
  UnsafeOwner,
  Exit {
    exit_code: i32,
    stderr_tail: String,
  },
  Timeout {
    timeout_ms: u64,
  },
  Spawn {
    os: String,
  },
  Invalid {
    problem: GitProblem,
  },
}
