//! A cancellable task on tokio's blocking pool, never on the host's thread, with the caller's
//! `AbortSignal` (the napi edge's glue that `outlineSource()` and `scanSource()` share): an
//! already aborted signal starts the task stopped, a later abort stops it at its next check,
//! and a value that is no `AbortSignal` rejects coded as every call's options are.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use napi::bindgen_prelude::{Object, ToNapiValue, Unknown};
use napi::{Env, Status};
use pi_codegraph_core::child::Cancel;
use pi_codegraph_core::command_run::Failure;
use pi_codegraph_core::errors::CodegraphError;

use crate::{args, convert, runtime};

/// A promise of `settle(task(stopped))`: `task` runs on the blocking pool and asks `stopped()`
/// between its steps. A task that does not finish (it panicked) rejects with `"<what> did not
/// finish"`; no runtime to run it on rejects coded.
pub fn threaded<'env, T, V, W, S>(
  env: &'env Env,
  signal: Option<Unknown<'env>>,
  what: &'static str,
  task: W,
  settle: S,
) -> napi::Result<Object<'env>>
where
  T: Send + 'static,
  V: ToNapiValue + 'static,
  W: FnOnce(&dyn Fn() -> bool) -> T + Send + 'static,
  S: FnOnce(T) -> napi::Result<V> + Send + 'static,
{
  let cancel = Cancel::default();
  let stop = Arc::new(AtomicBool::new(false));
  let link = match args::link_signal(env, signal, &cancel) {
    Ok(link) => link,
    // Aborted before it began: nothing is read.
    Err(CodegraphError::Cancelled { .. }) => {
      stop.store(true, Ordering::Relaxed);
      None
    }
    // Not an AbortSignal: coded as every call's options are.
    Err(e) => return Err(convert::js_error(env, &e, &Failure::default())),
  };
  let work = async move {
    let watch = {
      let stop = stop.clone();
      tokio::spawn(async move {
        cancel.notified().await;
        stop.store(true, Ordering::Relaxed);
      })
    };
    let done = tokio::task::spawn_blocking(move || task(&|| stop.load(Ordering::Relaxed))).await;
    watch.abort();
    done
  };
  runtime::promise(env, work, move |env, outcome| {
    if let Some(link) = link {
      link.detach(&env);
    }
    match outcome {
      Ok(Ok(done)) => settle(done),
      Ok(Err(joined)) => Err(napi::Error::new(
        Status::GenericFailure,
        format!("{what} did not finish: {joined}"),
      )),
      // No runtime to run it on: a coded error, as every call's.
      Err(e) => Err(convert::js_error(&env, &e, &Failure::default())),
    }
  })
}
