//! The WebAssembly build's host: how the core, running a call on its own thread
//! (src/host_threads.rs), starts a child and asks a check. WASI can neither start nor signal a
//! process, so the core asks its host (the Node runner, lib/runners/node/child.js) through
//! `setHost(launch, check)`: `launch(spec, child)` starts the CLI and feeds its pipes and exit into
//! `child` (a [`HostChild`]); `check(json, reply)` has the core in the host's worker answer a check
//! (crates/core/src/off_thread.rs), where the host's facts are, and hands the answer to `reply`.
//! Everything else of a run (the caps, the deadline, cancel, the tree stopped) is the core's
//! (`child::drive`), as natively.

// napi hands the arguments over by value.
#![allow(clippy::needless_pass_by_value)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{Buffer, FnArgs, Function, Uint8Array};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use pi_codegraph_core::child::host::{
  self, feed_and_pipes, Feed, HostLaunch, Launched, Pipes, Signal,
};
use pi_codegraph_core::child::{self, Cancel, RunBounds, RunOutput};
use pi_codegraph_core::errors::CodegraphError;
use pi_codegraph_core::exit_verdict::Exit;
use pi_codegraph_core::off_thread;
use tokio::sync::oneshot;

use crate::host_threads::runtime;
use crate::output::{collected, spill_target, CollectedOutput, OutputCaps, OutputPlace};
use crate::types::{millis_f64, Problem, Progress};

/// A JS function called from the core's threads, not keeping the host alive by itself.
type Weak<T, A> = ThreadsafeFunction<T, (), A, Status, false, true>;
/// One that does: the end of a run the host waits for.
type Strong<T> = ThreadsafeFunction<T, (), T, Status, false>;

/// What the host is asked to start (every string as UTF-8 bytes: emnapi decodes a string of over
/// 16 bytes with a `TextDecoder` that drops a leading U+FEFF).
#[napi(object, object_from_js = false)]
pub struct LaunchSpec {
  pub program: Buffer,
  pub executable: Buffer,
  pub args: Vec<Buffer>,
  pub cwd: Buffer,
  /// Names and values, alternating.
  pub env: Vec<Buffer>,
}

fn utf8(s: &std::ffi::OsStr) -> Buffer {
  Buffer::from(s.to_string_lossy().into_owned().into_bytes())
}

impl LaunchSpec {
  fn of(launch: &HostLaunch) -> Self {
    Self {
      program: utf8(launch.program.as_os_str()),
      executable: utf8(launch.executable.as_os_str()),
      args: launch.args.iter().map(|a| utf8(a)).collect(),
      cwd: utf8(launch.cwd.as_os_str()),
      env: launch
        .env
        .iter()
        .flat_map(|(k, v)| [utf8(k), utf8(v)])
        .collect(),
    }
  }
}

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

/// One child the host started: what its pipes give and how it exited, pushed as they come. Made
/// by the core when it asks the host to start one (`launch`: the host says whether it `started`),
/// or by the host for a run it asks the core to `drive`.
#[napi]
pub struct HostChild {
  feed: Feed,
  launched: Option<oneshot::Sender<Launched>>,
  pipes: Option<Pipes>,
  cancel: Cancel,
}

#[napi]
impl HostChild {
  #[napi(constructor)]
  #[allow(clippy::new_without_default)] // napi's constructor
  pub fn new() -> Self {
    let (feed, pipes) = feed_and_pipes();
    Self {
      feed,
      launched: None,
      pipes: Some(pipes),
      cancel: Cancel::default(),
    }
  }

  /// The caller cancelled a run the core drives: it stops the tree and the run ends
  /// CODEGRAPH_CANCELLED.
  #[napi]
  pub fn cancel(&self) {
    self.cancel.cancel();
  }

  /// Runs the child the host started to its end on the core's runtime: `control(op)` ("SIGTERM",
  /// "SIGKILL", "strays") signals its tree, `onProgress` gets reports while stdout arrives, `done`
  /// the end.
  #[napi]
  pub fn drive(
    &mut self,
    bounds: ChildBounds,
    control: Function<String, ()>,
    on_progress: Option<Function<Progress, ()>>,
    done: Function<ChildEnd, ()>,
  ) -> napi::Result<()> {
    let pipes = self
      .pipes
      .take()
      .ok_or_else(|| napi::Error::from_reason("this child was driven already"))?;
    let signal = signal_of(control)?;
    let progress: Option<Weak<Progress, Progress>> = match on_progress {
      Some(f) => Some(f.build_threadsafe_function().weak::<true>().build()?),
      None => None,
    };
    let done = if bounds.background {
      End::Weak(done.build_threadsafe_function().weak::<true>().build()?)
    } else {
      End::Strong(done.build_threadsafe_function().build()?)
    };
    let started_child = pipes.started(signal, bounds.posix);
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
      let result = child::drive(started_child, &run_bounds, started).await;
      done.call(ended(result, started));
    });
    Ok(())
  }

  /// It started: `control(op)` ("SIGTERM", "SIGKILL", "strays") signals its tree; `posix`: it
  /// may be asked to stop before it is killed (not on Windows).
  #[napi]
  pub fn started(&mut self, control: Function<String, ()>, posix: bool) -> napi::Result<()> {
    let signal = signal_of(control)?;
    if let Some(tx) = self.launched.take() {
      let _ = tx.send(Ok((signal, posix)));
    }
    Ok(())
  }

  /// It did not start: the OS error's code (`ENOENT`, as Node's `spawn` says it) and message.
  #[napi]
  pub fn failed(&mut self, code: String, message: String) {
    if let Some(tx) = self.launched.take() {
      let _ = tx.send(Err(pi_codegraph_core::host::os_error(&code, &message)));
    }
  }

  /// A chunk of stdout; false once the core reads no more (the host may stop reading).
  #[napi]
  pub fn stdout(&self, chunk: Uint8Array) -> bool {
    self.feed.stdout(chunk.to_vec())
  }

  /// A chunk of stderr; false once the core reads no more.
  #[napi]
  pub fn stderr(&self, chunk: Uint8Array) -> bool {
    self.feed.stderr(chunk.to_vec())
  }

  /// Stdout closed.
  #[napi(js_name = "endStdout")]
  pub fn end_stdout(&mut self) {
    self.feed.end_stdout();
  }

  /// Stderr closed.
  #[napi(js_name = "endStderr")]
  pub fn end_stderr(&mut self) {
    self.feed.end_stderr();
  }

  /// The CLI exited: its code, or the signal that ended it.
  #[napi]
  pub fn exited(&mut self, code: Option<i32>, signal: Option<i32>) {
    self.feed.exited(Exit { code, signal });
  }
}

/// How the core signals a child's tree through the host's `control(op)`.
fn signal_of(control: Function<String, ()>) -> napi::Result<Signal> {
  let tsfn: Weak<String, String> = control.build_threadsafe_function().weak::<true>().build()?;
  Ok(Box::new(move |op: &str| {
    tsfn.call(op.to_owned(), ThreadsafeFunctionCallMode::NonBlocking);
  }))
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
  Weak(Weak<ChildEnd, ChildEnd>),
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

/// Where the host's answer to one check goes.
#[napi]
pub struct CheckReply(Option<oneshot::Sender<Result<String, String>>>);

#[napi]
impl CheckReply {
  /// The answer (JSON), or, with none, why there is none.
  #[napi]
  pub fn answer(&mut self, json: Option<String>, why: Option<String>) {
    if let Some(tx) = self.0.take() {
      let _ = tx.send(json.ok_or_else(|| why.unwrap_or_else(|| "no answer".into())));
    }
  }
}

/// A launch as the core asks it: what to start, where its child goes, where the answer goes.
type LaunchAsk = (HostLaunch, Feed, oneshot::Sender<Launched>);
/// A check as the core asks it (JSON) and where the answer goes.
type CheckAsk = (String, oneshot::Sender<Result<String, String>>);

/// Sets the host (see the module comment). Neither function keeps the host alive by itself.
#[napi(js_name = "setHost")]
pub fn set_host(
  launch: Function<FnArgs<(LaunchSpec, HostChild)>, ()>,
  check: Function<FnArgs<(String, CheckReply)>, ()>,
) -> napi::Result<()> {
  let launch: Weak<LaunchAsk, FnArgs<(LaunchSpec, HostChild)>> = launch
    .build_threadsafe_function()
    .weak::<true>()
    .build_callback(
      |ctx: napi::threadsafe_function::ThreadsafeCallContext<LaunchAsk>| {
        let (asked, feed, launched) = ctx.value;
        let child = HostChild {
          feed,
          launched: Some(launched),
          pipes: None,
          cancel: Cancel::default(),
        };
        Ok(FnArgs::from((LaunchSpec::of(&asked), child)))
      },
    )?;
  let launch = Mutex::new(launch);
  host::set_launcher(Arc::new(move |asked, feed, launched| {
    if let Ok(f) = launch.lock() {
      f.call(
        (asked, feed, launched),
        ThreadsafeFunctionCallMode::NonBlocking,
      );
    }
  }));
  let check: Weak<CheckAsk, FnArgs<(String, CheckReply)>> = check
    .build_threadsafe_function()
    .weak::<true>()
    .build_callback(
      |ctx: napi::threadsafe_function::ThreadsafeCallContext<CheckAsk>| {
        let (json, reply) = ctx.value;
        Ok(FnArgs::from((json, CheckReply(Some(reply)))))
      },
    )?;
  let check = Mutex::new(check);
  off_thread::set_asker(Arc::new(move |json, reply| {
    if let Ok(f) = check.lock() {
      f.call((json, reply), ThreadsafeFunctionCallMode::NonBlocking);
    }
  }));
  Ok(())
}
