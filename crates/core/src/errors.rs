//! Every way a CodeGraph command can fail: a stable code and the facts of the case. No words here: the
//! JS words module (lib/words/) builds every message and remediation from a code and its facts,
//! for the addon and the Node runner alike. Facts are typed (paths, pids, a tag for each kind of
//! reason, the OS's own text for an I/O error) and serialize, camelCase, into the `facts` object
//! the addon hands to JS; paths are raw (lossy UTF-8), since shortening them for a message is
//! words too.
//!
//! The codes are the public contract: JS callers and the model branch on them, so a variant's
//! code never changes once released.

use std::path::PathBuf;

use serde::{Serialize, Serializer};

/// A path as a fact: lossy UTF-8 (a non-UTF-8 name still reaches the message, as U+FFFD).
#[allow(clippy::ptr_arg)] // serde hands over the field itself
pub(crate) fn lossy<S: Serializer>(p: &PathBuf, s: S) -> Result<S::Ok, S::Error> {
  s.serialize_str(&p.to_string_lossy())
}

#[allow(clippy::ref_option)] // serde hands over the field itself
pub(crate) fn lossy_opt<S: Serializer>(p: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
  match p {
    Some(p) => s.serialize_str(&p.to_string_lossy()),
    None => s.serialize_none(),
  }
}

/// The OS's own text for an I/O error, as a fact (one line, as `io::Error` displays it).
pub fn os_text(e: &std::io::Error) -> String {
  let text = e.to_string();
  // The WebAssembly build's numbers are WASI's (EACCES is 2 there): its text keeps only the words.
  #[cfg(target_family = "wasm")]
  if let Some(at) = text.find(" (os error ") {
    return text[..at].to_owned();
  }
  text
}

mod facts;
mod git_reasons;
mod reasons;
pub use facts::{Outside, Resource, Writer};
pub use git_reasons::*;
pub use reasons::*;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum CodegraphError {
  InvalidRequest {
    reason: RequestReason,
  },
  InvalidOptions {
    reason: OptionsReason,
  },
  Workspace {
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    /// This user may not read or enter it (EACCES/EPERM): a permissions remediation.
    denied: bool,
    reason: WorkspaceReason,
  },
  NotFound {
    reason: NotFoundReason,
  },
  NoIndex {
    /// The workspace.
    #[serde(serialize_with = "lossy")]
    path: PathBuf,
    kind: NoIndexKind,
    /// Boxed: its paths would make every `Result<_, CodegraphError>` large (Windows paths are 32
    /// bytes).
    reason: Box<NoIndexReason>,
  },
  IndexReadOnly {
    #[serde(serialize_with = "lossy")]
    dir: PathBuf,
    cause: Access,
    /// Boxed, as `NoIndex`'s reason.
    reason: Box<ReadOnlyReason>,
  },
  IndexBusy {
    /// The lock file that names the writer.
    #[serde(serialize_with = "lossy")]
    lock: PathBuf,
    /// 0: no lock yet, the database is only being created.
    pid: u32,
    rebuild: bool,
    /// Set when `pid` runs nowhere in this pid namespace and the writer may live outside it.
    #[serde(skip_serializing_if = "Option::is_none")]
    outside: Option<Outside>,
    /// How long this call waited for the writer to finish.
    waited_ms: u64,
  },
  /// The last write of the index never finished (a `codegraph.lock` naming a process that is
  /// gone: CodeGraph was stopped mid-write), so the index may hold only part of the project.
  IndexInterrupted {
    /// The stale lock.
    #[serde(serialize_with = "lossy")]
    lock: PathBuf,
    /// The process it names, no longer running.
    pid: u32,
    /// A rebuild's `rebuild.pid`, as stale, is beside it: a rebuild was interrupted.
    rebuild: bool,
  },
  Spawn {
    reason: SpawnReason,
  },
  Resources {
    resource: Resource,
    step: Step,
    /// The OS's (or the panic's) own text.
    os: String,
  },
  Exit {
    #[serde(rename = "exitCode")]
    code: Option<i32>,
    signal: Option<i32>,
    /// The usual name of `signal`, when it has one.
    signal_name: Option<&'static str>,
    /// The end of stderr: clean and bounded, NOT redacted (the words module redacts it).
    stderr_tail: String,
    /// The start of stdout when it is not blank (shown when stderr said nothing), unredacted.
    stdout_excerpt: Option<String>,
  },
  Timeout {
    timeout_ms: u64,
    /// Unredacted, as for `Exit`.
    stderr_tail: String,
    /// The workspace checks, not the CLI, were still running.
    stalled: bool,
    partial_bytes: u64,
    /// What the CLI had printed, within the output caps (for `details.partialText`).
    partial_text: String,
    /// The CodeGraph writer active on the index when the call timed out (read again at that
    /// moment, by `index_writer`'s rules), or None: no writer, or the checks never found the
    /// index. Boxed, as `NoIndex`'s reason.
    writer_seen: Option<Box<Writer>>,
  },
  Cancelled {
    partial_bytes: u64,
    partial_text: String,
  },
  /// git could not say what changed (`git_run`): which subcommand, and why.
  Git {
    subcommand: String,
    reason: GitReason,
  },
  /// Any of the above as the WebAssembly build's worker found it and handed it back
  /// (`off_thread`): its code and its facts, carried as they are.
  Relayed {
    code: ErrorCode,
    facts: serde_json::Value,
  },
}

impl CodegraphError {
  /// CODEGRAPH_CANCELLED before anything was printed.
  pub fn cancelled() -> Self {
    Self::Cancelled {
      partial_bytes: 0,
      partial_text: String::new(),
    }
  }

  /// The facts as JSON, for the JS words module (`facts` on the addon's rejection).
  pub fn facts(&self) -> serde_json::Value {
    if let Self::Relayed { facts, .. } = self {
      return facts.clone();
    }
    // Every field serializes (strings, numbers, tags); a failure would be a bug.
    serde_json::to_value(self).unwrap_or_default()
  }

  /// The error as its code and facts, to be handed to another build of the core ([`Self::relayed`]).
  pub fn relay(&self) -> Relay {
    Relay {
      code: self.code(),
      facts: self.facts(),
    }
  }

  /// The error another build of the core found, from its code and facts.
  pub fn relayed(relay: Relay) -> Self {
    Self::Relayed {
      code: relay.code,
      facts: relay.facts,
    }
  }
}

/// The stable machine-readable codes, one per [`CodegraphError`] variant. The addon mirrors them
/// as a JS string enum; [`ErrorCode::as_str`] is the text both use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub enum ErrorCode {
  InvalidRequest,
  InvalidOptions,
  Workspace,
  NotFound,
  NoIndex,
  IndexReadOnly,
  IndexBusy,
  IndexInterrupted,
  Spawn,
  Resources,
  Exit,
  Timeout,
  Cancelled,
  Git,
}

impl ErrorCode {
  /// The code as JS and the model see it.
  pub fn as_str(self) -> &'static str {
    match self {
      Self::InvalidRequest => "CODEGRAPH_INVALID_REQUEST",
      Self::InvalidOptions => "CODEGRAPH_INVALID_OPTIONS",
      Self::Workspace => "CODEGRAPH_WORKSPACE",
      Self::NotFound => "CODEGRAPH_NOT_FOUND",
      Self::NoIndex => "CODEGRAPH_NO_INDEX",
      Self::IndexReadOnly => "CODEGRAPH_INDEX_READONLY",
      Self::IndexBusy => "CODEGRAPH_INDEX_BUSY",
      Self::IndexInterrupted => "CODEGRAPH_INDEX_INTERRUPTED",
      Self::Spawn => "CODEGRAPH_SPAWN",
      Self::Resources => "CODEGRAPH_RESOURCES",
      Self::Exit => "CODEGRAPH_EXIT",
      Self::Timeout => "CODEGRAPH_TIMEOUT",
      Self::Cancelled => "CODEGRAPH_CANCELLED",
      Self::Git => "CODEGRAPH_GIT",
    }
  }
}

impl std::fmt::Display for ErrorCode {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    f.write_str(self.as_str())
  }
}

impl CodegraphError {
  /// The stable machine-readable code, also the JS `error.code`.
  pub fn code(&self) -> ErrorCode {
    match self {
      Self::InvalidRequest { .. } => ErrorCode::InvalidRequest,
      Self::InvalidOptions { .. } => ErrorCode::InvalidOptions,
      Self::Workspace { .. } => ErrorCode::Workspace,
      Self::NotFound { .. } => ErrorCode::NotFound,
      Self::NoIndex { .. } => ErrorCode::NoIndex,
      Self::IndexReadOnly { .. } => ErrorCode::IndexReadOnly,
      Self::IndexBusy { .. } => ErrorCode::IndexBusy,
      Self::IndexInterrupted { .. } => ErrorCode::IndexInterrupted,
      Self::Spawn { .. } => ErrorCode::Spawn,
      Self::Resources { .. } => ErrorCode::Resources,
      Self::Exit { .. } => ErrorCode::Exit,
      Self::Timeout { .. } => ErrorCode::Timeout,
      Self::Cancelled { .. } => ErrorCode::Cancelled,
      Self::Git { .. } => ErrorCode::Git,
      Self::Relayed { code, .. } => *code,
    }
  }
}

/// An error as its code and facts, as one build of the core hands it to another (`off_thread`).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Relay {
  pub code: ErrorCode,
  pub facts: serde_json::Value,
}

/// `Option<CodegraphError>` as a [`Relay`], for a serde `with`.
pub mod relay_option {
  use serde::{Deserialize, Deserializer, Serialize, Serializer};

  use super::{CodegraphError, Relay};

  pub fn serialize<S: Serializer>(e: &Option<CodegraphError>, s: S) -> Result<S::Ok, S::Error> {
    e.as_ref().map(CodegraphError::relay).serialize(s)
  }

  pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<CodegraphError>, D::Error> {
    Ok(Option::<Relay>::deserialize(d)?.map(CodegraphError::relayed))
  }
}

#[cfg(test)]
mod tests;
