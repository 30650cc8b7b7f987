//! Shared by the runner's integration tests: a fake CLI (a `/bin/sh` script in a temp dir), a
//! `RunSpec` for it, and bounded polls on pid files and processes. No sleep stands in for
//! synchronisation: a test waits for a condition, with a deadline.
#![allow(dead_code)] // each test file uses its own part

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pi_codegraph_core::child::{run, Cancel, RunBounds, RunOutput, RunSpec};
use pi_codegraph_core::discovery::{launch_for, Launch};
use pi_codegraph_core::env_snapshot::EnvSnapshot;
use pi_codegraph_core::errors::{CodegraphError, SpawnReason};
use tempfile::TempDir;

/// How long any condition may take before a test fails instead of hanging.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// A fake CLI: `script` is the body of a `/bin/sh` script; `$1` is the scratch directory.
pub struct FakeCli {
  pub dir: TempDir,
  pub launch: Launch,
}

impl FakeCli {
  pub fn new(script: &str) -> Self {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("codegraph");
    std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).expect("script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let launch = launch_for(path, &EnvSnapshot::default(), false, &|_| true);
    Self { dir, launch }
  }

  /// A file in the scratch directory (the script sees the directory as `$1`).
  pub fn file(&self, name: &str) -> PathBuf {
    self.dir.path().join(name)
  }

  /// Runs the script with `timeout` and an optional cancel; no spill, no progress.
  ///
  /// A start refused with ETXTBSY is tried again (bounded): the script was just written, and a
  /// process another test forks at that moment holds its write descriptor until it execs, which
  /// makes exec fail with "Text file busy" (where std forks rather than spawns: musl). Nothing
  /// ran, so trying again changes no outcome a test looks at.
  pub async fn run(
    &self,
    timeout: Duration,
    cancel: Option<Cancel>,
  ) -> Result<RunOutput, CodegraphError> {
    let args: Vec<OsString> = vec![self.dir.path().into()];
    let env: Vec<(OsString, OsString)> = vec![("PATH".into(), "/usr/bin:/bin".into())];
    let start = Instant::now();
    loop {
      let result = run(RunSpec {
        launch: &self.launch,
        args: &args,
        cwd: self.dir.path(),
        env: &env,
        bounds: RunBounds {
          timeout,
          deadline: tokio::time::Instant::now() + timeout,
          cancel: cancel.clone(),
          spill: None,
          caps: pi_codegraph_core::caps::Caps::MAX,
          progress: None,
        },
        background: false,
      })
      .await;
      if !text_file_busy(&result) || start.elapsed() >= PATIENCE {
        return result;
      }
      tokio::time::sleep(Duration::from_millis(10)).await;
    }
  }
}

/// Whether a run failed to start because its executable was busy (ETXTBSY, errno 26).
fn text_file_busy(result: &Result<RunOutput, CodegraphError>) -> bool {
  matches!(
    result,
    Err(CodegraphError::Spawn { reason: SpawnReason::Other { os, .. } }) if os.contains("os error 26")
  )
}

/// Polls `condition` every 10 ms until it holds; panics after [`PATIENCE`].
pub async fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
  let start = Instant::now();
  while !condition() {
    assert!(start.elapsed() < PATIENCE, "timed out waiting until {what}");
    tokio::time::sleep(Duration::from_millis(10)).await;
  }
}

/// The pid a script wrote into `file`, once it is there.
pub async fn pid_in(file: &Path) -> i32 {
  let mut pid = None;
  wait_until(&format!("{} holds a pid", file.display()), || {
    pid = std::fs::read_to_string(file)
      .ok()
      .and_then(|s| s.trim().parse().ok());
    pid.is_some()
  })
  .await;
  pid.expect("a pid")
}

/// True once `pid` has exited: gone, or a zombie nobody reaped yet (a container's pid 1 may
/// never reap an orphan).
pub fn gone(pid: i32) -> bool {
  if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
    return stat
      .rfind(')')
      .and_then(|i| stat[i + 1..].split_whitespace().next())
      .is_some_and(|state| state == "Z" || state == "X");
  }
  // SAFETY: signal 0 delivers nothing; it only asks whether the process exists.
  let alive = unsafe { libc::kill(pid, 0) } == 0;
  !alive
}

/// Waits (bounded) until `pid` has exited.
pub async fn assert_gone(pid: i32, what: &str) {
  wait_until(&format!("{what} (pid {pid}) is gone"), || gone(pid)).await;
}

/// Runs `cli` (30 s timeout) and cancels it once the pid the script writes to `pid_file` is
/// there, i.e. once the process to be stopped demonstrably runs. Returns the run's error and
/// that pid.
pub async fn cancel_once_running(cli: &FakeCli, pid_file: &str) -> (CodegraphError, i32) {
  let cancel = Cancel::default();
  let trigger = cancel.clone();
  let pid_file = cli.file(pid_file);
  let canceller = tokio::spawn(async move {
    let pid = pid_in(&pid_file).await;
    trigger.cancel();
    pid
  });
  let err = cli
    .run(Duration::from_secs(30), Some(cancel))
    .await
    .expect_err("a cancelled run fails");
  (err, canceller.await.expect("the canceller ran"))
}
