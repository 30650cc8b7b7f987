//! "Kill" means the whole tree: a timeout or a cancel also stops what the CLI started (as
//! CodeGraph's npm shim starts the real CLI).
#![cfg(unix)]

mod common;

use std::time::Duration;

use common::{assert_gone, cancel_once_running, pid_in, FakeCli};
use pi_codegraph_core::errors::CodegraphError;

/// A shim that starts the "real CLI" as its child and waits for it.
const SHIM: &str = r#"sh -c 'echo "$$" > "$1/grandchild"; exec sleep 30' grandchild "$1" & wait"#;

#[tokio::test]
async fn a_timeout_kills_the_grandchild() {
  let cli = FakeCli::new(SHIM);
  let err = cli.run(Duration::from_millis(500), None).await.unwrap_err();
  assert!(matches!(err, CodegraphError::Timeout { .. }), "{err:?}");
  assert_gone(pid_in(&cli.file("grandchild")).await, "the grandchild").await;
}

#[tokio::test]
async fn a_cancel_kills_the_grandchild() {
  let cli = FakeCli::new(SHIM);
  let (err, pid) = cancel_once_running(&cli, "grandchild").await;
  assert!(matches!(err, CodegraphError::Cancelled { .. }), "{err:?}");
  assert_gone(pid, "the grandchild").await;
}
