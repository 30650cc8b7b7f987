//! The environment as JS sees it, read on the JS thread for the core's [`EnvSnapshot`].

use std::sync::OnceLock;

use napi::bindgen_prelude::{JsObjectValue, Object, Unknown};
use napi::{Env, Result, ValueType};
use pi_codegraph_core::environment::EnvSnapshot;

use crate::args::string_arg;

/// Under Node `process.env` writes through to the C `environ` (on this same thread), so
/// `environ` is read directly: cheap, and no race with a `setenv` from a worker thread. Under Bun
/// assignments to `process.env` never reach `environ`, so there the object itself is read, key
/// by key.
pub fn js_environment(env: &Env) -> EnvSnapshot {
  static ENV_IS_JS_ONLY: OnceLock<bool> = OnceLock::new();
  let process = || -> Result<Object> { env.get_global()?.get_named_property("process") };
  let js_only = *ENV_IS_JS_ONLY.get_or_init(|| {
    let bun = || -> Result<bool> {
      let versions: Object = process()?.get_named_property("versions")?;
      Ok(versions.get_named_property::<Unknown>("bun")?.get_type()? == ValueType::String)
    };
    bun().unwrap_or(false)
  });
  if !js_only {
    return EnvSnapshot::capture();
  }
  let read = || -> Result<EnvSnapshot> {
    let vars: Object = process()?.get_named_property("env")?;
    let keys = vars.get_property_names()?;
    let mut pairs = Vec::new();
    for i in 0..keys.get_array_length()? {
      let key: String = keys.get_element(i)?;
      if let Some(value) = string_arg(&vars.get_named_property::<Unknown>(&key)?) {
        pairs.push((key.into(), value.into()));
      }
    }
    Ok(EnvSnapshot::from_vars(pairs))
  };
  read().unwrap_or_else(|_| EnvSnapshot::capture())
}
