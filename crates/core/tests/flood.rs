//! A CLI printing far past `DRAIN_LIMIT_BYTES` is stopped; the kept text stays within the caps and
//! the totals say they are lower bounds.
#![cfg(unix)]

mod common;

use std::time::Duration;

use common::FakeCli;
use pi_codegraph_core::caps::{DRAIN_LIMIT_BYTES, MAX_BYTES, MAX_LINES};

#[tokio::test]
async fn a_flood_is_stopped_at_the_drain_limit_with_bounded_text() {
  let cli = FakeCli::new("exec yes 0123456789abcdefghijklmnopqrstuvwxyz");
  let out = cli
    .run(Duration::from_secs(30), None)
    .await
    .expect("a flood is an answer");
  assert!(out.stopped_at_drain_limit());
  assert!(!out.stdout.totals_exact);
  assert!(out.stdout.truncated);
  assert!(
    out.stdout.total_bytes > DRAIN_LIMIT_BYTES,
    "{}",
    out.stdout.total_bytes
  );
  // Stopped soon after the limit: at most one more read (64 KiB) past it.
  assert!(out.stdout.total_bytes <= DRAIN_LIMIT_BYTES + 64 * 1024);
  // The stored text: within the caps + a few bytes (the glue fits it with its marker).
  assert!(out.stdout.text.len() <= MAX_BYTES + 8);
  assert!(out.stdout.kept_lines <= MAX_LINES as u64);
  assert!(out
    .stdout
    .text
    .starts_with("0123456789abcdefghijklmnopqrstuvwxyz\n"));
  // The exit status is our SIGKILL, not the CLI's verdict.
  assert!(!out.exit.success());
}
