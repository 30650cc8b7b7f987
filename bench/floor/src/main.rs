//! The floor for the per-call figure: spawn the fake CLI the way the addon's runner does (same
//! argv, cwd, cleared-then-copied environment, stdin null, stdout/stderr piped, own process
//! group), read both pipes to the end, wait, repeat. No tokio, no napi, no preflight.
//!
//! usage: cgbench-floor <cli> <cwd> <warmup> <iterations> <spec>
//! prints one JSON array: per-call milliseconds.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
  let args: Vec<String> = std::env::args().collect();
  if args.len() != 6 {
    eprintln!("usage: cgbench-floor <cli> <cwd> <warmup> <iterations> <spec>");
    std::process::exit(2);
  }
  let (cli, cwd, spec) = (&args[1], &args[2], &args[5]);
  let warmup: usize = args[3].parse().expect("warmup");
  let iterations: usize = args[4].parse().expect("iterations");
  let env: Vec<_> = std::env::vars_os().collect();

  let once = || {
    let started = Instant::now();
    let out = Command::new(cli)
      .args(["explore", "--", spec.as_str()])
      .current_dir(cwd)
      .env_clear()
      .envs(env.iter().map(|(k, v)| (k, v)))
      .stdin(Stdio::null())
      .stdout(Stdio::piped())
      .stderr(Stdio::piped())
      .process_group(0)
      .output()
      .expect("spawn the fake CLI");
    assert!(out.status.success(), "fake CLI failed: {:?}", out.status);
    started.elapsed().as_secs_f64() * 1e3
  };
  for _ in 0..warmup {
    once();
  }
  let samples: Vec<String> = (0..iterations).map(|_| format!("{:.4}", once())).collect();
  println!("[{}]", samples.join(","));
}
