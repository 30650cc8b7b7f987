//! The checks before a command runs (workspace, index, executable, an active index writer), and
//! the ones after a failure (did the workspace vanish or lock?), off the async workers and
//! bounded by the call's deadline and cancel.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::time::Instant;

use super::WRITER_WAIT;
use crate::access::{index_blocked, workspace_blocked};
use crate::command::Command;
use crate::discovery::{discover_in, Launch};
use crate::env_snapshot::EnvSnapshot;
use crate::environment::ChildEnv;
use crate::errors::{CodegraphError, SpawnReason, Writer};
use crate::files::canonical;
use crate::index_dir::{dir_name, index_dir};
use crate::index_writer::{active_writer, interrupted_write, Interrupted};
use crate::preflight::{
  allow_external, check_index, check_removable, check_request, check_workspace, check_write_target,
  own_entries, own_git_hooks, IndexFound,
};
use crate::runner::Cancel;

/// How often the lock files are read again while a writer is active.
const WRITER_POLL: Duration = Duration::from_millis(100);

/// What the checks before the run establish.
pub(super) struct Ready {
  pub(super) workspace: PathBuf,
  pub(super) index: IndexFound,
  pub(super) launch: Launch,
  /// A CodeGraph process writing the index as the checks ran.
  pub(super) writer: Option<Writer>,
  /// For a command that reads the index, with no writer at work: the last write never finished.
  pub(super) interrupted: Option<CodegraphError>,
  /// The environment of every process this call starts (the explore and a `--version` probe).
  pub(super) child_env: ChildEnv,
}

/// `check` on the blocking pool (a `stat` on a hung mount blocks an async worker), bounded by
/// the call's deadline and cancel.
pub(super) async fn off_thread<T: Send + 'static>(
  check: impl FnOnce() -> std::result::Result<T, CodegraphError> + Send + 'static,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<T, CodegraphError> {
  let task = tokio::task::spawn_blocking(check);
  tokio::select! {
    biased;
    () = cancel.notified() => Err(CodegraphError::cancelled()),
    () = tokio::time::sleep_until(deadline) => Err(CodegraphError::Timeout {
      timeout_ms: timeout.as_millis() as u64,
      stderr_tail: String::new(),
      stalled: true,
      partial_bytes: 0,
      partial_text: String::new(),
      writer_seen: None,
    }),
    done = task => done.unwrap_or_else(|e| Err(checks_failed(e))),
  }
}

/// The checks' thread died: a resource running out (tokio panics when it cannot start a thread)
/// or a bug, each said as such.
fn checks_failed(e: tokio::task::JoinError) -> CodegraphError {
  let reason = SpawnReason::ChecksFailed {
    text: e.to_string(),
  };
  match e.try_into_panic() {
    Ok(payload) => {
      crate::resources::from_panic(payload.as_ref()).unwrap_or(CodegraphError::Spawn { reason })
    }
    Err(_) => CodegraphError::Spawn { reason },
  }
}

/// The directories whose code the child must not run: the workspace it runs in (`home`) and, for
/// a call in another root, Pi's workspace (`on_behalf_of`), resolved as `home` is.
pub(super) fn homes(home: &Path, on_behalf_of: Option<&Path>) -> Vec<PathBuf> {
  let mut homes = vec![home.to_path_buf()];
  if let Some(ws) = on_behalf_of {
    homes.push(canonical(ws));
  }
  homes
}

/// The filesystem checks before anything runs. A command that writes the index is first held to
/// the workspace's own index directory ([`check_writes`]). A command that needs no index (init) is
/// given the directory its index will have, so that an active writer there is still seen.
pub(super) async fn preflight(
  command: &Command,
  cwd: String,
  env: &EnvSnapshot,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<Ready, CodegraphError> {
  if let Some(text) = &command.positional {
    check_request(text)?;
  }
  let env = env.clone();
  let needs_index = command.needs_index;
  let write_subcommand = command.writes_index.then(|| command.subcommand.clone());
  let refuses_interrupted = command.refuses_interrupted();
  let on_behalf_of = command.workspace.clone();
  let checks = move || {
    let workspace = check_workspace(&cwd)?;
    let home = canonical(&workspace);
    let homes = homes(&home, on_behalf_of.as_deref());
    // The directory the CLI will open, chosen once for the write checks and for init
    // (check_index finds it itself for a command that reads the index).
    let chosen =
      (write_subcommand.is_some() || !needs_index).then(|| index_dir(&workspace, &home, &env));
    if let (Some(subcommand), Some(dir)) = (&write_subcommand, &chosen) {
      check_writes(&workspace, &home, &env, dir, needs_index, subcommand)?;
    }
    // The executable before the index: without a CLI the cause to name is the CLI (an index could
    // not be made either), not the index.
    let launch = discover_in(&env, &homes)?;
    let index = if needs_index {
      let found = check_index(&workspace, &home, &env)?;
      own_entries(&workspace, &home, &env, found)?
    } else {
      let dir = chosen.unwrap_or_else(|| index_dir(&workspace, &home, &env));
      IndexFound {
        resolved: canonical(&dir),
        dir,
        bytes: None,
      }
    };
    let writer = active_writer(&index.dir)?;
    let interrupted = if refuses_interrupted && writer.is_none() {
      interrupted_write(&index.dir)?.map(Interrupted::error)
    } else {
      None
    };
    let mut child_env = ChildEnv::for_homes(&env, &homes);
    if write_subcommand.is_some() {
      // init and uninit write git hooks where git names them: only the workspace's own.
      child_env.pin_git_hooks(own_git_hooks(&workspace, &home).as_deref());
    }
    Ok(Ready {
      workspace,
      index,
      launch,
      writer,
      interrupted,
      child_env,
    })
  };
  off_thread(checks, deadline, timeout, cancel).await
}

/// The subcommands that delete the index directory (CodeGraph's `removeDirectory`).
const REMOVES_INDEX_DIR: &[&str] = &["uninit"];

/// A command that writes the index writes only into the workspace's own index directory
/// ([`check_write_target`]; a link is accepted only for an existing index the user accepts
/// outside the workspace), and one that deletes it deletes only what CodeGraph made
/// ([`check_removable`]).
pub(super) fn check_writes(
  workspace: &Path,
  home: &Path,
  env: &EnvSnapshot,
  index_dir: &Path,
  needs_index: bool,
  subcommand: &str,
) -> std::result::Result<(), CodegraphError> {
  let name = dir_name(index_dir);
  check_write_target(workspace, home, &name, needs_index && allow_external(env))?;
  if REMOVES_INDEX_DIR.contains(&subcommand) {
    check_removable(workspace, &name)?;
  }
  Ok(())
}

/// A command that reads the index is refused when the last write never finished
/// (CODEGRAPH_INDEX_INTERRUPTED): as the checks found it, or, when it waited for a writer, as
/// that writer left it (a writer stopped mid-write leaves its lock).
pub(super) async fn refuse_interrupted(
  found: Option<CodegraphError>,
  waited: bool,
  command: &Command,
  dir: &Path,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<(), CodegraphError> {
  if !command.refuses_interrupted() {
    return Ok(());
  }
  let found = if waited {
    let dir = dir.to_path_buf();
    off_thread(
      move || Ok(interrupted_write(&dir)?.map(Interrupted::error)),
      deadline,
      timeout,
      cancel,
    )
    .await?
  } else {
    found
  };
  found.map_or(Ok(()), Err)
}

/// An active index writer: a command that writes is refused at once (two writers would corrupt
/// the index or fight over its lock); one that reads waits for it ([`wait_for_writer`]).
pub(super) async fn settle_writer(
  writer: Option<Writer>,
  writes_index: bool,
  dir: &Path,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<(), CodegraphError> {
  if writes_index {
    return writer.map_or(Ok(()), |w| Err(busy(w, 0)));
  }
  wait_for_writer(writer, dir, deadline, timeout, cancel).await
}

fn busy(w: Writer, waited_ms: u64) -> CodegraphError {
  CodegraphError::IndexBusy {
    lock: w.lock,
    pid: w.pid,
    rebuild: w.rebuild,
    outside: w.outside,
    waited_ms,
  }
}

/// While CodeGraph writes the index, an answer would come from a partial graph: waits for the
/// writer to finish, at most `WRITER_WAIT` and never past the deadline, and otherwise fails
/// with CODEGRAPH_INDEX_BUSY.
async fn wait_for_writer(
  mut writer: Option<Writer>,
  dir: &Path,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<(), CodegraphError> {
  let started = Instant::now();
  let give_up = deadline.min(started + WRITER_WAIT);
  let busy = |w: Writer| busy(w, started.elapsed().as_millis() as u64);
  while let Some(w) = writer {
    let now = Instant::now();
    if now >= give_up {
      return Err(busy(w));
    }
    tokio::select! {
      biased;
      () = cancel.notified() => return Err(CodegraphError::cancelled()),
      () = tokio::time::sleep_until((now + WRITER_POLL).min(give_up)) => {}
    }
    let dir = dir.to_path_buf();
    writer = match off_thread(move || active_writer(&dir), deadline, timeout, cancel).await {
      // At the deadline (or a filesystem that stalls until it) the writer is still the reason.
      Err(CodegraphError::Timeout { .. }) => return Err(busy(w)),
      other => other?,
    };
  }
  Ok(())
}

/// What a failed run means once its aftermath is checked: a spawn that could not enter its
/// working directory (ENOENT, as if the CLI were missing, or EACCES) ran after the workspace
/// vanished or was locked; a timeout says whether CodeGraph was writing the index as the
/// deadline passed (a reason to ask again rather than narrower).
pub(super) async fn after_failed_run(
  mut e: CodegraphError,
  workspace: &Path,
  index_dir: &Path,
  cancel: &Cancel,
) -> CodegraphError {
  match &mut e {
    CodegraphError::NotFound { .. } | CodegraphError::Spawn { .. } => {
      if let Some(blocked) = blocked_cause(workspace, None, cancel).await {
        return blocked;
      }
    }
    CodegraphError::Timeout { writer_seen, .. } => {
      *writer_seen = writer_now(index_dir, cancel).await.map(Box::new);
    }
    _ => {}
  }
  e
}

/// At a timeout: the CodeGraph writer active on the index in `dir` right now, by the same rules
/// as before the run ([`active_writer`]); None when there is none, or when the filesystem does not
/// answer within CAUSE_WAIT or the call is cancelled meanwhile.
async fn writer_now(dir: &Path, cancel: &Cancel) -> Option<Writer> {
  let dir = dir.to_path_buf();
  off_thread(
    move || active_writer(&dir),
    Instant::now() + CAUSE_WAIT,
    CAUSE_WAIT,
    cancel,
  )
  .await
  .ok()
  .flatten()
}

/// How long the checks after a failure may take (a local stat and access(2) take microseconds; a
/// hung mount must not hold the answer).
const CAUSE_WAIT: Duration = Duration::from_secs(1);

/// After a failed spawn or exit, whether the workspace vanished or was locked (and, with `dir`,
/// whether the index paths are accessible), asked off the async workers; None when the
/// filesystem does not answer within CAUSE_WAIT or the call is cancelled meanwhile.
pub(super) async fn blocked_cause(
  workspace: &Path,
  dir: Option<&Path>,
  cancel: &Cancel,
) -> Option<CodegraphError> {
  let (ws, dir) = (workspace.to_path_buf(), dir.map(Path::to_path_buf));
  let check = move || {
    Ok(match dir {
      Some(dir) => index_blocked(&ws, &dir),
      None => workspace_blocked(&ws),
    })
  };
  off_thread(check, Instant::now() + CAUSE_WAIT, CAUSE_WAIT, cancel)
    .await
    .ok()
    .flatten()
}
