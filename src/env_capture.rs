//! The environment as JS sees it, read on the JS thread for the core's [`EnvSnapshot`].

use std::collections::HashMap;
use std::ffi::OsString;

use napi::bindgen_prelude::{JsObjectValue, Object, Unknown};
use napi::{Env, Result};
use pi_codegraph_core::env_snapshot::EnvSnapshot;

use crate::args::string_arg;

/// The calling thread's `process.env`, key by key. Not the C `environ`: in a Node worker thread
/// `process.env` is the worker's own copy (what it set there never reaches `environ`), and under
/// Bun assignments to `process.env` never reach it either. The Node runner reads the same object,
/// so both runners start the CLI with the environment the caller sees. Where a value is the
/// C environment's, read as JS reads it, the C bytes are kept: a PATH entry that is not UTF-8
/// still names its directory.
pub fn js_environment(env: &Env) -> EnvSnapshot {
  let c_environ: HashMap<OsString, OsString> = std::env::vars_os().collect();
  let read = || -> Result<EnvSnapshot> {
    let process: Object = env.get_global()?.get_named_property("process")?;
    let vars: Object = process.get_named_property("env")?;
    let keys = vars.get_property_names()?;
    let mut pairs = Vec::new();
    for i in 0..keys.get_array_length()? {
      let key: String = keys.get_element(i)?;
      if let Some(value) = string_arg(&vars.get_named_property::<Unknown>(&key)?) {
        let key = OsString::from(key);
        let value = match c_environ.get(&key) {
          Some(raw) if raw.to_string_lossy() == value.as_str() => raw.clone(),
          _ => value.into(),
        };
        pairs.push((key, value));
      }
    }
    Ok(EnvSnapshot::from_vars(pairs))
  };
  // A `process.env` that cannot be read (replaced by a throwing Proxy, say): the C environment.
  read().unwrap_or_else(|_| EnvSnapshot::from_vars(c_environ.into_iter().collect()))
}
