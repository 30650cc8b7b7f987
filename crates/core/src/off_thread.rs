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

use crate::access::{index_blocked, workspace_blocked};
use crate::child::Cancel;
use crate::clock::timer;
use crate::command::Command;
use crate::diagnosis::{Diagnosis, ToProbe};
use crate::discovery::set_package_cli;
use crate::env_snapshot::EnvSnapshot;
use crate::errors::{CodegraphError, Relay, SpawnReason, Writer};
use crate::full_output::{find_place, NotKeptReason, SpillPlace};
use crate::git_found::{find_git, GitFound};
use crate::index_writer::{active_writer, interrupted_write, Interrupted};
use crate::ready::{self, Ready};

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
    #[serde(with = "crate::os_strings::pairs")]
    env: Vec<(OsString, OsString)>,
  },
  /// The checks before a run ([`ready::checks`]); `package_cli`: the CLI beside the package.
  Ready {
    command: Command,
    cwd: String,
    #[serde(with = "crate::os_strings::pairs")]
    env: Vec<(OsString, OsString)>,
    package_cli: Option<PathBuf>,
  },
  /// The writer at work on the index in `dir` now ([`active_writer`]).
  Writer { dir: PathBuf },
  /// The write the lock files in `dir` show never finished ([`interrupted_write`]).
  Interrupted { dir: PathBuf },
  /// Whether the workspace vanished or was locked ([`workspace_blocked`]), and with `index_dir`
  /// whether the index paths are accessible ([`index_blocked`]).
  Blocked {
    workspace: PathBuf,
    index_dir: Option<PathBuf>,
  },
  /// A diagnosis's survey of `cwd` ([`ready::survey`]) made a diagnosis.
  Survey {
    cwd: String,
    on_behalf_of: Option<PathBuf>,
    #[serde(with = "crate::os_strings::pairs")]
    env: Vec<(OsString, OsString)>,
    package_cli: Option<PathBuf>,
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
    #[serde(with = "crate::os_strings::pairs")]
    vars: Vec<(OsString, OsString)>,
    /// Why the kernel would not execute git itself (the WebAssembly host's spawn would hand it
    /// to /bin/sh), when it would not.
    exec_refused: Option<String>,
  },
  /// The checks' findings, and (the WebAssembly build's) where a cut answer's full output goes,
  /// found now where the host's facts are (natively it is found when first needed).
  Ready {
    ready: Box<Ready>,
    spill: Option<Result<SpillPlace, NotKeptReason>>,
  },
  Writer {
    writer: Option<Writer>,
  },
  /// A problem found (an unfinished write, a blocked workspace), or none.
  Problem {
    #[serde(with = "crate::errors::relay_option")]
    problem: Option<CodegraphError>,
  },
  Survey {
    diagnosis: Box<Diagnosis>,
    to_probe: Option<ToProbe>,
  },
  /// The check itself failed.
  Failed {
    error: Relay,
  },
}

impl Answer {
  fn failed(e: &CodegraphError) -> Self {
    Self::Failed { error: e.relay() }
  }
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
    Check::Ready {
      command,
      cwd,
      env,
      package_cli,
    } => {
      beside_package(package_cli);
      let env = EnvSnapshot::from_vars(env);
      match ready::checks(&command, &cwd, &env) {
        Ok(mut ready) => {
          ready.launch.exec_refused = refused(&ready.launch.program);
          let spill = cfg!(target_family = "wasm").then(|| {
            let tmpdir = env.get_set("TMPDIR").map(PathBuf::from);
            find_place(tmpdir.as_deref(), &ready.workspace)
          });
          Answer::Ready {
            ready: Box::new(ready),
            spill,
          }
        }
        Err(e) => Answer::failed(&e),
      }
    }
    Check::Writer { dir } => match active_writer(&dir) {
      Ok(writer) => Answer::Writer { writer },
      Err(e) => Answer::failed(&e),
    },
    Check::Interrupted { dir } => match interrupted_write(&dir) {
      Ok(found) => Answer::Problem {
        problem: found.map(Interrupted::error),
      },
      Err(e) => Answer::failed(&e),
    },
    Check::Blocked {
      workspace,
      index_dir,
    } => Answer::Problem {
      problem: match index_dir {
        Some(dir) => index_blocked(&workspace, &dir),
        None => workspace_blocked(&workspace),
      },
    },
    Check::Survey {
      cwd,
      on_behalf_of,
      env,
      package_cli,
    } => {
      beside_package(package_cli);
      let env = EnvSnapshot::from_vars(env);
      match ready::survey(&cwd, on_behalf_of.as_deref(), &env) {
        Ok(survey) => {
          let (diagnosis, mut to_probe) = Diagnosis::of(survey);
          if let Some(p) = to_probe.as_mut() {
            p.launch.exec_refused = refused(&p.launch.program);
          }
          Answer::Survey {
            diagnosis: Box::new(diagnosis),
            to_probe,
          }
        }
        Err(e) => Answer::failed(&e),
      }
    }
  }
}

/// The CLI beside the package as the caller's build knows it: natively the same process's
/// (already set), in the WebAssembly build's worker set from the check.
fn beside_package(package_cli: Option<PathBuf>) {
  if cfg!(target_family = "wasm") {
    set_package_cli(package_cli);
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
/// CODEGRAPH_TIMEOUT reports); a check that failed is its error.
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
    done = answered(check, deadline) => match done? {
      Answer::Failed { error } => Err(CodegraphError::relayed(error)),
      answer => Ok(answer),
    },
  }
}

/// An answer to another check than the one asked (a bug, or a host out of step with the core).
pub fn unexpected(answer: &Answer) -> CodegraphError {
  checks_failed(format!("an answer to another check: {answer:?}"))
}

/// The checks' thread died, or the host could not answer: said as such.
fn checks_failed(text: String) -> CodegraphError {
  CodegraphError::Spawn {
    reason: SpawnReason::ChecksFailed { text },
  }
}

#[cfg(not(target_family = "wasm"))]
async fn answered(check: Check, _deadline: Instant) -> Result<Answer, CodegraphError> {
  tokio::task::spawn_blocking(move || answer(check))
    .await
    .map_err(|e| {
      let text = e.to_string();
      match e.try_into_panic() {
        Ok(payload) => {
          crate::resources::from_panic(payload.as_ref()).unwrap_or_else(|| checks_failed(text))
        }
        Err(_) => checks_failed(text),
      }
    })
}

#[cfg(target_family = "wasm")]
async fn answered(check: Check, deadline: Instant) -> Result<Answer, CodegraphError> {
  let asker = ASKER
    .read()
    .unwrap_or_else(std::sync::PoisonError::into_inner)
    .clone();
  let Some(asker) = asker else {
    return Err(checks_failed("no host to answer the checks".into()));
  };
  let json = serde_json::to_string(&check).map_err(|e| checks_failed(e.to_string()))?;
  let (tx, rx) = tokio::sync::oneshot::channel();
  let left = deadline.saturating_duration_since(Instant::now());
  asker(json, left, tx);
  match rx.await {
    Ok(Ok(json)) => serde_json::from_str(&json).map_err(|e| checks_failed(e.to_string())),
    Ok(Err(Unanswered::Failed { code, text })) => {
      // Out of descriptors, memory or threads for the worker: a resource, said as one.
      let os = code.map(|code| crate::host::os_error(&code, &text));
      let exhausted =
        os.and_then(|e| crate::resources::exhausted(crate::errors::Step::AddonThread, &e));
      Err(exhausted.unwrap_or_else(|| checks_failed(text)))
    }
    // Held past its time (a stat on a hung mount) and ended with its worker: the call's own
    // deadline says so (CODEGRAPH_TIMEOUT, stalled), as natively.
    Ok(Err(Unanswered::Lost)) => std::future::pending().await,
    Err(_) => Err(checks_failed("the host dropped the checks".into())),
  }
}

/// Why the host gave no answer to a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unanswered {
  /// The host could not run it (its worker could not start): the OS error's code, when there is
  /// one (`EMFILE`, as Node names it), and its words.
  Failed { code: Option<String>, text: String },
  /// The host ended it with its worker, held past the time it had (a stat on a hung mount).
  Lost,
}

/// Asks the host a check (JSON), with the time it has, and sends its answer (JSON), or why there
/// is none, once.
pub type AskFn =
  dyn Fn(String, Duration, tokio::sync::oneshot::Sender<Result<String, Unanswered>>) + Send + Sync;

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
