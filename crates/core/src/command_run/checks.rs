//! The checks before a command runs (workspace, index, executable, an active index writer), and
//! the ones after a failure (did the workspace vanish or lock?), off the async workers and
//! bounded by the call's deadline and cancel.

use std::path::Path;
use std::time::Duration;

use tokio::time::Instant;

use super::WRITER_WAIT;
use crate::child::Cancel;
use crate::command::Command;
use crate::discovery::package_cli;
use crate::env_snapshot::EnvSnapshot;
use crate::errors::{CodegraphError, Writer};
use crate::full_output::{NotKeptReason, SpillPlace};
use crate::off_thread::{ask, unexpected, Answer, Check};
pub(super) use crate::ready::Ready;

/// Where a cut answer's full output goes, or why it is not kept, as the checks found it.
pub(super) type Chosen = std::result::Result<SpillPlace, NotKeptReason>;

/// How often the lock files are read again while a writer is active.
const WRITER_POLL: Duration = Duration::from_millis(100);

/// The filesystem checks before anything runs ([`crate::ready::checks`]), off the async workers
/// and bounded by the call's deadline and cancel; and where a cut answer's full output goes, when
/// they found it (the WebAssembly build's, where the host's facts are).
pub(super) async fn preflight(
  command: &Command,
  cwd: String,
  env: &EnvSnapshot,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<(Ready, Option<Chosen>), CodegraphError> {
  let check = Check::Ready {
    command: command.clone(),
    cwd,
    env: env.vars().to_vec(),
    package_cli: package_cli(),
  };
  match ask(check, deadline, timeout, cancel).await? {
    Answer::Ready { ready, spill } => Ok((*ready, spill)),
    other => Err(unexpected(&other)),
  }
}

/// The writer at work on the index in `dir` now ([`crate::index_writer::active_writer`]), asked
/// off the async workers.
async fn active_writer(
  dir: &Path,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<Option<Writer>, CodegraphError> {
  let check = Check::Writer {
    dir: dir.to_path_buf(),
  };
  match ask(check, deadline, timeout, cancel).await? {
    Answer::Writer { writer } => Ok(writer),
    other => Err(unexpected(&other)),
  }
}

/// A problem check (`check`: an unfinished write, a blocked workspace), asked off the async workers.
async fn problem(
  check: Check,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<Option<CodegraphError>, CodegraphError> {
  match ask(check, deadline, timeout, cancel).await? {
    Answer::Problem { problem } => Ok(problem),
    other => Err(unexpected(&other)),
  }
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
    let check = Check::Interrupted {
      dir: dir.to_path_buf(),
    };
    problem(check, deadline, timeout, cancel).await?
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
    writer = match active_writer(dir, deadline, timeout, cancel).await {
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
  active_writer(dir, Instant::now() + CAUSE_WAIT, CAUSE_WAIT, cancel)
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
  let check = Check::Blocked {
    workspace: workspace.to_path_buf(),
    index_dir: dir.map(Path::to_path_buf),
  };
  problem(check, Instant::now() + CAUSE_WAIT, CAUSE_WAIT, cancel)
    .await
    .ok()
    .flatten()
}
