//! "Kill" means the whole tree: a timeout or a cancel also stops what the CLI started (as
//! CodeGraph's npm shim starts the real CLI).
#![cfg(unix)]

mod common;

use std::time::Duration;

use common::{assert_gone, pid_in, FakeCli};
use pi_codegraph_core::errors::ExploreError;
use pi_codegraph_core::runner::Cancel;

/// A shim that starts the "real CLI" as its child and waits for it.
const SHIM: &str = r#"sh -c 'echo "$$" > "$1/grandchild"; exec sleep 30' grandchild "$1" & wait"#;

#[tokio::test]
async fn a_timeout_kills_the_grandchild() {
  let cli = FakeCli::new(SHIM);
  let err = cli.run(Duration::from_millis(500), None).await.unwrap_err();
  assert!(matches!(err, ExploreError::Timeout { .. }), "{err:?}");
  assert_gone(pid_in(&cli.file("grandchild")).await, "the grandchild").await;
}

#[tokio::test]
async fn a_cancel_kills_the_grandchild() {
  let cli = FakeCli::new(SHIM);
  let cancel = Cancel::default();
  let trigger = cancel.clone();
  let pid_file = cli.file("grandchild");
  let canceller = tokio::spawn(async move {
    let pid = pid_in(&pid_file).await;
    trigger.cancel();
    pid
  });
  let err = cli
    .run(Duration::from_secs(30), Some(cancel))
    .await
    .unwrap_err();
  assert!(matches!(err, ExploreError::Cancelled { .. }), "{err:?}");
  assert_gone(canceller.await.unwrap(), "the grandchild").await;
}
