//! The native runner's side of what a non-zero exit meant (`exit_verdict.rs` decides it): the
//! signal that ended it named.

use crate::errors::CodegraphError;
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
