//! The checks that read the filesystem, as data ([`Check`]), answered off the async workers: a
//! `stat` on a hung mount must not hold a runtime thread, nor Pi's. Natively on tokio's blocking
//! pool. In the WebAssembly build by its host ([`set_asker`]), where the host's facts are (the
//! Node runner's worker thread, lib/runners/node/source-worker.js), which runs the same
//! [`answer`] and hands the answer back as JSON. Bounded by the call's deadline and cancel.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::child::Cancel;
use crate::clock::timer;
use crate::env_snapshot::EnvSnapshot;
use crate::errors::{CodegraphError, SpawnReason};
use crate::git_found::{find_git, GitFound};

/// A check, as the host is asked it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(
  tag = "check",
  rename_all = "camelCase",
  rename_all_fields = "camelCase"
)]
pub enum Check {
  /// Where git is for the workspace `dir`, and its environment ([`find_git`]).
  FindGit {
    dir: PathBuf,
    #[serde(with = "os_pairs")]
    env: Vec<(OsString, OsString)>,
  },
}

/// A check's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(
  tag = "answer",
  rename_all = "camelCase",
  rename_all_fields = "camelCase"
)]
pub enum Answer {
  Git {
    home: PathBuf,
    git: Option<PathBuf>,
    skipped: Option<PathBuf>,
    #[serde(with = "os_pairs")]
    vars: Vec<(OsString, OsString)>,
    /// Why the kernel would not execute git itself (the WebAssembly host's spawn would hand it
    /// to /bin/sh), when it would not.
    exec_refused: Option<String>,
  },
}

/// Runs `check` here, on the calling thread (with the host's facts installed, in the
/// WebAssembly build).
pub fn answer(check: Check) -> Answer {
  match check {
    Check::FindGit { dir, env } => {
      let GitFound {
        home,
        git,
        skipped,
        vars,
      } = find_git(&dir, &EnvSnapshot::from_vars(env));
      let exec_refused = git.as_deref().and_then(refused);
      Answer::Git {
        home,
        git,
        skipped,
        vars,
        exec_refused,
      }
    }
  }
}

/// Why the kernel would not execute `program` itself: judged where the host's spawn would hand
/// such a file to /bin/sh (the WebAssembly build's host, with its platform and access(2)).
#[cfg(target_family = "wasm")]
pub fn refused(program: &Path) -> Option<String> {
  use crate::host;
  let (platform, arch) = host::platform()?;
  let executable = |p: &Path| host::access(p, host::EXECUTE).is_ok();
  let judged = crate::exec_format::Host {
    platform: &platform,
    arch: &arch,
    executable: &executable,
  };
  crate::exec_format::problem(program, &judged)
}

/// Natively nothing is refused here: the spawn itself never hands a file to a shell.
#[cfg(not(target_family = "wasm"))]
pub fn refused(_program: &Path) -> Option<String> {
  None
}

/// `check` answered off the async workers, bounded by `deadline` and `cancel` (`timeout`: what a
/// CODEGRAPH_TIMEOUT reports).
pub async fn ask(
  check: Check,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> Result<Answer, CodegraphError> {
  tokio::select! {
    biased;
    () = cancel.notified() => Err(CodegraphError::cancelled()),
    () = timer(deadline) => Err(CodegraphError::Timeout {
      timeout_ms: timeout.as_millis() as u64,
      stderr_tail: String::new(),
      stalled: true,
      partial_bytes: 0,
      partial_text: String::new(),
      writer_seen: None,
    }),
    done = answered(check) => done,
  }
}

/// The checks' thread died, or the host could not answer: said as such.
fn checks_failed(text: String) -> CodegraphError {
  CodegraphError::Spawn {
    reason: SpawnReason::ChecksFailed { text },
  }
}

#[cfg(not(target_family = "wasm"))]
async fn answered(check: Check) -> Result<Answer, CodegraphError> {
  tokio::task::spawn_blocking(move || answer(check))
    .await
    .map_err(|e| match e.try_into_panic() {
      Ok(payload) => crate::resources::from_panic(payload.as_ref())
        .unwrap_or_else(|| checks_failed("the checks panicked".into())),
      Err(e) => checks_failed(e.to_string()),
    })
}

#[cfg(target_family = "wasm")]
async fn answered(check: Check) -> Result<Answer, CodegraphError> {
  let asker = ASKER
    .read()
    .unwrap_or_else(std::sync::PoisonError::into_inner)
    .clone();
  let Some(asker) = asker else {
    return Err(checks_failed("no host to answer the checks".into()));
  };
  let json = serde_json::to_string(&check).map_err(|e| checks_failed(e.to_string()))?;
  let (tx, rx) = tokio::sync::oneshot::channel();
  asker(json, tx);
  match rx.await {
    Ok(Ok(json)) => serde_json::from_str(&json).map_err(|e| checks_failed(e.to_string())),
    Ok(Err(text)) => Err(checks_failed(text)),
    Err(_) => Err(checks_failed("the host dropped the checks".into())),
  }
}

/// Asks the host a check (JSON) and sends its answer (JSON), or why there is none, once.
pub type AskFn = dyn Fn(String, tokio::sync::oneshot::Sender<Result<String, String>>) + Send + Sync;

#[cfg(target_family = "wasm")]
static ASKER: std::sync::RwLock<Option<std::sync::Arc<AskFn>>> = std::sync::RwLock::new(None);

/// Sets how the host is asked the checks (the WebAssembly build's addon sets it; natively the
/// checks run on tokio's blocking pool and this is not asked).
pub fn set_asker(ask: std::sync::Arc<AskFn>) {
  #[cfg(target_family = "wasm")]
  {
    *ASKER
      .write()
      .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(ask);
  }
  #[cfg(not(target_family = "wasm"))]
  drop(ask);
}

/// Names and values as strings: the WebAssembly build's come from JS strings (UTF-8), and the
/// answer goes back to the same build.
mod os_pairs {
  use std::ffi::OsString;

  use serde::{Deserialize, Deserializer, Serialize, Serializer};

  pub fn serialize<S: Serializer>(pairs: &[(OsString, OsString)], s: S) -> Result<S::Ok, S::Error> {
    let lossy: Vec<(String, String)> = pairs
      .iter()
      .map(|(k, v)| {
        (
          k.to_string_lossy().into_owned(),
          v.to_string_lossy().into_owned(),
        )
      })
      .collect();
    lossy.serialize(s)
  }

  pub fn deserialize<'de, D: Deserializer<'de>>(
    d: D,
  ) -> Result<Vec<(OsString, OsString)>, D::Error> {
    let pairs: Vec<(String, String)> = Vec::deserialize(d)?;
    Ok(
      pairs
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect(),
    )
  }
}
