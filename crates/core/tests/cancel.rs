//! The caller's cancel: the CLI is stopped at once with CODEGRAPH_CANCELLED, also when the
//! cancel came before the run started.
#![cfg(unix)]

mod common;

use std::time::Duration;

use common::{assert_gone, cancel_once_running, FakeCli};
use pi_codegraph_core::child::Cancel;
use pi_codegraph_core::errors::CodegraphError;

#[tokio::test]
async fn cancel_stops_a_running_cli_and_keeps_its_partial_output() {
  let cli = FakeCli::new(r#"echo partial; echo "$$" > "$1/pid"; exec sleep 30"#);
  let (err, pid) = cancel_once_running(&cli, "pid").await;
  match err {
    CodegraphError::Cancelled {
      partial_bytes,
      partial_text,
    } => {
      // The echo ran before the pid file was written, but the runner may not have read it yet.
      assert!(
        partial_text.is_empty() || partial_text == "partial\n",
        "{partial_text:?}"
      );
      assert_eq!(partial_bytes, partial_text.len() as u64);
    }
    other => panic!("not cancelled: {other:?}"),
  }
  assert_gone(pid, "the CLI").await;
}

#[tokio::test]
async fn a_cancel_raised_before_the_run_is_not_lost() {
  let cli = FakeCli::new(r#"echo started > "$1/ran"; exec sleep 30"#);
  let cancel = Cancel::default();
  cancel.cancel();
  let err = cli
    .run(Duration::from_secs(30), Some(cancel))
    .await
    .unwrap_err();
  assert!(
    matches!(
      err,
      CodegraphError::Cancelled {
        partial_bytes: 0,
        ..
      }
    ),
    "{err:?}"
  );
}
