//! One long-lived CodeGraph per workspace, for the user who turned auto sync on: `codegraph serve
//! --mcp --no-watch` (CodeGraph's own MCP server, one process, its watcher and daemon off), asked
//! explore's and node's questions over stdio instead of a process per call. Its answers are the
//! CLI's (`request`: the same handler with the same arguments), so the text goes through the same
//! caps, cleaning and full-output file, and the call through the same checks and writer rule
//! (`command_run`); only the process is not new.
//!
//! The guarantees of a process per call hold: the call's deadline or cancel stops the server's
//! whole tree (the next call starts another); a server that exits, overflows a reply or answers
//! out of protocol is stopped and the call runs as a process; a write that replaces or removes
//! the index stops it first ([`stop_before_write`]); a database replaced under it (another
//! `codegraph index`) starts a new one; [`stop_all`] at the session's end, and the host watch if
//! the host dies. Only the native addon has it: the WebAssembly core cannot keep a process.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant as StdInstant};

use tokio::time::Instant;

use crate::caps::Caps;
use crate::child::{Cancel, RunOutput};
use crate::command::Command;
use crate::discovery::Launch;
use crate::errors::CodegraphError;
use crate::exit_verdict::Exit;
use crate::full_output::SpillTarget;
use crate::limits::StdoutCollector;

mod request;
mod server;
pub use request::tool_call;
use server::{CallEnd, Server};

/// The writes CodeGraph makes beside its own server (observed with 1.6.1: `sync` writes while a
/// `serve --mcp` holds `writer.pid`, and the server answers from what it wrote); every other
/// write (`index` refuses while the server lives; `uninit` removes its database) stops it first.
const WRITES_BESIDE_SERVER: &[&str] = &["sync"];

/// How a command went to the long-lived CodeGraph.
pub enum Served {
  /// Answered: the output a process would have given (stdout within the caps, its exit).
  Answered(RunOutput),
  /// The call's own deadline or cancel (the server was stopped).
  Stopped(CodegraphError),
  /// Not served (it could not start, or broke): the call runs as a process.
  Unavailable,
}

/// After a server could not start (CodeGraph refuses a second one on an index another server
/// holds: a second Pi, the user's own MCP client) or broke under a call, how long calls run as
/// processes before one is tried again: a refused start costs about 180 ms.
const RETRY_AFTER: Duration = Duration::from_mins(1);

/// How long a server may take to answer MCP's handshake (CodeGraph 1.6.1: 0.2 to 0.3 s on the
/// bench's trees).
const START_BOUND: Duration = Duration::from_secs(10);

/// A running server and what it was started for.
struct Held {
  server: Arc<Server>,
  program: PathBuf,
  database: Option<DatabaseIdentity>,
}

/// A workspace's server, or when one last could not start.
#[derive(Default)]
struct SlotState {
  held: Option<Held>,
  refused_at: Option<StdInstant>,
}

type Slot = Arc<tokio::sync::Mutex<SlotState>>;

fn slots() -> &'static Mutex<HashMap<PathBuf, Slot>> {
  static SLOTS: OnceLock<Mutex<HashMap<PathBuf, Slot>>> = OnceLock::new();
  SLOTS.get_or_init(Mutex::default)
}

fn slot_of(workspace: &Path) -> Slot {
  let mut slots = slots()
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner);
  slots.entry(workspace.to_path_buf()).or_default().clone()
}

/// Everything one served call needs from the checks that ran before it.
pub struct Ask<'a> {
  pub command: &'a Command,
  pub launch: &'a Launch,
  pub workspace: &'a Path,
  pub env: &'a [(OsString, OsString)],
  pub index_dir: &'a Path,
  pub deadline: Instant,
  pub timeout: Duration,
  pub cancel: &'a Cancel,
  pub spill: Option<SpillTarget>,
}

/// Answers `ask.command` through the workspace's long-lived CodeGraph, started if none runs (or
/// if the one running was started for another executable or another database).
pub async fn serve(ask: Ask<'_>) -> Served {
  let Some((tool, arguments)) = tool_call(ask.command) else {
    return Served::Unavailable;
  };
  let started = StdInstant::now();
  let database = DatabaseIdentity::of(ask.index_dir);
  let slot = slot_of(ask.workspace);
  let server = {
    let Ok(mut state) = tokio::time::timeout_at(ask.deadline, slot.lock()).await else {
      return Served::Unavailable; // the deadline's words are the process run's to give
    };
    let usable = state.held.as_ref().is_some_and(|h| {
      h.server.alive() && h.program == ask.launch.program && h.database == database
    });
    if !usable {
      if let Some(old) = state.held.take() {
        old.server.stop().await;
      }
      if state
        .refused_at
        .is_some_and(|at| at.elapsed() < RETRY_AFTER)
      {
        return Served::Unavailable;
      }
      // A server that takes longer than START_BOUND to answer MCP's handshake is not waited
      // for: the call runs as a process, within what is left of its own deadline.
      let start_by = ask.deadline.min(Instant::now() + START_BOUND);
      match Server::start(
        ask.launch,
        ask.workspace,
        ask.env,
        start_by,
        ask.timeout,
        ask.cancel,
      )
      .await
      {
        Ok(server) => {
          state.refused_at = None;
          state.held = Some(Held {
            server: Arc::new(server),
            program: ask.launch.program.clone(),
            database,
          });
        }
        Err(Some(CodegraphError::Timeout { .. })) if Instant::now() < ask.deadline => {
          state.refused_at = Some(StdInstant::now());
          return Served::Unavailable;
        }
        Err(Some(stopped)) => return Served::Stopped(stopped),
        Err(None) => {
          state.refused_at = Some(StdInstant::now());
          return Served::Unavailable;
        }
      }
    }
    state
      .held
      .as_ref()
      .map(|h| h.server.clone())
      .expect("held above")
  };
  match server
    .call(tool, arguments, ask.deadline, ask.timeout, ask.cancel)
    .await
  {
    CallEnd::Answered { text, is_error } => Served::Answered(output(
      &text,
      is_error,
      ask.command.caps,
      ask.spill,
      started,
    )),
    CallEnd::Stopped(e) => {
      forget(&slot, &server).await;
      Served::Stopped(e)
    }
    CallEnd::Broken => {
      // A server that broke under a call is not tried again at once (it could on every call);
      // one stopped on purpose meanwhile (the session's end, a write) did not break.
      if forget(&slot, &server).await {
        slot.lock().await.refused_at = Some(StdInstant::now());
      }
      Served::Unavailable
    }
    CallEnd::Declined => Served::Unavailable,
  }
}

/// Stops `server` and empties the slot if it still holds it (another call may have replaced it,
/// or a stop taken it); whether it did.
async fn forget(slot: &Slot, server: &Arc<Server>) -> bool {
  let mut state = slot.lock().await;
  let current = state
    .held
    .as_ref()
    .is_some_and(|h| Arc::ptr_eq(&h.server, server));
  if current {
    state.held.take();
  }
  drop(state);
  server.stop().await;
  current
}

/// Before `command` runs in `workspace`: a write CodeGraph does not make beside its server stops it.
pub async fn stop_before_write(command: &Command, workspace: &Path) {
  if command.writes_index && !WRITES_BESIDE_SERVER.contains(&command.subcommand.as_str()) {
    stop(workspace).await;
  }
}

/// Stops the workspace's long-lived CodeGraph, if one runs; whether one did.
pub async fn stop(workspace: &Path) -> bool {
  let slot = slots()
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner)
    .get(workspace)
    .cloned();
  let Some(slot) = slot else { return false };
  let taken = {
    let mut state = slot.lock().await;
    // Stopped on purpose (the session ended, auto sync off, a write): the next start is tried.
    state.refused_at = None;
    state.held.take()
  };
  match taken {
    Some(held) => {
      held.server.stop().await;
      true
    }
    None => false,
  }
}

/// Stops every long-lived CodeGraph of this process; how many ran.
pub async fn stop_all() -> u32 {
  let workspaces: Vec<PathBuf> = slots()
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner)
    .keys()
    .cloned()
    .collect();
  let mut stopped = 0;
  for workspace in workspaces {
    stopped += u32::from(stop(&workspace).await);
  }
  stopped
}

/// The workspaces with a running long-lived CodeGraph, and its pid.
pub fn running() -> Vec<(PathBuf, Option<u32>)> {
  let slots = slots()
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner);
  slots
    .iter()
    .filter_map(|(w, slot)| {
      let state = slot.try_lock().ok()?;
      let held = state.held.as_ref()?;
      held.server.alive().then(|| (w.clone(), held.server.pid))
    })
    .collect()
}

/// The reply as a process's output: `console.log`'s text and newline through the command's caps,
/// and the CLI's exit (1 on `isError`).
fn output(
  text: &str,
  is_error: bool,
  caps: Caps,
  spill: Option<SpillTarget>,
  started: StdInstant,
) -> RunOutput {
  let mut out = StdoutCollector::with_caps(spill, caps);
  out.push(text.as_bytes());
  out.push(b"\n");
  let flooded = out.over_drain_limit();
  RunOutput {
    stdout: out.finish(!flooded),
    stderr_tail: String::new(),
    exit: Exit {
      code: Some(i32::from(is_error)),
      ..Exit::default()
    },
    duration: started.elapsed(),
  }
}

/// Which database file the index directory holds: a rebuild writes a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DatabaseIdentity(u64, u64);

impl DatabaseIdentity {
  fn of(index_dir: &Path) -> Option<Self> {
    let meta = std::fs::metadata(index_dir.join("codegraph.db")).ok()?;
    #[cfg(unix)]
    {
      use std::os::unix::fs::MetadataExt;
      Some(Self(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
      let created = meta
        .created()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
      Some(Self(created.as_secs(), u64::from(created.subsec_nanos())))
    }
  }
}
