//! Every way an explore can fail, each with a stable code and a one-line remediation.
//!
//! The codes are the public contract: JS callers and the model branch on them, so a variant's
//! code never changes once released. Messages stay short and bounded; the stderr tail is the only
//! CLI-provided text that reaches them, and it is already capped by `limits`.

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ExploreError {
  #[error("the Explore request is invalid: {reason}")]
  InvalidRequest { reason: String },

  #[error("the explore options are invalid: {reason}")]
  InvalidOptions { reason: String },

  #[error("the workspace {path:?} is not usable: {reason}")]
  Workspace { path: PathBuf, reason: String },

  #[error("the CodeGraph CLI was not found: {reason}")]
  NotFound { reason: String },

  #[error("this workspace has no CodeGraph index: {reason}")]
  NoIndex { path: PathBuf, reason: String },

  #[error("codegraph could not be started: {reason}")]
  Spawn { reason: String },

  #[error("codegraph explore {how}")]
  Exit {
    how: String,
    code: Option<i32>,
    signal: Option<i32>,
    stderr_tail: String,
  },

  #[error("codegraph explore did not finish within {timeout_ms} ms and was stopped")]
  Timeout {
    timeout_ms: u64,
    stderr_tail: String,
  },

  #[error("the explore was cancelled and codegraph was stopped")]
  Cancelled,
}

impl ExploreError {
  /// The stable machine-readable code, also the JS `error.code`.
  pub fn code(&self) -> &'static str {
    match self {
      Self::InvalidRequest { .. } => "CODEGRAPH_INVALID_REQUEST",
      Self::InvalidOptions { .. } => "CODEGRAPH_INVALID_OPTIONS",
      Self::Workspace { .. } => "CODEGRAPH_WORKSPACE",
      Self::NotFound { .. } => "CODEGRAPH_NOT_FOUND",
      Self::NoIndex { .. } => "CODEGRAPH_NO_INDEX",
      Self::Spawn { .. } => "CODEGRAPH_SPAWN",
      Self::Exit { .. } => "CODEGRAPH_EXIT",
      Self::Timeout { .. } => "CODEGRAPH_TIMEOUT",
      Self::Cancelled => "CODEGRAPH_CANCELLED",
    }
  }

  /// What the user (or the model, on the user's behalf) can do about it, in one line.
  pub fn remediation(&self) -> String {
    match self {
      Self::InvalidRequest { .. } => {
        "Send one non-empty natural-language question of at most 10,000 characters, without NUL bytes.".into()
      }
      Self::InvalidOptions { .. } => {
        "Pass options as { timeoutMs?: milliseconds, onProgress?: function } and the signal as an AbortSignal, or leave them out.".into()
      }
      Self::Workspace { .. } => {
        "Start Pi in an existing project directory; codegraph_explore only runs in Pi's active workspace.".into()
      }
      Self::NotFound { .. } => {
        "Install the CodeGraph CLI (npm install -g @colbymchenry/codegraph) and make sure `codegraph` is on PATH, or set PI_CODEGRAPH_BIN to its absolute path.".into()
      }
      Self::NoIndex { path, .. } => format!(
        "Run `codegraph init` in {} yourself; pi-codegraph never creates, syncs or repairs the index.",
        path.display()
      ),
      Self::Spawn { .. } => {
        "Check that the codegraph executable is a runnable program and that the workspace is readable.".into()
      }
      Self::Exit { .. } => {
        "Read the stderr tail below; run the same `codegraph explore` in the workspace to reproduce it.".into()
      }
      Self::Timeout { .. } => {
        "Ask a narrower question that names concrete symbols or files, or check the index with `codegraph status`.".into()
      }
      Self::Cancelled => "Nothing to fix: the request was cancelled before codegraph answered.".into(),
    }
  }

  /// The full, self-contained message: Pi hands only `error.message` to the model, so the code and
  /// the remediation have to be in it.
  pub fn message(&self) -> String {
    let mut msg = format!(
      "{}: {}.\nRemediation: {}",
      self.code(),
      self,
      self.remediation()
    );
    match self {
      Self::Exit { stderr_tail, .. } if stderr_tail.trim().is_empty() => {
        msg.push_str("\nstderr: (empty)")
      }
      // What a stuck CLI said before it was stopped is often the reason (a lock, a prompt).
      Self::Exit { stderr_tail, .. } | Self::Timeout { stderr_tail, .. }
        if !stderr_tail.trim().is_empty() =>
      {
        msg.push_str("\nstderr (last 4 KB):\n");
        msg.push_str(stderr_tail.trim_end());
      }
      _ => {}
    }
    msg
  }
}
