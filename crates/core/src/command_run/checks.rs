//! The checks before a command runs (workspace, index, executable, an active index writer), and
//! the ones after a failure (did the workspace vanish or lock?), off the async workers and
//! bounded by the call's deadline and cancel.

use std::path::Path;
use std::time::Duration;

use tokio::time::Instant;

use super::WRITER_WAIT;
use crate::access::{index_blocked, workspace_blocked};
use crate::child::Cancel;
use crate::command::Command;
use crate::env_snapshot::EnvSnapshot;
use crate::errors::{CodegraphError, SpawnReason, Writer};
use crate::index_writer::{active_writer, interrupted_write, Interrupted};
use crate::ready;
pub(super) use crate::ready::Ready;

/// How often the lock files are read again while a writer is active.
const WRITER_POLL: Duration = Duration::from_millis(100);

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
    () = crate::clock::sleep_until(deadline) => Err(CodegraphError::Timeout {
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

/// The filesystem checks before anything runs ([`crate::ready::checks`]), off the async workers
/// and bounded by the call's deadline and cancel.
pub(super) async fn preflight(
  command: &Command,
  cwd: String,
  env: &EnvSnapshot,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<Ready, CodegraphError> {
  let command = command.clone();
  let env = env.clone();
  off_thread(
    move || ready::checks(&command, &cwd, &env),
    deadline,
    timeout,
    cancel,
  )
  .await
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
      () = crate::clock::sleep_until((now + WRITER_POLL).min(give_up)) => {}
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
