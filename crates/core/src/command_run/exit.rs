//! What a failed run meant, as `command_run` reads it (`exit_verdict.rs` decides an exit), in both
//! builds: the verdict on a non-zero exit, and whether a failure came after the CLI started.

use crate::errors::{CodegraphError, SpawnReason, Step};
use crate::exit_verdict::{self, Exited};
use crate::preflight::IndexFound;

/// The CLI said it could not open (or find, or write) its database ([`exit_verdict::says_cannot_open`]).
pub(super) fn says_cannot_open(out: &crate::child::RunOutput) -> bool {
  exit_verdict::says_cannot_open(&out.stderr_tail)
}

/// What a failed run means ([`exit_verdict::classify_exit`]).
pub(super) fn classify_exit(
  out: &crate::child::RunOutput,
  workspace: &std::path::Path,
  index: &IndexFound,
  blocked: Option<CodegraphError>,
) -> CodegraphError {
  let exited = Exited {
    code: out.exit.code,
    signal: out.exit.signal,
    signal_name: out.exit.signal_name,
    stderr_tail: &out.stderr_tail,
    stdout_text: &out.stdout.text,
  };
  exit_verdict::classify_exit(&exited, workspace, &index.dir, blocked)
}

/// Whether an error of `child::run` came after the CLI was started (a failed spawn did not).
pub(super) fn cli_started(e: &CodegraphError) -> bool {
  matches!(
    e,
    CodegraphError::Timeout { .. }
      | CodegraphError::Cancelled { .. }
      | CodegraphError::Spawn {
        reason: SpawnReason::Wait { .. }
      }
      | CodegraphError::Resources {
        step: Step::WaitCli,
        ..
      }
  )
}
