//! Unit tests of `errors`: the facts the words module reads, as JSON.

use super::*;

#[test]
fn facts_are_camel_case_with_tagged_reasons_and_raw_paths() {
  let long = PathBuf::from(format!("/{}\n", "x".repeat(1_000)));
  let e = CodegraphError::NoIndex {
    path: long.clone(),
    kind: NoIndexKind::Missing {
      ancestor: Some(long.clone()),
    },
    reason: Box::new(NoIndexReason::NotRegular {
      path: long.clone(),
      file_kind: FileKind::Fifo,
    }),
  };
  let f = e.facts();
  // Paths are raw: shortening and escaping them is the words module's job.
  assert_eq!(f["path"], long.to_string_lossy().as_ref());
  assert_eq!(f["kind"]["is"], "missing");
  assert_eq!(f["kind"]["ancestor"], long.to_string_lossy().as_ref());
  assert_eq!(f["reason"]["is"], "notRegular");
  assert_eq!(f["reason"]["fileKind"], "fifo");
  let busy = CodegraphError::IndexBusy {
    lock: PathBuf::from("/w/.codegraph/codegraph.lock"),
    pid: 7,
    rebuild: true,
    outside: None,
    waited_ms: 1500,
  }
  .facts();
  assert_eq!(busy["waitedMs"], 1500);
  assert_eq!(busy["rebuild"], true);
  let timeout = |writer_seen| {
    CodegraphError::Timeout {
      timeout_ms: 100,
      stderr_tail: String::new(),
      stalled: false,
      partial_bytes: 0,
      partial_text: String::new(),
      writer_seen,
    }
    .facts()
  };
  let seen = timeout(Some(Box::new(super::Writer {
    lock: PathBuf::from("/w/.codegraph/rebuild.pid"),
    pid: 7,
    rebuild: true,
    outside: None,
  })));
  assert_eq!(
    seen["writerSeen"],
    serde_json::json!({ "lock": "/w/.codegraph/rebuild.pid", "pid": 7, "rebuild": true })
  );
  assert_eq!(timeout(None)["writerSeen"], serde_json::Value::Null);
  let exit = CodegraphError::Exit {
    code: None,
    signal: Some(9),
    signal_name: Some("SIGKILL"),
    stderr_tail: String::new(),
    stdout_excerpt: None,
  }
  .facts();
  assert_eq!(exit["exitCode"], serde_json::Value::Null);
  assert_eq!(exit["signalName"], "SIGKILL");
}

#[cfg(unix)]
#[test]
fn a_non_utf8_path_is_still_a_fact() {
  use std::os::unix::ffi::OsStrExt;
  let p = PathBuf::from(std::ffi::OsStr::from_bytes(b"/tmp/a\xffb"));
  let f = CodegraphError::Workspace {
    path: p,
    denied: false,
    reason: WorkspaceReason::Missing,
  }
  .facts();
  assert_eq!(f["path"], "/tmp/a\u{fffd}b");
  assert_eq!(f["reason"]["is"], "missing");
}
