//! The addon's tokio runtime, started on the first call that needs it, and never at the cost of
//! the host. napi-rs's own runtime (its `tokio_rt` feature) is built while the module registers
//! and `expect`s success: near the file-descriptor or thread limit that panic aborts Node
//! (exit 134). Here a runtime that cannot be built is a CODEGRAPH_RESOURCES rejection, and the
//! next call tries again. Each call settles a `JsDeferred` from the runtime: a call whose future
//! panics (tokio panics when it cannot start a blocking thread) still settles, with a coded error.

use std::future::Future;
#[cfg(not(target_family = "wasm"))]
use std::panic::catch_unwind;
#[cfg(not(target_family = "wasm"))]
use std::sync::{Mutex, PoisonError};

use napi::bindgen_prelude::{Object, ToNapiValue};
use napi::Env;
#[cfg(not(target_family = "wasm"))]
use pi_codegraph_core::errors::{os_text, Step};
use pi_codegraph_core::errors::{CodegraphError, SpawnReason};
#[cfg(not(target_family = "wasm"))]
use pi_codegraph_core::resources::exhausted;
use pi_codegraph_core::resources::from_panic;
use tokio::runtime::Handle;
#[cfg(not(target_family = "wasm"))]
use tokio::runtime::{Builder, Runtime};

/// The runtime once built; it lives as long as the process (never dropped, as napi-rs's too).
#[cfg(not(target_family = "wasm"))]
static RUNTIME: Mutex<Option<Runtime>> = Mutex::new(None);

/// The runtime, built now if it is not yet.
#[cfg(not(target_family = "wasm"))]
fn handle() -> Result<Handle, CodegraphError> {
  let mut slot = RUNTIME.lock().unwrap_or_else(PoisonError::into_inner);
  if let Some(rt) = slot.as_ref() {
    return Ok(rt.handle().clone());
  }
  // tokio returns most failures (epoll, eventfd, threads) but panics when its signal pipe
  // cannot be created; either way nothing is left half-built that a retry could trip on.
  // That panic is expected and answered: the default hook would print it (and a backtrace)
  // into the host's terminal, so it is silenced for the build (hooks are process-wide; this is
  // the rare path, and the previous hook is put back).
  let previous = std::panic::take_hook();
  std::panic::set_hook(Box::new(|_| {}));
  let built = catch_unwind(|| {
    Builder::new_multi_thread()
      .enable_all()
      .thread_name("pi-codegraph")
      .build()
  });
  std::panic::set_hook(previous);
  let failed = |text: Option<String>| CodegraphError::Spawn {
    reason: SpawnReason::RuntimeFailed { text },
  };
  match built {
    Ok(Ok(rt)) => {
      let handle = rt.handle().clone();
      *slot = Some(rt);
      Ok(handle)
    }
    Ok(Err(e)) => {
      Err(exhausted(Step::StartRuntime, &e).unwrap_or_else(|| failed(Some(os_text(&e)))))
    }
    Err(panic) => Err(from_panic(panic.as_ref()).unwrap_or_else(|| failed(None))),
  }
}

/// The WebAssembly build's runtime: the core's own thread (src/host_threads.rs), which its host
/// starts when it can spare one.
#[cfg(target_family = "wasm")]
fn handle() -> Result<Handle, CodegraphError> {
  crate::host_threads::runtime().map_err(|e| CodegraphError::Spawn {
    reason: SpawnReason::RuntimeFailed {
      text: Some(e.reason.clone()),
    },
  })
}

/// Waits until the host can answer the core's checks (the WebAssembly build's worker loaded, which
/// compiles the core once per process: a load the addon makes before any call's clock starts);
/// whether it had to wait. Natively at once.
#[cfg(target_family = "wasm")]
pub async fn host_ready() -> bool {
  crate::host_child::ready().await
}

/// Natively there is nothing to wait for: the addon is loaded before any call.
#[cfg(not(target_family = "wasm"))]
#[allow(clippy::unused_async)] // the WebAssembly build's waits
pub async fn host_ready() -> bool {
  false
}

/// A promise settled on the JS thread with `settle(env, outcome)`, where `outcome` is what `work`
/// returned, or why it could not run (no runtime) or did not finish (it panicked).
pub fn promise<T, V, F, S>(env: &Env, work: F, settle: S) -> napi::Result<Object<'_>>
where
  T: Send + 'static,
  V: ToNapiValue + 'static,
  F: Future<Output = T> + Send + 'static,
  S: FnOnce(Env, Result<T, CodegraphError>) -> napi::Result<V> + Send + 'static,
{
  let (deferred, promise) = env.create_deferred()?;
  match handle() {
    Err(e) => deferred.resolve(with(settle, Err(e))),
    Ok(rt) => {
      let task = rt.spawn(work);
      rt.spawn(async move {
        let outcome = task.await.map_err(|e| {
          let reason = SpawnReason::CallFailed {
            text: e.to_string(),
          };
          match e.try_into_panic() {
            Ok(payload) => from_panic(payload.as_ref()).unwrap_or(CodegraphError::Spawn { reason }),
            Err(_) => CodegraphError::Spawn { reason },
          }
        });
        deferred.resolve(with(settle, outcome));
      });
    }
  }
  Ok(promise)
}

/// One resolver type for both ways a call settles (`JsDeferred` is typed by its resolver).
fn with<T, V, S>(
  settle: S,
  outcome: Result<T, CodegraphError>,
) -> impl FnOnce(Env) -> napi::Result<V>
where
  S: FnOnce(Env, Result<T, CodegraphError>) -> napi::Result<V>,
{
  move |env| settle(env, outcome)
}
