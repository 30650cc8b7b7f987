//! The deadline: a CLI that never finishes is stopped with CODEGRAPH_TIMEOUT, and what it had
//! printed comes back as the partial answer.
#![cfg(unix)]

mod common;

use std::time::{Duration, Instant};

use common::{assert_gone, pid_in, FakeCli};
use pi_codegraph_core::errors::CodegraphError;

#[tokio::test]
async fn a_stuck_cli_times_out_with_its_partial_output_and_stderr() {
  let cli =
    FakeCli::new(r#"echo "$$" > "$1/pid"; echo partial; echo stuck-on-lock >&2; exec sleep 30"#);
  let started = Instant::now();
  let err = cli.run(Duration::from_millis(400), None).await.unwrap_err();
  let CodegraphError::Timeout {
    timeout_ms,
    stderr_tail,
    partial_bytes,
    partial_text,
    stalled,
    writer_seen,
  } = err
  else {
    panic!("not a timeout: {err:?}");
  };
  assert_eq!(timeout_ms, 400);
  assert!(!stalled, "the CLI, not the checks, was stopped");
  assert_eq!(
    writer_seen, None,
    "the runner leaves the writer to its caller"
  );
  assert_eq!(partial_text, "partial\n");
  assert_eq!(partial_bytes, 8);
  assert!(stderr_tail.contains("stuck-on-lock"), "{stderr_tail:?}");
  // Stopped at the deadline, not after the CLI's own 30 s.
  assert!(
    started.elapsed() < Duration::from_secs(5),
    "{:?}",
    started.elapsed()
  );
  assert_gone(pid_in(&cli.file("pid")).await, "the CLI").await;
}
