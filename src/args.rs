//! `run`'s arguments (a command description, the workspace, a signal, options) read out of
//! whatever JS passed. Nothing here trusts napi's typed conversion: a wrong type must reject with
//! a stable CODEGRAPH_* code, not napi's untyped error (or a wrapped u32). The reading is both
//! builds' ([`run_args`]), the signal and the progress callback linked here too.

use std::time::Duration;

use napi::bindgen_prelude::{FromNapiValue, JsObjectValue, JsValue, Object, Unknown};
use napi::{Env, ValueType};
use pi_codegraph_core::child::Cancel;
use pi_codegraph_core::command::{Command, MAX_WRITE_TIMEOUT};
use pi_codegraph_core::errors::{CodegraphError, OptionsReason, WorkspaceReason};

use crate::abort::AbortLink;
use crate::types::ProgressCallback;

mod command;
mod git;
pub use git::read_git;

/// A call's arguments as read: the command, the workspace, the timeout (the caller's
/// `options.timeoutMs`, else the command's own) and `options.onProgress` (a function, or none).
pub struct Call<'env> {
  pub command: Command,
  /// Read as UTF-8 (the Node runner keeps the caller's own string, once this says it is one).
  pub cwd: String,
  pub timeout: Duration,
  pub on_progress: Option<Unknown<'env>>,
}

/// Reads the command, the workspace and the options, in explore's order: the request (the
/// positional text), the workspace, the rest. The first problem wins; a JS exception a getter or
/// Proxy trap left pending is cleared, since the call rejects instead.
pub fn read_call<'env>(
  env: &Env,
  command: &Unknown<'env>,
  cwd: &Unknown<'env>,
  options: Option<Unknown<'env>>,
) -> Result<Call<'env>, CodegraphError> {
  let read = || {
    let description = command::description(command)?;
    let positional = command::positional(&description)?;
    let cwd = string_arg(cwd).ok_or_else(|| CodegraphError::Workspace {
      path: std::path::PathBuf::new(),
      reason: WorkspaceReason::NotString,
      denied: false,
    })?;
    let command = command::rest(&description, positional)?;
    let (timeout, on_progress) = parse_options(options)?;
    let timeout = timeout.unwrap_or(command.timeout);
    if command.writes_index && timeout > MAX_WRITE_TIMEOUT {
      return Err(invalid_options(OptionsReason::WriteTimeout {
        field: "options.timeoutMs",
        max_ms: MAX_WRITE_TIMEOUT.as_millis() as u64,
      }));
    }
    Ok(Call {
      command,
      cwd,
      timeout,
      on_progress,
    })
  };
  let read = read();
  clear_pending_exception(env);
  read
}

/// `run`'s arguments, checked, with the progress callback the addon calls.
pub struct RunArgs {
  pub command: Command,
  pub cwd: String,
  /// The caller's `options.timeoutMs`, else the command's own.
  pub timeout: Duration,
  pub on_progress: Option<ProgressCallback>,
}

/// Reads the arguments ([`read_call`]) and links the signal to `cancel`. The first problem wins
/// and every later check is skipped.
pub fn run_args(
  env: &Env,
  command: &Unknown,
  cwd: &Unknown,
  signal: Option<Unknown>,
  options: Option<Unknown>,
  cancel: &Cancel,
) -> (Result<RunArgs, CodegraphError>, Option<AbortLink>) {
  let read = || {
    let call = read_call(env, command, cwd, options)?;
    let on_progress = match call.on_progress {
      // SAFETY: both handles belong to the current call's live environment, and the value was
      // checked to be a function, which is what the threadsafe function wraps.
      Some(f) => Some(
        unsafe { ProgressCallback::from_napi_value(env.raw(), f.raw()) }
          .map_err(|_| invalid_options(OptionsReason::ProgressUnusable))?,
      ),
      None => None,
    };
    let link = link_signal(env, signal, cancel)?;
    let args = RunArgs {
      command: call.command,
      cwd: call.cwd,
      timeout: call.timeout,
      on_progress,
    };
    Ok((args, link))
  };
  let read = read();
  clear_pending_exception(env);
  match read {
    Ok((args, link)) => (Ok(args), link),
    Err(e) => (Err(e), None),
  }
}

/// Links the caller's signal to `cancel`. An already aborted signal rejects at once.
pub(crate) fn link_signal(
  env: &Env,
  signal: Option<Unknown>,
  cancel: &Cancel,
) -> Result<Option<AbortLink>, CodegraphError> {
  let not_a_signal = || invalid_options(OptionsReason::NotSignal);
  let Some(signal) = signal else {
    return Ok(None);
  };
  match signal.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => Ok(None),
    Ok(ValueType::Object) => {
      let signal = Object::from_unknown(signal).map_err(|_| not_a_signal())?;
      let aborted = signal
        .get_named_property::<Unknown>("aborted")
        .and_then(|a| a.coerce_to_bool())
        .map_err(|_| invalid_options(OptionsReason::AbortedUnreadable))?;
      if aborted {
        return Err(CodegraphError::cancelled());
      }
      AbortLink::attach(env, &signal, cancel.clone())
        .map(Some)
        .map_err(|_| not_a_signal())
    }
    _ => Err(not_a_signal()),
  }
}

/// Takes a pending JS exception (thrown by a getter, a Proxy trap or a listener method) out of
/// the environment: the call reports it as a rejection with a code instead.
pub fn clear_pending_exception(env: &Env) {
  let mut pending = false;
  // SAFETY: `env` is the live environment of the current JS call on this thread; both calls only
  // read or clear its exception slot and write to the local out-pointers.
  unsafe {
    napi::sys::napi_is_exception_pending(env.raw(), &raw mut pending);
    if pending {
      let mut exception = std::ptr::null_mut();
      napi::sys::napi_get_and_clear_last_exception(env.raw(), &raw mut exception);
    }
  }
}

fn invalid_options(reason: OptionsReason) -> CodegraphError {
  CodegraphError::InvalidOptions { reason }
}

/// `{ timeoutMs?, onProgress? }` as a caller may really pass it (no timeout: the command's).
fn parse_options(
  options: Option<Unknown>,
) -> Result<(Option<Duration>, Option<Unknown>), CodegraphError> {
  let defaults = (None, None);
  let Some(options) = options else {
    return Ok(defaults);
  };
  let options = match options.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => return Ok(defaults),
    Ok(ValueType::Object) => {
      Object::from_unknown(options).map_err(|_| invalid_options(OptionsReason::NotObject))?
    }
    _ => return Err(invalid_options(OptionsReason::NotObject)),
  };
  let field = |name: &'static str| {
    options
      .get_named_property::<Unknown>(name)
      .map_err(|_| invalid_options(OptionsReason::Unreadable { field: name }))
  };
  let timeout = timeout_ms(&field("timeoutMs")?, "options.timeoutMs")?;
  let progress = field("onProgress")?;
  let on_progress = match progress.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => None,
    Ok(ValueType::Function) => Some(progress),
    _ => return Err(invalid_options(OptionsReason::OnProgress)),
  };
  Ok((timeout, on_progress))
}

/// `timeoutMs` (named `label` in the error): absent is `None`; else a finite number of
/// milliseconds in 1..=i32::MAX (what a JS timer accepts), fractions cut.
fn timeout_ms(value: &Unknown, label: &'static str) -> Result<Option<Duration>, CodegraphError> {
  let ms = match value.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => return Ok(None),
    Ok(ValueType::Number) => value.coerce_to_number().and_then(|n| n.get_double()).ok(),
    _ => None,
  };
  let ms = ms
    .filter(|ms| ms.is_finite() && *ms >= 1.0 && *ms <= f64::from(i32::MAX))
    .ok_or_else(|| invalid_options(OptionsReason::TimeoutMs { field: label }))?;
  // In range by the filter above: positive and at most i32::MAX.
  #[allow(clippy::cast_sign_loss)]
  Ok(Some(Duration::from_millis(ms as u64)))
}

/// A JS string as UTF-8, or `None` for anything that is not a string.
pub fn string_arg(value: &Unknown) -> Option<String> {
  match value.get_type() {
    Ok(ValueType::String) => value
      .coerce_to_string()
      .ok()?
      .into_utf8()
      .ok()?
      .into_owned()
      .ok(),
    _ => None,
  }
}

/// A JS array of at most `at_most` strings, each read by index; None for anything else.
fn strings(value: &Unknown, at_most: u32) -> Option<Vec<String>> {
  if !matches!(value.get_type(), Ok(ValueType::Object)) {
    return None;
  }
  let list = Object::from_unknown(*value).ok()?;
  let len = list.get_array_length().ok()?;
  if len > at_most {
    return None;
  }
  (0..len)
    .map(|i| {
      list
        .get_element::<Unknown>(i)
        .ok()
        .and_then(|v| string_arg(&v))
    })
    .collect()
}

/// A whole JS number in u32's range; None for anything else.
fn whole_number(value: &Unknown) -> Option<u32> {
  if !matches!(value.get_type(), Ok(ValueType::Number)) {
    return None;
  }
  let n = value.coerce_to_number().and_then(|n| n.get_double()).ok()?;
  // In u32's range by the filter, so the cast neither loses a sign nor truncates.
  #[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)]
  (n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX)).then_some(n as u32)
}
