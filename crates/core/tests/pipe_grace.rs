//! A descendant holding stdout open after the CLI exited does not hold the answer: after the
//! pipe grace the run ends with what was printed, and the straggler is killed.
#![cfg(unix)]

mod common;

use std::time::{Duration, Instant};

use common::{assert_gone, pid_in, FakeCli};

#[tokio::test]
async fn a_straggler_holding_stdout_does_not_hold_the_answer() {
  // The background sleep inherits stdout and stderr and outlives the script.
  let cli = FakeCli::new(r#"sleep 30 & echo "$!" > "$1/straggler"; echo answer; exit 0"#);
  let started = Instant::now();
  let out = cli
    .run(Duration::from_secs(30), None)
    .await
    .expect("an answer");
  assert!(out.exit.success());
  assert_eq!(out.stdout.text, "answer\n");
  assert!(out.stdout.totals_exact);
  // The grace is 250 ms (and as much to drain); far below the straggler's 30 s.
  assert!(
    started.elapsed() < Duration::from_secs(5),
    "{:?}",
    started.elapsed()
  );
  assert_gone(pid_in(&cli.file("straggler")).await, "the straggler").await;
}
