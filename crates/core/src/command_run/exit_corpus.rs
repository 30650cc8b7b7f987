//! The exit classifier against the shared corpus (`__test__/corpora/exit.json`, which the JS
//! suite runs through both runners): each case's run output and workspace state, decided as
//! `command_run` decides it, must give the corpus's code and facts.

#[path = "../../tests/corpus/mod.rs"]
mod corpus;

use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

use serde_json::Value;

use super::exit::{classify_exit, says_cannot_open};
use crate::access::{index_blocked, workspace_blocked};
use crate::child::RunOutput;
use crate::errors::{CodegraphError, NoIndexKind};
use crate::exit_verdict::Exit;
use crate::limits::{StderrTail, StdoutCollector};
use crate::preflight::IndexFound;

const CORPUS: &str = include_str!("../../../../__test__/corpora/exit.json");

/// A signal's number by the name the corpus gives it.
#[cfg(unix)]
fn signal_number(name: &str) -> i32 {
  match name {
    "SIGKILL" => libc::SIGKILL,
    "SIGTERM" => libc::SIGTERM,
    "SIGINT" => libc::SIGINT,
    "SIGHUP" => libc::SIGHUP,
    "SIGALRM" => libc::SIGALRM,
    other => panic!("exit.json names a signal this test does not know: {other}"),
  }
}

/// The case's exit status; None for a signal where there are none (Windows).
#[cfg_attr(unix, allow(clippy::unnecessary_wraps))]
fn status(exit: &Value) -> Option<ExitStatus> {
  #[cfg(unix)]
  {
    use std::os::unix::process::ExitStatusExt;
    Some(match exit {
      Value::String(name) => ExitStatus::from_raw(signal_number(name)),
      code => ExitStatus::from_raw((code.as_i64().expect("an exit code") as i32) << 8),
    })
  }
  #[cfg(windows)]
  {
    use std::os::windows::process::ExitStatusExt;
    exit.as_u64().map(|code| ExitStatus::from_raw(code as u32))
  }
}

/// What the runner would have made of the case's output.
fn run_output(case: &Value, status: ExitStatus) -> RunOutput {
  // The status as the native runner reads it (`Exit::of`): the conversion is part of what runs.
  let mut stdout = StdoutCollector::new(None);
  let mut stderr = StderrTail::new();
  if let Some(spec) = case.get("stdout") {
    stdout.push(&corpus::bytes_of(spec, true));
  }
  if let Some(spec) = case.get("stderr") {
    stderr.push(&corpus::bytes_of(spec, true));
  }
  RunOutput {
    stdout: stdout.finish(true),
    stderr_tail: stderr.finish(),
    exit: Exit::of(status),
    duration: Duration::ZERO,
  }
}

/// The failure as `command_run` decides it: the filesystem asked as it asks it, then the classifier.
fn classify(out: &RunOutput, workspace: &Path, index: &IndexFound) -> CodegraphError {
  let blocked = if says_cannot_open(out) {
    index_blocked(workspace, &index.dir)
  } else {
    workspace_blocked(workspace)
  };
  classify_exit(out, workspace, index, blocked)
}

/// The CLI text `expect` says the kept text must (keeps) and must not (omits) contain.
fn assert_kept(name: &str, expect: &Value, text: &str) {
  if let Some(keeps) = expect["keeps"].as_str() {
    assert!(text.contains(keeps), "{name}: {keeps:?} not in {text:?}");
  }
  if let Some(omits) = expect["omits"].as_str() {
    assert!(!text.contains(omits), "{name}: {omits:?} in {text:?}");
  }
}

fn check(case: &Value, status: ExitStatus) {
  let name = case["name"].as_str().expect("a name");
  let expect = &case["expect"];
  let ws = tempfile::tempdir().unwrap();
  let dir = ws.path().join(".codegraph");
  std::fs::create_dir(&dir).unwrap();
  std::fs::write(dir.join("codegraph.db"), b"SQLite format 3\0").unwrap();
  let index = IndexFound {
    resolved: dir.clone(),
    dir,
    bytes: Some(16),
  };
  if case["workspace"] == "removed" {
    std::fs::remove_dir_all(ws.path()).unwrap();
  }
  let out = run_output(case, status);
  if expect["code"] == "success" {
    assert!(status.success(), "{name}: a success is exit 0");
    return assert_kept(name, expect, &out.stdout.text);
  }
  assert!(!status.success() && !out.stopped_at_drain_limit(), "{name}");
  let err = classify(&out, ws.path(), &index);
  assert_eq!(err.code().as_str(), expect["code"], "{name}: {err:?}");
  match &err {
    CodegraphError::Exit {
      code,
      signal,
      stderr_tail,
      stdout_excerpt,
      ..
    } => {
      assert_eq!(code.map(i64::from), expect["exitCode"].as_i64(), "{name}");
      #[cfg(unix)]
      assert_eq!(
        *signal,
        expect["signal"].as_str().map(signal_number),
        "{name}"
      );
      let _ = signal;
      // What a message shows of the CLI: the stderr tail, or the start of stdout when stderr
      // said nothing.
      let shown = match stdout_excerpt {
        Some(excerpt) if stderr_tail.trim().is_empty() => excerpt,
        _ => stderr_tail,
      };
      assert_kept(name, expect, shown);
    }
    CodegraphError::NoIndex { kind, .. } => {
      assert_eq!(expect["kind"], "unusable", "{name}");
      assert!(
        matches!(kind, NoIndexKind::Unusable { .. }),
        "{name}: {kind:?}"
      );
    }
    _ => {}
  }
}

#[test]
fn every_exit_corpus_case_is_classified_as_it_says() {
  let corpus: Value = serde_json::from_str(CORPUS).expect("exit.json parses");
  let cases = corpus["cases"].as_array().expect("cases");
  let mut ran = 0;
  for case in cases {
    if let Some(status) = status(&case["exit"]) {
      check(case, status);
      ran += 1;
    }
  }
  assert!(ran > 0);
}
