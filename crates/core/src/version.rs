//! The CLI's version, recorded as diagnostics and never used to refuse a call, and never allowed
//! to delay an answer.
//!
//! Where the executable is npm's launcher, the version is read from the package's own
//! `package.json` (no process starts). Otherwise `codegraph --version` runs in the background,
//! bounded by the calling explore's deadline; its answer is cached per executable path and
//! concurrent first calls share one probe.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::OnceCell;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::child::{run, Cancel, RunBounds, RunSpec};
use crate::discovery::Launch;
use crate::errors::CodegraphError;

/// The longest a `--version` probe may run, whatever the caller's deadline.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

pub use crate::diagnosis::Version;

type Cell = Arc<OnceCell<Option<Version>>>;
type Cache = Mutex<HashMap<PathBuf, Cell>>;

fn cache() -> &'static Cache {
  static CACHE: OnceLock<Cache> = OnceLock::new();
  CACHE.get_or_init(Default::default)
}

fn cell_for(executable: &Path) -> Cell {
  cache()
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner)
    .entry(executable.to_path_buf())
    .or_default()
    .clone()
}

/// A version lookup under way for one call.
pub struct Probe {
  cell: Cell,
  task: Option<JoinHandle<()>>,
  /// Stops the probe through the runner's own cancel path, which kills and reaps the tree.
  stop: Cancel,
}

impl Probe {
  /// Starts finding the version of `launch`: at once from package metadata or the cache, else a
  /// background `--version` run that ends by `deadline` at the latest.
  pub fn start(
    launch: &Launch,
    cwd: &Path,
    env: &[(OsString, OsString)],
    deadline: Instant,
  ) -> Self {
    let cell = cell_for(launch.runs());
    if cell.initialized() {
      return Self::known(cell);
    }
    if let Some(text) = package_version(launch) {
      let _ = cell.set(Some(Version {
        text,
        source: "package.json",
      }));
      return Self::known(cell);
    }
    let (launch, cwd, env) = (launch.clone(), cwd.to_path_buf(), env.to_vec());
    let shared = cell.clone();
    let cancel = Cancel::default();
    let stop = cancel.clone();
    let task = tokio::spawn(async move {
      let full = Instant::now() + PROBE_TIMEOUT;
      let bound = deadline.min(full);
      // A probe cut short by the caller's deadline or a cancel caches nothing, so a later call
      // tries again; one that had its full time and did not answer is cached as unknown.
      let _ = shared
        .get_or_try_init(|| async {
          match probe(&launch, &cwd, &env, bound, cancel).await {
            Err(CodegraphError::Timeout { .. }) if bound == full => Ok(None),
            other => other,
          }
        })
        .await;
    });
    Self {
      cell,
      task: Some(task),
      stop,
    }
  }

  fn known(cell: Cell) -> Self {
    Self {
      cell,
      task: None,
      stop: Cancel::default(),
    }
  }

  /// The version if it is already known; never waits.
  pub fn now(&self) -> Option<Version> {
    self.cell.get().cloned().flatten()
  }

  /// Waits at most `wait` for the version.
  pub async fn within(&mut self, wait: Duration) -> Option<Version> {
    if let Some(task) = self.task.as_mut() {
      if crate::clock::timeout_at(Instant::now() + wait, task)
        .await
        .is_ok()
      {
        self.task = None;
      }
    }
    self.now()
  }

  /// The call failed, timed out or was cancelled: its probe must not outlive it. (After a
  /// successful answer the probe is left to finish within its deadline, to fill the cache.)
  pub fn stop(self) {
    if self.task.is_some() {
      self.stop.cancel();
    }
  }
}

async fn probe(
  launch: &Launch,
  cwd: &Path,
  env: &[(OsString, OsString)],
  deadline: Instant,
  cancel: Cancel,
) -> Result<Option<Version>, CodegraphError> {
  let args = ["--version".into()];
  let out = match run(RunSpec {
    launch,
    args: &args,
    cwd,
    env,
    bounds: RunBounds {
      timeout: PROBE_TIMEOUT,
      deadline,
      cancel: Some(cancel),
      spill: None,
      caps: crate::caps::Caps::MAX,
      progress: None,
    },
    background: true,
  })
  .await
  {
    Ok(out) => out,
    Err(e @ (CodegraphError::Timeout { .. } | CodegraphError::Cancelled { .. })) => return Err(e),
    Err(_) => return Ok(None),
  };
  let first = out
    .stdout
    .text
    .lines()
    .next()
    .unwrap_or("")
    .trim()
    .to_owned();
  Ok((out.exit.success() && !first.is_empty()).then(|| Version {
    text: first.chars().take(64).collect(),
    source: "--version",
  }))
}

pub use crate::ready::package_version;

#[cfg(test)]
mod tests;
