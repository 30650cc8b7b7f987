//! The WebAssembly build's host: how the core, running a call on its own thread
//! (src/host_threads.rs), starts a child and asks a check. WASI can neither start nor signal a
//! process, so the core asks its host (the Node runner, lib/runners/node/child.js) through
//! `setHost(launch, check)`: `launch(spec, child)` starts the CLI and feeds its pipes and exit into
//! `child` (a [`HostChild`]); `check(json, msLeft, reply)` has the core in the host's worker answer a check
//! (crates/core/src/off_thread.rs), where the host's facts are, and hands the answer to `reply`.
//! Everything else of a run (the caps, the deadline, cancel, the tree stopped) is the core's
//! (`child::drive`), as natively.

// napi hands the arguments over by value.
#![allow(clippy::needless_pass_by_value)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use napi::bindgen_prelude::{Buffer, FnArgs, Function, Uint8Array};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use pi_codegraph_core::child::host::{self, Feed, HostLaunch, Launched, Signal};
use pi_codegraph_core::exit_verdict::Exit;
use pi_codegraph_core::off_thread::{self, Unanswered};
use tokio::sync::{oneshot, Notify};

/// A JS function called from the core's threads, not keeping the host alive by itself.
type Weak<T, A> = ThreadsafeFunction<T, (), A, Status, false, true>;

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
  /// Nothing waits for it (the version probe): it must not keep the host alive.
  pub background: bool,
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
      background: launch.background,
    }
  }
}

/// One child the core asked its host to start (`launch`): whether it started, what its pipes give
/// and how it exited, pushed as they come.
#[napi]
pub struct HostChild {
  feed: Feed,
  launched: Option<oneshot::Sender<Launched>>,
}

#[napi]
impl HostChild {
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

  /// The CLI exited: its code, or the signal that ended it (its number and the host's name).
  #[napi]
  pub fn exited(&mut self, code: Option<i32>, signal: Option<i32>, signal_name: Option<String>) {
    self
      .feed
      .exited(Exit::told(code, signal, signal_name.as_deref()));
  }
}

/// How the core signals a child's tree through the host's `control(op)`.
fn signal_of(control: Function<String, ()>) -> napi::Result<Signal> {
  let tsfn: Weak<String, String> = control.build_threadsafe_function().weak::<true>().build()?;
  Ok(Box::new(move |op: &str| {
    tsfn.call(op.to_owned(), ThreadsafeFunctionCallMode::NonBlocking);
  }))
}

/// Where the host's answer to one check goes.
#[napi]
pub struct CheckReply(Option<oneshot::Sender<Result<String, Unanswered>>>);

#[napi]
impl CheckReply {
  /// The answer (JSON).
  #[napi]
  pub fn answer(&mut self, json: String) {
    self.send(Ok(json));
  }

  /// No answer: the host could not run the check (its OS error's code, when it has one, and its
  /// words).
  #[napi]
  pub fn failed(&mut self, code: Option<String>, text: String) {
    self.send(Err(Unanswered::Failed { code, text }));
  }

  /// No answer: the check was ended with its worker, held past the time it had.
  #[napi]
  pub fn lost(&mut self) {
    self.send(Err(Unanswered::Lost));
  }
}

impl CheckReply {
  fn send(&mut self, answer: Result<String, Unanswered>) {
    if let Some(tx) = self.0.take() {
      let _ = tx.send(answer);
    }
  }
}

/// A launch as the core asks it: what to start, where its child goes, where the answer goes.
type LaunchAsk = (HostLaunch, Feed, oneshot::Sender<Launched>);
/// A check as the core asks it (JSON), the milliseconds it has, and where the answer goes.
type CheckAsk = (String, f64, oneshot::Sender<Result<String, Unanswered>>);

/// Whether the host said it can answer the core's checks, and who waits for it to.
static READY: AtomicBool = AtomicBool::new(false);
static READY_NOW: OnceLock<Notify> = OnceLock::new();

/// The host can answer the core's checks now (its worker has loaded the core).
#[napi(js_name = "hostReady")]
pub fn host_ready() {
  READY.store(true, Ordering::Release);
  READY_NOW.get_or_init(Notify::new).notify_waiters();
}

/// Waits until the host is ready ([`host_ready`]); whether it had to wait.
pub(crate) async fn ready() -> bool {
  let now = READY_NOW.get_or_init(Notify::new);
  let mut waited = false;
  loop {
    let told = now.notified();
    if READY.load(Ordering::Acquire) {
      return waited;
    }
    waited = true;
    told.await;
  }
}

/// Sets the host (see the module comment). Neither function keeps the host alive by itself.
#[napi(js_name = "setHost")]
pub fn set_host(
  launch: Function<FnArgs<(LaunchSpec, HostChild)>, ()>,
  check: Function<FnArgs<(String, f64, CheckReply)>, ()>,
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
  let check: Weak<CheckAsk, FnArgs<(String, f64, CheckReply)>> = check
    .build_threadsafe_function()
    .weak::<true>()
    .build_callback(
      |ctx: napi::threadsafe_function::ThreadsafeCallContext<CheckAsk>| {
        let (json, left_ms, reply) = ctx.value;
        Ok(FnArgs::from((json, left_ms, CheckReply(Some(reply)))))
      },
    )?;
  let check = Mutex::new(check);
  off_thread::set_asker(Arc::new(move |json, left, reply| {
    if let Ok(f) = check.lock() {
      let left_ms = crate::types::millis_f64(left);
      f.call(
        (json, left_ms, reply),
        ThreadsafeFunctionCallMode::NonBlocking,
      );
    }
  }));
  Ok(())
}

/// The CLI `root`'s live descendants that left its process group (Linux's `/proc`, read through
/// the host's root): the host SIGKILLs them before the group when the core says "strays"
/// (crates/core/src/pid.rs).
#[napi(js_name = "straysOf")]
pub fn strays_of(root: u32) -> Vec<u32> {
  pi_codegraph_core::pid::descendants_outside_group(root)
}
