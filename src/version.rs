//! `codegraph --version`, recorded as diagnostics and never used to refuse a call.
//!
//! Cached per process and per executable path; concurrent first calls share one probe.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::OnceCell;

use crate::discovery::Launch;
use crate::runner::{run, RunSpec};

const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

type Cache = Mutex<HashMap<PathBuf, Arc<OnceCell<Option<String>>>>>;

fn cache() -> &'static Cache {
  static CACHE: OnceLock<Cache> = OnceLock::new();
  CACHE.get_or_init(Default::default)
}

/// The CLI's version string, or `None` when it could not be read.
pub async fn cli_version(
  launch: &Launch,
  cwd: &Path,
  env: &[(std::ffi::OsString, std::ffi::OsString)],
) -> Option<String> {
  let cell = cache()
    .lock()
    .unwrap_or_else(|p| p.into_inner())
    .entry(launch.executable.clone())
    .or_default()
    .clone();
  cell
    .get_or_init(|| async {
      let args = ["--version".into()];
      let out = run(RunSpec {
        launch,
        args: &args,
        cwd,
        env,
        timeout: PROBE_TIMEOUT,
        cancel: None,
        spill_dir: None,
        progress: None,
      })
      .await
      .ok()?;
      let first = out.stdout.text.lines().next()?.trim().to_owned();
      (out.status.success() && !first.is_empty()).then(|| first.chars().take(64).collect())
    })
    .await
    .clone()
}
