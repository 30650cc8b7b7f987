//! The WebAssembly build's threads for the calls the core runs (src/git_call.rs, with the children
//! its host starts: src/host_child.rs): a tokio runtime without its time driver, and the core's
//! timer thread (crates/core/src/clock.rs says why not tokio's timers).

use std::sync::OnceLock;

use napi_derive::napi;

/// Starts the core's two threads (its runtime and its timers), once per process; the host calls it
/// when it can spare what a thread needs (lib/runners/node/child.js says why).
#[napi(js_name = "startCoreThreads")]
pub fn start_core_threads() -> napi::Result<()> {
  pi_codegraph_core::clock::start();
  runtime().map(|_| ())
}

static RUNTIME: OnceLock<tokio::runtime::Handle> = OnceLock::new();

/// The core's runtime: one WASI thread, started on first use and kept for the process (it does
/// not keep the host alive). No time driver: its timers are the core's (`clock`).
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
