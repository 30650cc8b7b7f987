//! The host's answers to what WASI cannot ask (a file's device, inode, links, owner, mode and
//! kind; access(2); opening a file as the native build opens one; making a private directory;
//! whether a pid lives; this process's ids, OS and CPU), for the core's checks in the WebAssembly
//! build (crates/core/src/host.rs): the Node runner's worker answers `ask(question, path)` from
//! Node's `fs` and `process` (lib/runners/node/source-worker.js), installed for one call.

use std::path::Path;

use napi::bindgen_prelude::{FnArgs, Function, FunctionRef};
use napi::Env;
use napi_derive::napi;
use pi_codegraph_core::host::{self, HostFacts, Signal0, Special, Stat};
use pi_codegraph_core::off_thread;

pub(crate) type Ask = FunctionRef<FnArgs<(String, String)>, String>;

/// The host as the core asks it: `ask(question, path)` answers a string (see [`JsHost::answer`]).
#[napi(object)]
pub struct HostInfo {
  /// This process's id.
  pub pid: u32,
  /// This process's user id (`process.getuid()`; none on Windows).
  pub uid: Option<u32>,
  /// `process.platform`.
  pub platform: String,
  /// `process.arch`.
  pub arch: String,
}

struct JsHost {
  env: Env,
  ask: Ask,
  info: HostInfo,
}

impl JsHost {
  /// The host's answer to `question` about `path`: its text, or `!CODE message` for an OS error.
  fn answer(&self, question: &str, path: &Path) -> std::io::Result<String> {
    let ask = self
      .ask
      .borrow_back(&self.env)
      .map_err(std::io::Error::other)?;
    let args = (question.to_owned(), path.to_string_lossy().into_owned());
    let text = ask.call(args.into()).map_err(std::io::Error::other)?;
    match text.strip_prefix('!') {
      Some(error) => {
        let (code, message) = error.split_once(' ').unwrap_or((error, ""));
        Err(host::os_error(code, message))
      }
      None => Ok(text),
    }
  }
}

impl HostFacts for JsHost {
  /// `"<dev> <ino> <nlink> <uid> <mode> <kind>"`, kind one of `fifo`, `char`, `block`, `socket`,
  /// `other`.
  fn stat(&self, path: &Path, follow: bool) -> std::io::Result<Stat> {
    let text = self.answer(if follow { "stat" } else { "lstat" }, path)?;
    let mut fields = text.split(' ');
    let mut number = || {
      fields
        .next()
        .and_then(|f| f.parse::<u64>().ok())
        .unwrap_or(0)
    };
    let (dev, ino, nlink) = (number(), number(), number());
    let (uid, mode) = (number() as u32, number() as u32 & 0o7777);
    let special = match fields.next() {
      Some("fifo") => Some(Special::Fifo),
      Some("char") => Some(Special::CharDevice),
      Some("block") => Some(Special::BlockDevice),
      Some("socket") => Some(Special::Socket),
      _ => None,
    };
    Ok(Stat {
      dev,
      ino,
      nlink,
      uid,
      mode,
      special,
    })
  }

  fn access(&self, path: &Path, mode: u32) -> std::io::Result<()> {
    self.answer(&format!("access{mode}"), path).map(|_| ())
  }

  /// `"regular"` or `"special"`.
  fn opens_regular(&self, path: &Path, no_link: bool) -> std::io::Result<bool> {
    let question = if no_link { "openNoLink" } else { "open" };
    Ok(self.answer(question, path)? == "regular")
  }

  fn signal0(&self, pid: u32) -> Signal0 {
    match self
      .answer("signal0", Path::new(&pid.to_string()))
      .as_deref()
    {
      Ok("delivered") => Signal0::Delivered,
      Ok("no-such-process") => Signal0::NoSuchProcess,
      _ => Signal0::NotPermitted,
    }
  }

  fn pid(&self) -> u32 {
    self.info.pid
  }

  fn uid(&self) -> Option<u32> {
    self.info.uid
  }

  fn make_private_dir(&self, path: &Path) -> std::io::Result<()> {
    self.answer("mkdir700", path).map(|_| ())
  }

  fn close_to_others(&self, path: &Path) -> std::io::Result<()> {
    self.answer("chmod700", path).map(|_| ())
  }

  fn platform(&self) -> (String, String) {
    (self.info.platform.clone(), self.info.arch.clone())
  }
}

/// `work` with the host's answers installed.
pub(crate) fn asking<R>(
  env: &Env,
  ask: &Function<'_, FnArgs<(String, String)>, String>,
  info: HostInfo,
  work: impl FnOnce() -> R,
) -> napi::Result<R> {
  let host = JsHost {
    env: *env,
    ask: ask.create_ref()?,
    info,
  };
  Ok(host::with_facts(Box::new(host), work))
}

/// One of the checks a call asks off its thread (crates/core/src/off_thread.rs `Check`, as JSON),
/// answered on the caller's thread (the Node runner's worker) with the host's facts: its answer,
/// as JSON.
#[napi(js_name = "answerCheck")]
#[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
pub fn answer_check(
  env: &Env,
  check: String,
  ask: Function<'_, FnArgs<(String, String)>, String>,
  info: HostInfo,
) -> napi::Result<String> {
  let check: off_thread::Check =
    serde_json::from_str(&check).map_err(|e| napi::Error::from_reason(e.to_string()))?;
  let answer = asking(env, &ask, info, || off_thread::answer(check))?;
  serde_json::to_string(&answer).map_err(|e| napi::Error::from_reason(e.to_string()))
}
