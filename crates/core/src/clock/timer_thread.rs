//! The WebAssembly build's timers: a thread that wakes each task whose timer falls due, as any
//! other thread would (see the parent module for why not tokio's).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

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
  pub fn at(at: Instant) -> Self {
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

/// Starts the timer thread now, if it is not running yet.
#[cfg_attr(test, allow(dead_code))] // natively only its tests build this module
pub fn start() {
  let _ = timers();
}

#[cfg(test)]
mod tests {
  use super::*;

  #[tokio::test]
  async fn a_timer_wakes_its_task_from_the_timer_thread_once_due() {
    let started = Instant::now();
    let due = Timer::at(started + Duration::from_millis(30));
    let woke = tokio::time::timeout(Duration::from_secs(10), due).await;
    assert!(woke.is_ok(), "the timer never woke its task");
    assert!(started.elapsed() >= Duration::from_millis(30));
  }

  #[tokio::test]
  async fn a_timer_past_a_day_is_never_due() {
    let far = Timer::at(Instant::now() + NEVER + Duration::from_secs(1));
    let woke = tokio::time::timeout(Duration::from_millis(50), far).await;
    assert!(woke.is_err());
  }
}
