//! The WebAssembly build's two threads for a child the core runs (src/host_child.rs): a tokio
//! runtime without its time driver, and a timer thread that wakes each task whose timer falls
//! due, as any other thread would. tokio's own timers would park the runtime's thread with a
//! timeout, which, on `wasm32-wasip1-threads`, no other thread can end: the waking thread (Pi's)
//! blocks until the timer is due.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use napi_derive::napi;

/// A timer of the core's timer thread: due at an instant, it wakes the task that waits for it
/// as any other thread does. (tokio's own timers would park the runtime's thread with a timeout,
/// which, on this target, no other thread can end: the waking thread blocks until it is due.)
pub struct Timer(Arc<TimerState>);

#[derive(Default)]
struct TimerState {
  due: AtomicBool,
  waker: Mutex<Option<Waker>>,
}

/// Past this, a timer is one no run reaches (`child.rs` sets such a timer before it knows when):
/// it is never due and takes no place on the timer thread.
const NEVER: Duration = Duration::from_hours(24);

impl Timer {
  pub(crate) fn at(at: Instant) -> Self {
    let state = Arc::new(TimerState::default());
    if at.saturating_duration_since(Instant::now()) < NEVER {
      timers().add(at, Arc::clone(&state));
    }
    Self(state)
  }
}

impl Future for Timer {
  type Output = ();
  fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
    if self.0.due.load(Ordering::Acquire) {
      return Poll::Ready(());
    }
    if let Ok(mut waker) = self.0.waker.lock() {
      *waker = Some(cx.waker().clone());
    }
    // Due meanwhile: its wake may have found no waker yet.
    if self.0.due.load(Ordering::Acquire) {
      return Poll::Ready(());
    }
    Poll::Pending
  }
}

/// The timers not yet due, earliest first, and the thread that waits for the earliest.
struct Timers {
  pending: Mutex<BinaryHeap<Reverse<(Instant, u64)>>>,
  states: Mutex<HashMap<u64, Arc<TimerState>>>,
  changed: Condvar,
  next: AtomicU64,
}

impl Timers {
  fn add(&self, at: Instant, state: Arc<TimerState>) {
    let id = self.next.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut states) = self.states.lock() {
      states.insert(id, state);
    }
    if let Ok(mut pending) = self.pending.lock() {
      pending.push(Reverse((at, id)));
    }
    self.changed.notify_one();
  }

  /// The timer thread: wakes each timer as it falls due.
  fn run(&self) {
    let Ok(mut pending) = self.pending.lock() else {
      return;
    };
    loop {
      let now = Instant::now();
      match pending.peek().copied() {
        Some(Reverse((at, id))) if at <= now => {
          pending.pop();
          let state = self.states.lock().ok().and_then(|mut s| s.remove(&id));
          if let Some(state) = state {
            state.due.store(true, Ordering::Release);
            let waker = state.waker.lock().ok().and_then(|mut w| w.take());
            if let Some(waker) = waker {
              waker.wake();
            }
          }
        }
        Some(Reverse((at, _))) => {
          let Ok((guard, _)) = self.changed.wait_timeout(pending, at - now) else {
            return;
          };
          pending = guard;
        }
        None => {
          let Ok(guard) = self.changed.wait(pending) else {
            return;
          };
          pending = guard;
        }
      }
    }
  }
}

static TIMERS: OnceLock<Arc<Timers>> = OnceLock::new();

/// The core's timer thread, started on first use and kept for the process.
fn timers() -> Arc<Timers> {
  Arc::clone(TIMERS.get_or_init(|| {
    let timers = Arc::new(Timers {
      pending: Mutex::new(BinaryHeap::new()),
      states: Mutex::new(HashMap::new()),
      changed: Condvar::new(),
      next: AtomicU64::new(0),
    });
    let thread = Arc::clone(&timers);
    let _ = std::thread::Builder::new()
      .name("pi-codegraph-timers".into())
      .spawn(move || thread.run());
    timers
  }))
}

/// Starts the core's two threads (its runtime and its timers), once per process; the host calls it
/// when it can spare what a thread needs (lib/runners/node/child.js says why).
#[napi(js_name = "startCoreThreads")]
pub fn start_core_threads() -> napi::Result<()> {
  let _ = timers();
  runtime().map(|_| ())
}

static RUNTIME: OnceLock<tokio::runtime::Handle> = OnceLock::new();

/// The core's runtime: one WASI thread, started on first use and kept for the process (it does
/// not keep the host alive). No time driver: its timers are the timer thread's ([`Timer`]).
pub(crate) fn runtime() -> napi::Result<tokio::runtime::Handle> {
  if let Some(handle) = RUNTIME.get() {
    return Ok(handle.clone());
  }
  let runtime = tokio::runtime::Builder::new_current_thread()
    .build()
    .map_err(|e| napi::Error::from_reason(format!("the core's runtime: {e}")))?;
  let handle = runtime.handle().clone();
  std::thread::Builder::new()
    .name("pi-codegraph-core".into())
    .spawn(move || runtime.block_on(std::future::pending::<()>()))
    .map_err(|e| napi::Error::from_reason(format!("the core's runtime thread: {e}")))?;
  Ok(RUNTIME.get_or_init(|| handle).clone())
}
