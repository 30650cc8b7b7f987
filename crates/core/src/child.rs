//! Runs one CLI process to completion, within the output caps, the deadline and the caller's
//! cancellation, and leaves nothing running behind it: [`drive`] runs a started child given as
//! its pipes and a [`Control`], which `native.rs` starts with tokio.
//!
//! The child is the leader of its own process group (Unix) or sits in a job object (Windows), so
//! "kill" always means the whole tree: CodeGraph's npm shim starts the real CLI as a child, and
//! killing only the shim orphans it.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::sync::Notify;

use crate::caps::Caps;
use crate::clock::timer;
use crate::discovery::Launch;
use crate::errors::{os_text, CodegraphError, SpawnReason, Step};
use crate::exit_verdict::Exit;
use crate::full_output::SpillTarget;
use crate::limits::{Bounded, StderrTail, StdoutCollector};
use crate::resources::exhausted;
use progress::Throttle;

pub mod host;
#[cfg(not(target_family = "wasm"))]
mod native;
mod progress;
mod spawn_error;
use spawn_error::spawn_error;
#[cfg(not(target_family = "wasm"))]
pub(crate) mod tree;

/// How long a process gets to exit after SIGTERM before the whole group is SIGKILLed.
const TERM_GRACE: Duration = Duration::from_millis(500);
/// The least time between two progress reports while output arrives. Output that arrives sooner
/// is reported once the interval has passed (a trailing report), so a line followed by silence
/// still shows.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);
/// After the CLI exits, how long a descendant may keep its stdio open before it is killed. Pipes
/// normally close at the same instant; a straggler would otherwise hang the read forever.
const PIPE_GRACE: Duration = Duration::from_millis(250);

#[derive(Debug)]
pub struct RunOutput {
  pub stdout: Bounded,
  pub stderr_tail: String,
  pub exit: Exit,
  pub duration: Duration,
}

impl RunOutput {
  /// True when the runner itself stopped the CLI at the drain limit (the only way totals become
  /// inexact): its exit is then our SIGKILL, not the CLI's verdict, and the kept text is
  /// the answer.
  pub fn stopped_at_drain_limit(&self) -> bool {
    !self.stdout.totals_exact
  }
}

/// A cancellation flag the JS thread can raise. `Notify` stores one permit, so an abort raised
/// before the run starts waiting is not lost.
#[derive(Debug, Default, Clone)]
pub struct Cancel(Arc<Notify>);

impl Cancel {
  pub fn cancel(&self) {
    self.0.notify_one();
  }

  /// Resolves once `cancel` has been called (also before this was awaited).
  pub async fn notified(&self) {
    self.0.notified().await;
  }
}

/// A progress report: the bounded text kept so far, the end of all that was seen, and how much.
#[derive(Debug, Clone)]
pub struct Progress {
  pub text: String,
  /// The end of the cleaned output so far, whatever the caps kept ([`StdoutCollector::tail`]).
  pub tail: String,
  pub seen_bytes: u64,
  pub seen_lines: u64,
  pub elapsed: Duration,
}

pub type ProgressFn = dyn Fn(Progress) + Send + Sync;

/// What to start, and how to run it ([`RunBounds`]).
pub struct RunSpec<'a> {
  pub launch: &'a Launch,
  pub args: &'a [OsString],
  pub cwd: &'a Path,
  pub env: &'a [(OsString, OsString)],
  pub bounds: RunBounds<'a>,
  /// A run nothing waits for (the version probe): its child must not keep the host alive (the
  /// WebAssembly build's host; natively a child never does).
  pub background: bool,
}

/// How a started child is run: its deadline, cancel, caps, full-output file and progress.
pub struct RunBounds<'a> {
  /// The caller's timeout, as reported in CODEGRAPH_TIMEOUT.
  pub timeout: Duration,
  /// When the run is stopped: the call's start plus `timeout` (time spent before the run, in
  /// preflight, counts).
  pub deadline: tokio::time::Instant,
  pub cancel: Option<Cancel>,
  /// Where the full stdout goes when it is truncated; `None` keeps only the bounded text.
  pub spill: Option<SpillTarget>,
  /// What of stdout is kept (the command's caps).
  pub caps: Caps,
  /// Called with partial output at most every `PROGRESS_INTERVAL` while stdout arrives, and
  /// once more when the interval has passed since output that arrived in between (never after
  /// the run, never without new output).
  pub progress: Option<&'a ProgressFn>,
}

/// A started child as [`drive`] runs it: its two pipes and what stops and waits for it.
pub struct Started<O, E, C> {
  pub stdout: O,
  pub stderr: E,
  pub control: C,
}

/// What [`drive`] asks of a started child beside its pipes. Dropping it kills whatever of the
/// child's tree is left (nothing of a run may outlive it).
pub trait Control: Send {
  /// Resolves once the child exited (at once when it already had); cancel-safe.
  fn wait(&mut self) -> impl std::future::Future<Output = std::io::Result<Exit>> + Send;
  /// Asks the whole tree to stop (SIGTERM to its group); false where a process cannot be asked
  /// (Windows).
  fn ask_to_stop(&mut self) -> bool;
  /// SIGKILLs the whole tree now, without waiting.
  fn kill(&mut self);
  /// SIGKILLs the descendants that left the child's process group (Linux).
  fn kill_strays(&self);
}

/// Stops a child's whole tree: the descendants that left its group first, then SIGTERM and
/// `TERM_GRACE` to exit, then SIGKILL and as long again to be reaped.
pub async fn terminate<C: Control>(child: &mut C) {
  child.kill_strays();
  if child.ask_to_stop() {
    exit_within(child, TERM_GRACE).await;
  }
  child.kill();
  exit_within(child, TERM_GRACE).await;
}

/// Waits for the child to exit, at most `grace`.
async fn exit_within<C: Control>(child: &mut C, grace: Duration) {
  let due = timer(tokio::time::Instant::now() + grace);
  tokio::select! {
    _ = child.wait() => {}
    () = due => {}
  }
}

/// An instant no run reaches: a timer not yet due to be set.
fn never() -> tokio::time::Instant {
  tokio::time::Instant::now() + Duration::from_hours(24 * 365)
}

/// Starts `spec`'s CLI and runs it to the end ([`drive`]).
#[cfg(not(target_family = "wasm"))]
pub async fn run(spec: RunSpec<'_>) -> Result<RunOutput, CodegraphError> {
  let started = Instant::now();
  let child = native::start(&spec)?;
  drive(child, &spec.bounds, started).await
}

/// Starts `spec`'s CLI through the host ([`host`]) and runs it to the end ([`drive`]).
#[cfg(target_family = "wasm")]
pub async fn run(spec: RunSpec<'_>) -> Result<RunOutput, CodegraphError> {
  host::run(spec).await
}

/// Runs a started child to the end within `spec`'s caps, deadline and cancel (`bounds`): its stdout into the
/// core's collector (the full output spilled past the caps; a flood stopped at the drain limit),
/// its stderr's tail, progress reports, and the whole tree stopped at a timeout or cancel, or once
/// a descendant holds the pipes open past `PIPE_GRACE` after the CLI exited. `started`: when the
/// child was started (the run's duration counts from it).
pub async fn drive<O, E, C>(
  child: Started<O, E, C>,
  spec: &RunBounds<'_>,
  started: Instant,
) -> Result<RunOutput, CodegraphError>
where
  O: tokio::io::AsyncRead + Unpin,
  E: tokio::io::AsyncRead + Unpin,
  C: Control,
{
  let Started {
    mut stdout,
    mut stderr,
    mut control,
  } = child;
  let mut out = StdoutCollector::with_caps(spec.spill.clone(), spec.caps);
  let mut err = StderrTail::new();
  let mut out_buf = vec![0u8; 64 * 1024];
  let mut err_buf = vec![0u8; 8 * 1024];
  let (mut out_open, mut err_open) = (true, true);
  let mut status: Option<Exit> = None;
  let mut flooded = false;

  let mut deadline = timer(spec.deadline);
  let mut pipe_grace = timer(never());
  let cancel = spec.cancel.clone().unwrap_or_default();
  let mut progress = Throttle::new(spec.progress, started);
  let mut flush = timer(never()); // the trailing report's timer

  while out_open || err_open || status.is_none() {
    tokio::select! {
      biased;
      () = cancel.0.notified() => {
        terminate(&mut control).await;
        let (partial_text, partial_bytes, _) = out.preview();
        return Err(CodegraphError::Cancelled { partial_bytes, partial_text });
      }
      () = &mut deadline => {
        terminate(&mut control).await;
        let grace = timer(tokio::time::Instant::now() + PIPE_GRACE);
        drain_buffered(&mut stderr, &mut err, err_open, grace).await;
        let (partial_text, partial_bytes, _) = out.preview();
        return Err(CodegraphError::Timeout {
          timeout_ms: spec.timeout.as_millis() as u64,
          stderr_tail: err.finish(),
          stalled: false,
          partial_bytes,
          partial_text,
          // Whether CodeGraph was writing the index meanwhile is the caller's to read.
          writer_seen: None,
        });
      }
      read = stdout.read(&mut out_buf), if out_open => match read {
        Ok(0) | Err(_) => out_open = false,
        Ok(n) => {
          out.push(&out_buf[..n]);
          if let Some(due) = progress.arrived(&out) {
            flush = timer(due.into());
          }
          if out.over_drain_limit() {
            // A flood: stop reading and stop the writer; what we kept is the answer.
            flooded = true;
            out_open = false;
            err_open = false;
            control.kill_strays();
            control.kill();
          }
        }
      },
      read = stderr.read(&mut err_buf), if err_open => match read {
        Ok(0) | Err(_) => err_open = false,
        Ok(n) => err.push(&err_buf[..n]),
      },
      exited = control.wait(), if status.is_none() => {
        status = Some(exited.map_err(|e| exhausted(Step::WaitCli, &e).unwrap_or_else(|| CodegraphError::Spawn { reason: SpawnReason::Wait { os: os_text(&e) } }))?);
        pipe_grace = timer(tokio::time::Instant::now() + PIPE_GRACE);
      }
      () = &mut flush, if progress.unreported => progress.report(&out),
      () = &mut pipe_grace, if status.is_some() => {
        // A descendant still holds stdout/stderr open after the CLI exited: stop it, keep what
        // it already wrote (still buffered in the pipe), and finish.
        control.kill();
        let grace = timer(tokio::time::Instant::now() + PIPE_GRACE);
        drain_buffered(&mut stdout, &mut out, out_open, grace).await;
        let grace = timer(tokio::time::Instant::now() + PIPE_GRACE);
        drain_buffered(&mut stderr, &mut err, err_open, grace).await;
        out_open = false;
        err_open = false;
      }
    }
  }

  let exit = status.expect("the loop ends only once the CLI has exited");
  // Nothing of the run may outlive it, even a quiet descendant that closed its stdio.
  drop(control);
  Ok(RunOutput {
    stdout: out.finish(!flooded),
    stderr_tail: err.finish(),
    exit,
    duration: started.elapsed(),
  })
}

/// Reads what is already in a pipe after its writers were killed, until `grace` is due.
async fn drain_buffered<R, S, T>(pipe: &mut R, sink: &mut S, open: bool, grace: T)
where
  R: tokio::io::AsyncRead + Unpin,
  S: Sink,
  T: std::future::Future<Output = ()>,
{
  if !open {
    return;
  }
  let mut buf = vec![0u8; 64 * 1024];
  let drained = async {
    loop {
      match pipe.read(&mut buf).await {
        Ok(0) | Err(_) => break,
        Ok(n) => sink.take(&buf[..n]),
      }
    }
  };
  tokio::select! {
    () = drained => {}
    () = grace => {}
  }
}

trait Sink {
  fn take(&mut self, chunk: &[u8]);
}
impl Sink for StdoutCollector {
  fn take(&mut self, chunk: &[u8]) {
    self.push(chunk);
  }
}
impl Sink for StderrTail {
  fn take(&mut self, chunk: &[u8]) {
    self.push(chunk);
  }
}
