//! The core's timers: what every wait with a deadline (a run's, a check's, a writer's, a version
//! probe's) waits on. Natively tokio's. In the WebAssembly build, a timer thread of the core's
//! own ([`timer_thread`]): tokio's timers would park the runtime's thread with a timeout, which,
//! on `wasm32-wasip1-threads`, no other thread can end (the waking thread, Pi's, blocks until the
//! timer is due).

use std::future::Future;

use tokio::time::Instant;

#[cfg(any(target_family = "wasm", test))]
mod timer_thread;

/// A timer due at an instant.
#[cfg(not(target_family = "wasm"))]
pub type Timer = std::pin::Pin<Box<tokio::time::Sleep>>;
#[cfg(target_family = "wasm")]
pub use timer_thread::Timer;

/// A timer due at `at`.
#[cfg(not(target_family = "wasm"))]
pub fn timer(at: Instant) -> Timer {
  Box::pin(tokio::time::sleep_until(at))
}

/// A timer due at `at`.
#[cfg(target_family = "wasm")]
pub fn timer(at: Instant) -> Timer {
  Timer::at(at.into_std())
}

/// Starts the timer thread now (the WebAssembly build's, when its host can spare a thread; a
/// no-op natively).
pub fn start() {
  #[cfg(target_family = "wasm")]
  timer_thread::start();
}

/// `work`'s output, or `Err(Elapsed)` once `at` passed first.
pub async fn timeout_at<F: Future>(at: Instant, work: F) -> Result<F::Output, Elapsed> {
  tokio::select! {
    biased;
    out = work => Ok(out),
    () = timer(at) => Err(Elapsed),
  }
}

/// A deadline passed before the work ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

/// Resolves at `at`.
pub async fn sleep_until(at: Instant) {
  timer(at).await;
}
