//! A descendant that left the CLI's process group (`setpgrp`, as a daemonising helper does) is
//! out of reach of the group kill; the runner finds it through /proc while the CLI still runs
//! (`kill_strays`) and kills it too. Linux only, as that path is.
#![cfg(target_os = "linux")]

mod common;

use std::time::Duration;

use common::{assert_gone, cancel_once_running, pid_in, FakeCli};
use pi_codegraph_core::errors::CodegraphError;

/// A descendant in its own process group, its pid in `$1/daemon`; the CLI waits for it.
const DAEMONISES: &str = r#"perl -e 'setpgrp(0, 0); open(my $f, ">", "$ARGV[0]/daemon.tmp") or die; print $f "$$\n"; close $f; rename("$ARGV[0]/daemon.tmp", "$ARGV[0]/daemon"); sleep 30' "$1" & wait"#;

#[tokio::test]
async fn a_timeout_kills_a_descendant_in_its_own_group() {
  let cli = FakeCli::new(DAEMONISES);
  let err = cli.run(Duration::from_millis(800), None).await.unwrap_err();
  assert!(matches!(err, CodegraphError::Timeout { .. }), "{err:?}");
  assert_gone(
    pid_in(&cli.file("daemon")).await,
    "the setpgrp'd descendant",
  )
  .await;
}

#[tokio::test]
async fn a_cancel_kills_a_setsid_descendant() {
  let cli = FakeCli::new(
    r#"setsid sh -c 'echo "$$" > "$1/daemon.tmp"; mv "$1/daemon.tmp" "$1/daemon"; exec sleep 30' daemon "$1" & wait"#,
  );
  let (err, pid) = cancel_once_running(&cli, "daemon").await;
  assert!(matches!(err, CodegraphError::Cancelled { .. }), "{err:?}");
  assert_gone(pid, "the setsid'd descendant").await;
}
