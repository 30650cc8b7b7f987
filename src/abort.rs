//! The caller's `AbortSignal`, linked to the core's [`Cancel`] for the length of one call.

use napi::bindgen_prelude::{
  FnArgs, Function, FunctionRef, JsObjectValue, Object, ObjectRef, Unknown,
};
use napi::{Env, Result};
use pi_codegraph_core::child::Cancel;

use crate::args::clear_pending_exception;

/// An `abort` listener on the caller's signal, removed again when the call settles. Listening
/// (instead of napi-rs's `AbortSignal`, which assigns `signal.onabort`) leaves the caller's own
/// handlers alone, and the same signal can serve many calls.
pub struct AbortLink {
  signal: ObjectRef<false>,
  listener: FunctionRef<(), ()>,
}

type ListenerFn<'a> = Function<'a, FnArgs<(&'static str, Function<'a, (), ()>)>, Unknown<'a>>;

impl AbortLink {
  pub fn attach(env: &Env, signal: &Object, cancel: Cancel) -> Result<Self> {
    let listener = env.create_function_from_closure::<(), (), _>("codegraphAbort", move |_| {
      cancel.cancel();
      Ok(())
    })?;
    let add: ListenerFn = signal.get_named_property("addEventListener")?;
    add.apply(signal, FnArgs::from(("abort", listener)))?;
    Ok(Self {
      signal: signal.create_ref()?,
      listener: listener.create_ref()?,
    })
  }

  pub fn detach(self, env: &Env) {
    let removed = (|| -> Result<()> {
      let signal = self.signal.get_value(env)?;
      let remove: ListenerFn = signal.get_named_property("removeEventListener")?;
      remove.apply(
        signal,
        FnArgs::from(("abort", self.listener.borrow_back(env)?)),
      )?;
      Ok(())
    })();
    // A `removeEventListener` that throws must not keep the promise from settling.
    if removed.is_err() {
      clear_pending_exception(env);
    }
    let _ = self.signal.unref(env);
  }
}
