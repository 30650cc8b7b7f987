//! A child its host started, run by the core: the WebAssembly build's side of `child::drive`
//! (crates/core/src/child.rs), the same loop the native runner runs. WASI cannot start or signal
//! a process, so the host (the Node runner, lib/runners/node/child.js) starts the CLI, pushes
//! what its pipes give and how it exited into a [`HostChild`], and signals its tree when the core
//! says (`control`); everything else (the caps and the full-output file, the deadline, cancel, a
//! flood, a descendant holding the pipes, progress) is the core's, on a runtime of its own: one
//! WASI thread kept for the process, so no chunk is read on Pi's thread.

// napi hands the arguments over by value.
#![allow(clippy::needless_pass_by_value)]

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{Function, Uint8Array};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use pi_codegraph_core::child::{self, Cancel, Control, RunBounds, RunOutput, Started};
use pi_codegraph_core::errors::CodegraphError;
use pi_codegraph_core::exit_verdict::Exit;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use crate::host_threads::{runtime, Timer};
use crate::output::{collected, spill_target, CollectedOutput, OutputCaps, OutputPlace};
use crate::types::{millis_f64, Problem, Progress};

/// A JS function called from the runtime thread, not keeping the host alive by itself.
type Weak<T> = ThreadsafeFunction<T, (), T, Status, false, true>;
/// One that does: the end of a run the host waits for.
type Strong<T> = ThreadsafeFunction<T, (), T, Status, false>;

/// How the host bounds one run (`deadline` as the milliseconds left of the call's).
#[napi(object, object_to_js = false)]
pub struct ChildBounds {
  /// The call's timeout, as a CODEGRAPH_TIMEOUT reports it.
  pub timeout_ms: f64,
  /// When the run is stopped: this many milliseconds from now.
  pub remaining_ms: f64,
  pub caps: Option<OutputCaps>,
  /// Where a truncated answer's full output goes (none: no file).
  pub spill: Option<OutputPlace>,
  /// The host may ask the tree to stop (SIGTERM) before it kills it: false on Windows.
  pub posix: bool,
  /// A run the host does not wait for (the version probe): its end does not keep it alive.
  pub background: bool,
}

/// How a run ended: its output, or its problem (`runMs`: how long the CLI ran until then).
#[napi(object, object_from_js = false)]
pub struct ChildEnd {
  pub stdout: Option<CollectedOutput>,
  pub stderr_tail: Option<String>,
  pub exit_code: Option<i32>,
  pub signal: Option<i32>,
  pub run_ms: f64,
  pub problem: Option<Problem>,
}

/// One started child as the host feeds it; `drive` runs it once.
#[napi]
pub struct HostChild {
  stdout: Option<UnboundedSender<Vec<u8>>>,
  stderr: Option<UnboundedSender<Vec<u8>>>,
  exits: Option<UnboundedSender<Exit>>,
  parts: Option<(Pipe, Pipe, UnboundedReceiver<Exit>)>,
  cancel: Cancel,
}

#[napi]
impl HostChild {
  #[napi(constructor)]
  #[allow(clippy::new_without_default)] // napi's constructor
  pub fn new() -> Self {
    let (out_tx, out_rx) = unbounded_channel();
    let (err_tx, err_rx) = unbounded_channel();
    let (exit_tx, exit_rx) = unbounded_channel();
    Self {
      stdout: Some(out_tx),
      stderr: Some(err_tx),
      exits: Some(exit_tx),
      parts: Some((Pipe::new(out_rx), Pipe::new(err_rx), exit_rx)),
      cancel: Cancel::default(),
    }
  }

  /// A chunk of stdout; false once the core reads no more (the host may stop reading).
  #[napi]
  pub fn stdout(&self, chunk: Uint8Array) -> bool {
    self
      .stdout
      .as_ref()
      .is_some_and(|tx| tx.send(chunk.to_vec()).is_ok())
  }

  /// A chunk of stderr; false once the core reads no more.
  #[napi]
  pub fn stderr(&self, chunk: Uint8Array) -> bool {
    self
      .stderr
      .as_ref()
      .is_some_and(|tx| tx.send(chunk.to_vec()).is_ok())
  }

  /// Stdout closed.
  #[napi(js_name = "endStdout")]
  pub fn end_stdout(&mut self) {
    self.stdout = None;
  }

  /// Stderr closed.
  #[napi(js_name = "endStderr")]
  pub fn end_stderr(&mut self) {
    self.stderr = None;
  }

  /// The CLI exited: its code, or the signal that ended it.
  #[napi]
  pub fn exited(&mut self, code: Option<i32>, signal: Option<i32>) {
    if let Some(tx) = self.exits.take() {
      let _ = tx.send(Exit { code, signal });
    }
  }

  /// The caller cancelled: the core stops the tree and the run ends CODEGRAPH_CANCELLED.
  #[napi]
  pub fn cancel(&self) {
    self.cancel.cancel();
  }

  /// Runs the child to its end on the core's runtime: `control(op)` ("SIGTERM", "SIGKILL",
  /// "strays") signals its tree, `onProgress` gets reports while stdout arrives, `done` the end.
  #[napi]
  pub fn drive(
    &mut self,
    bounds: ChildBounds,
    control: Function<String, ()>,
    on_progress: Option<Function<Progress, ()>>,
    done: Function<ChildEnd, ()>,
  ) -> napi::Result<()> {
    let (stdout, stderr, exits) = self
      .parts
      .take()
      .ok_or_else(|| napi::Error::from_reason("this child was driven already"))?;
    let signal: Weak<String> = control.build_threadsafe_function().weak::<true>().build()?;
    let progress: Option<Weak<Progress>> = match on_progress {
      Some(f) => Some(f.build_threadsafe_function().weak::<true>().build()?),
      None => None,
    };
    let done = if bounds.background {
      End::Weak(done.build_threadsafe_function().weak::<true>().build()?)
    } else {
      End::Strong(done.build_threadsafe_function().build()?)
    };
    let control = HostControl {
      exit: None,
      exits,
      signal,
      posix: bounds.posix,
    };
    let cancel = self.cancel.clone();
    // The run counts from here (the host has just started the child), not from when the
    // runtime's thread picks it up.
    let started = Instant::now();
    let runtime = runtime()?;
    runtime.spawn(async move {
      let report = progress.map(|tsfn| {
        move |p: child::Progress| {
          tsfn.call(Progress::of(p), ThreadsafeFunctionCallMode::NonBlocking);
        }
      });
      let run_bounds = RunBounds {
        timeout: Duration::from_secs_f64(bounds.timeout_ms.max(0.0) / 1000.0),
        deadline: tokio::time::Instant::now()
          + Duration::from_secs_f64(bounds.remaining_ms.max(0.0) / 1000.0),
        cancel: Some(cancel),
        spill: bounds.spill.map(spill_target),
        caps: OutputCaps::of(bounds.caps),
        progress: report.as_ref().map(|r| r as &child::ProgressFn),
      };
      let started_child = Started {
        stdout,
        stderr,
        control,
      };
      let result = child::drive(started_child, &run_bounds, started).await;
      done.call(ended(result, started));
    });
    Ok(())
  }
}

/// The end of a run as JS reads it.
fn ended(result: Result<RunOutput, CodegraphError>, started: Instant) -> ChildEnd {
  let run_ms = millis_f64(started.elapsed());
  match result {
    Ok(out) => ChildEnd {
      stdout: Some(collected(out.stdout)),
      stderr_tail: Some(out.stderr_tail),
      exit_code: out.exit.code,
      signal: out.exit.signal,
      run_ms: millis_f64(out.duration),
      problem: None,
    },
    Err(err) => ChildEnd {
      stdout: None,
      stderr_tail: None,
      exit_code: None,
      signal: None,
      run_ms,
      problem: Some(Problem::of(&err)),
    },
  }
}

/// Where a run's end goes: a callback that keeps the host alive until called, or one that does
/// not (a background run).
enum End {
  Strong(Strong<ChildEnd>),
  Weak(Weak<ChildEnd>),
}

impl End {
  fn call(&self, end: ChildEnd) {
    let mode = ThreadsafeFunctionCallMode::NonBlocking;
    match self {
      Self::Strong(f) => f.call(end, mode),
      Self::Weak(f) => f.call(end, mode),
    };
  }
}

/// The host's child as `child::drive` controls it: its exit as the host said it, and its tree
/// signalled through the host. Dropped, it kills what is left of the tree.
struct HostControl {
  exit: Option<Exit>,
  exits: UnboundedReceiver<Exit>,
  signal: Weak<String>,
  posix: bool,
}

impl HostControl {
  fn tell(&self, op: &str) {
    self
      .signal
      .call(op.to_owned(), ThreadsafeFunctionCallMode::NonBlocking);
  }
}

impl Control for HostControl {
  type Timer = Timer;

  fn timer(&self, at: tokio::time::Instant) -> Timer {
    Timer::at(at.into_std())
  }

  async fn wait(&mut self) -> io::Result<Exit> {
    if let Some(exit) = self.exit {
      return Ok(exit);
    }
    match self.exits.recv().await {
      Some(exit) => {
        self.exit = Some(exit);
        Ok(exit)
      }
      None => Err(io::Error::other("the host lost the child before it exited")),
    }
  }

  fn ask_to_stop(&mut self) -> bool {
    if self.posix {
      self.tell("SIGTERM");
    }
    self.posix
  }

  fn kill(&mut self) {
    self.tell("SIGKILL");
  }

  fn kill_strays(&self) {
    self.tell("strays");
  }
}

impl Drop for HostControl {
  fn drop(&mut self) {
    self.tell("SIGKILL");
  }
}

/// A pipe's chunks as the host pushed them, read as a stream (end: the host closed it).
struct Pipe {
  chunks: UnboundedReceiver<Vec<u8>>,
  pending: Vec<u8>,
  at: usize,
}

impl Pipe {
  fn new(chunks: UnboundedReceiver<Vec<u8>>) -> Self {
    Self {
      chunks,
      pending: Vec::new(),
      at: 0,
    }
  }
}

impl AsyncRead for Pipe {
  fn poll_read(
    mut self: Pin<&mut Self>,
    cx: &mut Context<'_>,
    buf: &mut ReadBuf<'_>,
  ) -> Poll<io::Result<()>> {
    while self.at >= self.pending.len() {
      match self.chunks.poll_recv(cx) {
        Poll::Ready(Some(chunk)) => {
          self.pending = chunk;
          self.at = 0;
        }
        Poll::Ready(None) => return Poll::Ready(Ok(())), // the end: nothing filled
        Poll::Pending => return Poll::Pending,
      }
    }
    let n = buf.remaining().min(self.pending.len() - self.at);
    let at = self.at;
    buf.put_slice(&self.pending[at..at + n]);
    self.at += n;
    Poll::Ready(Ok(()))
  }
}
