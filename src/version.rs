//! The CLI's version, recorded as diagnostics and never used to refuse a call, and never allowed
//! to delay an answer.
//!
//! Where the executable is npm's launcher, the version is read from the package's own
//! `package.json` (no process starts). Otherwise `codegraph --version` runs in the background,
//! bounded by the calling explore's deadline; its answer is cached per executable path and
//! concurrent first calls share one probe.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::OnceCell;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::discovery::Launch;
use crate::runner::{run, RunSpec};

/// The longest a `--version` probe may run, whatever the caller's deadline.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// CodeGraph's npm package: its `package.json` sits beside the `npm-shim.js` launcher.
const PACKAGE_NAME: &str = "@colbymchenry/codegraph";
/// A package.json larger than this is not CodeGraph's.
const MAX_PACKAGE_JSON_BYTES: u64 = 256 * 1024;

type Cache = Mutex<HashMap<PathBuf, Arc<OnceCell<Option<String>>>>>;

fn cache() -> &'static Cache {
  static CACHE: OnceLock<Cache> = OnceLock::new();
  CACHE.get_or_init(Default::default)
}

fn cell_for(executable: &Path) -> Arc<OnceCell<Option<String>>> {
  cache()
    .lock()
    .unwrap_or_else(|p| p.into_inner())
    .entry(executable.to_path_buf())
    .or_default()
    .clone()
}

/// A version lookup under way for one call.
pub struct Probe {
  cell: Arc<OnceCell<Option<String>>>,
  task: Option<JoinHandle<()>>,
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
    let cell = cell_for(&launch.executable);
    if cell.initialized() {
      return Self { cell, task: None };
    }
    if let Some(v) = package_version(&launch.executable) {
      let _ = cell.set(Some(v));
      return Self { cell, task: None };
    }
    let (launch, cwd, env) = (launch.clone(), cwd.to_path_buf(), env.to_vec());
    let shared = cell.clone();
    let task = tokio::spawn(async move {
      let bound = deadline.min(Instant::now() + PROBE_TIMEOUT);
      shared
        .get_or_init(|| probe(&launch, &cwd, &env, bound))
        .await;
    });
    Self {
      cell,
      task: Some(task),
    }
  }

  /// The version if it is already known; never waits.
  pub fn now(&self) -> Option<String> {
    self.cell.get().cloned().flatten()
  }

  /// Waits at most `wait` for the version.
  pub async fn within(&mut self, wait: Duration) -> Option<String> {
    if let Some(task) = self.task.as_mut() {
      if tokio::time::timeout(wait, task).await.is_ok() {
        self.task = None;
      }
    }
    self.now()
  }

  /// The call failed, timed out or was cancelled: its probe must not outlive it. (After a
  /// successful answer the probe is left to finish within its deadline, to fill the cache.)
  pub fn stop(self) {
    if let Some(task) = self.task {
      task.abort();
    }
  }
}

async fn probe(
  launch: &Launch,
  cwd: &Path,
  env: &[(OsString, OsString)],
  deadline: Instant,
) -> Option<String> {
  let args = ["--version".into()];
  let out = run(RunSpec {
    launch,
    args: &args,
    cwd,
    env,
    timeout: PROBE_TIMEOUT,
    deadline,
    cancel: None,
    spill: None,
    progress: None,
  })
  .await
  .ok()?;
  let first = out.stdout.text.lines().next()?.trim().to_owned();
  (out.status.success() && !first.is_empty()).then(|| first.chars().take(64).collect())
}

/// The version in CodeGraph's own `package.json`, when `executable` resolves to the npm
/// package's launcher (`<pkg>/npm-shim.js`, linked from `node_modules/.bin` or a global bin).
pub fn package_version(executable: &Path) -> Option<String> {
  let real = executable.canonicalize().ok()?;
  let dir = real.parent()?;
  let manifest = dir.join("package.json");
  let meta = std::fs::metadata(&manifest).ok()?;
  if !meta.is_file() || meta.len() > MAX_PACKAGE_JSON_BYTES {
    return None;
  }
  let mut text = String::new();
  std::fs::File::open(&manifest)
    .ok()?
    .take(MAX_PACKAGE_JSON_BYTES)
    .read_to_string(&mut text)
    .ok()?;
  #[derive(serde::Deserialize)]
  struct Manifest {
    name: Option<String>,
    version: Option<String>,
    bin: Option<serde_json::Value>,
  }
  let m: Manifest = serde_json::from_str(&text).ok()?;
  if m.name.as_deref() != Some(PACKAGE_NAME) {
    return None;
  }
  // Only when the executable is the package's declared `codegraph` bin.
  let bin = m.bin?;
  let declared = bin.get("codegraph").and_then(|v| v.as_str())?;
  if dir.join(declared).canonicalize().ok()? != real {
    return None;
  }
  m.version.filter(|v| !v.is_empty() && v.len() <= 64)
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn version_from_the_npm_package_only_for_its_own_bin() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("node_modules/@colbymchenry/codegraph");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("npm-shim.js"), "").unwrap();
    std::fs::write(pkg.join("other.js"), "").unwrap();
    std::fs::write(
      pkg.join("package.json"),
      r#"{"name":"@colbymchenry/codegraph","version":"1.6.1","bin":{"codegraph":"npm-shim.js"}}"#,
    )
    .unwrap();
    assert_eq!(
      package_version(&pkg.join("npm-shim.js")).as_deref(),
      Some("1.6.1")
    );
    assert_eq!(package_version(&pkg.join("other.js")), None);
    std::fs::write(
      pkg.join("package.json"),
      r#"{"name":"someone-else","version":"6.6.6","bin":{"codegraph":"npm-shim.js"}}"#,
    )
    .unwrap();
    assert_eq!(package_version(&pkg.join("npm-shim.js")), None);
  }
}
