//! Where a call's time went (`command_run::Times`, and a failure's `duration`/`lock_wait`/`run`), and
//! whether CodeGraph was writing the index when a call timed out (`writer_seen`), through the
//! whole `command_run::run_command` on a fake `/bin/sh` CLI in an indexed workspace.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use pi_codegraph_core::child::Cancel;
use pi_codegraph_core::command::Command;
use pi_codegraph_core::command_run::{self, Failure, Outcome};
use pi_codegraph_core::env_snapshot::EnvSnapshot;
use pi_codegraph_core::errors::{CodegraphError, ErrorCode};
use tempfile::TempDir;

/// A workspace with an index CodeGraph finished (a SQLite header, more than one page).
fn workspace() -> TempDir {
  let ws = tempfile::tempdir().expect("workspace");
  let dir = ws.path().join(".codegraph");
  std::fs::create_dir(&dir).expect(".codegraph");
  let mut db = b"SQLite format 3\0".to_vec();
  db.resize(8192, 7);
  std::fs::write(dir.join("codegraph.db"), db).expect("codegraph.db");
  ws
}

fn lock(ws: &Path) -> PathBuf {
  ws.join(".codegraph").join("codegraph.lock")
}

/// A fake `codegraph` running `script` for the command (its `--version` probe only answers).
fn fake(script: &str) -> TempDir {
  use std::os::unix::fs::PermissionsExt;
  let dir = tempfile::tempdir().expect("bin dir");
  let path = dir.path().join("codegraph");
  let body = format!("#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 1.0.0; exit 0; }}\n{script}\n");
  std::fs::write(&path, body).expect("script");
  std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
  dir
}

async fn explore_with(
  bin: &TempDir,
  ws: &TempDir,
  timeout: Duration,
) -> Result<Outcome, Box<(CodegraphError, Failure)>> {
  let exe = bin.path().join("codegraph");
  let env = EnvSnapshot::from_pairs(&[
    ("PATH", "/usr/bin:/bin"),
    ("PI_CODEGRAPH_BIN", exe.to_str().expect("a UTF-8 temp path")),
  ]);
  command_run::run_command(
    Command::explore("q".into()),
    ws.path().to_string_lossy().into_owned(),
    env,
    timeout,
    Cancel::default(),
    None,
    tokio::time::Instant::now(),
  )
  .await
}

#[tokio::test]
async fn an_answer_without_a_writer_waited_for_none_and_its_run_is_part_of_the_call() {
  let ws = workspace();
  let bin = fake("sleep 0.2; echo answer");
  let started = std::time::Instant::now();
  let out = explore_with(&bin, &ws, Duration::from_secs(20))
    .await
    .expect("answered");
  let t = out.times;
  assert_eq!(t.lock_wait, Duration::ZERO);
  assert!(t.run >= Duration::from_millis(200), "{t:?}");
  assert!(t.duration >= t.lock_wait + t.run, "{t:?}");
  assert!(t.duration <= started.elapsed(), "{t:?}");
}

#[tokio::test]
async fn a_busy_index_reports_its_wait_as_the_lock_wait_and_no_run() {
  let ws = workspace();
  // This test's own process stands in for CodeGraph's writer: it lives throughout.
  std::fs::write(lock(ws.path()), std::process::id().to_string()).expect("lock");
  let bin = fake("echo must-not-run");
  let failed = explore_with(&bin, &ws, Duration::from_millis(400))
    .await
    .expect_err("busy");
  let (err, failure) = *failed;
  let CodegraphError::IndexBusy { waited_ms, pid, .. } = err else {
    panic!("not busy: {err:?}");
  };
  assert_eq!(pid, std::process::id());
  // The wait lasts until the deadline, less the checks before it (slow under qemu-user).
  assert!(waited_ms > 0, "waited {waited_ms} ms");
  assert_eq!(failure.lock_wait, Some(Duration::from_millis(waited_ms)));
  assert_eq!(failure.run, None, "the CLI never ran");
  let duration = failure.duration.expect("a failure's duration");
  assert!(duration >= Duration::from_millis(waited_ms), "{duration:?}");
  assert!(
    duration >= Duration::from_millis(400),
    "gave up at the deadline: {duration:?}"
  );
}

#[tokio::test]
async fn a_timeout_while_codegraph_writes_names_the_writer_seen_then() {
  let ws = workspace();
  let lock = lock(ws.path());
  // A writer (this test's process) takes the lock while the CLI runs, as a `codegraph sync`
  // started beside it would.
  let script = format!(
    "echo {} > '{}'; echo partial; exec sleep 30",
    std::process::id(),
    lock.display()
  );
  let bin = fake(&script);
  let failed = explore_with(&bin, &ws, Duration::from_millis(1500))
    .await
    .expect_err("timed out");
  let (err, failure) = *failed;
  let CodegraphError::Timeout { writer_seen, .. } = &err else {
    panic!("not a timeout: {err:?}");
  };
  let writer = writer_seen.as_deref().expect("the writer was seen");
  assert_eq!(writer.pid, std::process::id());
  assert_eq!(writer.lock, lock);
  assert!(!writer.rebuild);
  assert_eq!(err.facts()["writerSeen"]["pid"], std::process::id());
  assert_eq!(
    failure.lock_wait,
    Some(Duration::ZERO),
    "no writer before the run"
  );
  let run = failure.run.expect("the CLI ran");
  assert!(run > Duration::ZERO, "{run:?}");
  // The run ends at the deadline; how much of the 1.5 s the checks took varies (qemu-user).
  let duration = failure.duration.expect("a duration");
  assert!(
    duration >= run && duration >= Duration::from_millis(1500),
    "{duration:?} {run:?}"
  );
}

#[tokio::test]
async fn a_timeout_without_a_writer_says_none_was_seen() {
  let ws = workspace();
  let bin = fake("echo partial; exec sleep 30");
  let failed = explore_with(&bin, &ws, Duration::from_millis(500))
    .await
    .expect_err("timed out");
  let (err, failure) = *failed;
  assert!(
    matches!(
      err,
      CodegraphError::Timeout {
        writer_seen: None,
        ..
      }
    ),
    "{err:?}"
  );
  assert_eq!(err.facts()["writerSeen"], serde_json::Value::Null);
  assert!(failure.run.is_some(), "the CLI ran");
}

#[tokio::test]
async fn a_failure_before_the_checks_finished_has_only_its_duration() {
  let ws = tempfile::tempdir().expect("no index here");
  let bin = fake("echo must-not-run");
  let failed = explore_with(&bin, &ws, Duration::from_secs(5))
    .await
    .expect_err("no index");
  let (err, failure) = *failed;
  assert_eq!(err.code(), ErrorCode::NoIndex, "{err:?}");
  assert!(failure.duration.is_some());
  assert_eq!(failure.lock_wait, None);
  assert_eq!(failure.run, None);
}
