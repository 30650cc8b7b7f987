//! One explore, start to finish: preflight, discovery, the run, and what its exit means.
//! Plain Rust, no napi types: `lib.rs` converts at the edge.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::time::Instant;

use crate::access::{index_blocked, workspace_blocked};
use crate::discovery::{discover, Launch};
use crate::environment::{ChildEnv, Dropped, EnvSnapshot};
use crate::errors::{ExploreError, SpawnReason};
use crate::full_output::SpillTarget;
use crate::index_writer::{active_writer, Writer};
use crate::limits::{truncation_marker, Bounded};
use crate::preflight::{canonical, check_index, check_request, check_workspace, IndexFound};
use crate::runner::{run, Cancel, ProgressFn, RunSpec};
use crate::version::{Probe, Version};

mod diagnose;
mod exit;
#[cfg(test)]
mod exit_corpus;
pub use diagnose::{diagnose, Diagnosis};
use exit::classify_exit;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an explore waits for CodeGraph to finish writing the index (an `init` of a small
/// project or a `sync` takes a second or two) before it says the index is busy.
pub const WRITER_WAIT: Duration = Duration::from_secs(10);
/// How often the lock files are read again meanwhile.
const WRITER_POLL: Duration = Duration::from_millis(100);

#[derive(Debug)]
pub struct Outcome {
  pub text: String,
  pub request: String,
  pub cwd: PathBuf,
  pub launch: Launch,
  pub index: IndexFound,
  pub cli_version: Option<Version>,
  pub exit_code: i32,
  pub duration: Duration,
  pub stdout: Bounded,
  /// What of the user's environment the child did not get (`environment::code_paths`).
  pub env_dropped: Vec<Dropped>,
}

/// Diagnostics that travel with an error (bounded: no unbounded CLI text).
#[derive(Debug, Default)]
pub struct Failure {
  /// What ran (the platform bundle's launcher when the npm shim was skipped).
  pub executable: Option<PathBuf>,
  pub executable_in_workspace: Option<bool>,
  pub index: Option<IndexFound>,
  pub cli_version: Option<Version>,
  pub duration: Option<Duration>,
  pub env_dropped: Option<Vec<Dropped>>,
}

impl Failure {
  /// What is known of a call that failed after the checks found its executable and index.
  fn after_checks(ready: &Ready, cli_version: Option<Version>, duration: Option<Duration>) -> Self {
    let Ready {
      launch,
      index,
      child_env,
      ..
    } = ready;
    Self {
      executable: Some(launch.runs().to_path_buf()),
      executable_in_workspace: Some(launch.in_workspace),
      index: Some(index.clone()),
      cli_version,
      duration,
      env_dropped: Some(child_env.dropped.clone()),
    }
  }
}

/// Boxed: the error side is large and rare.
pub type Result<T> = std::result::Result<T, Box<(ExploreError, Failure)>>;

fn bare(e: ExploreError) -> Box<(ExploreError, Failure)> {
  Box::new((e, Failure::default()))
}

/// What the checks before the run establish.
struct Ready {
  workspace: PathBuf,
  index: IndexFound,
  launch: Launch,
  /// A CodeGraph process writing the index as the checks ran.
  writer: Option<Writer>,
  /// The environment of every process this call starts (the explore and a `--version` probe).
  child_env: ChildEnv,
}

/// `check` on the blocking pool (a `stat` on a hung mount blocks an async worker), bounded by
/// the call's deadline and cancel.
async fn off_thread<T: Send + 'static>(
  check: impl FnOnce() -> std::result::Result<T, ExploreError> + Send + 'static,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<T, ExploreError> {
  let task = tokio::task::spawn_blocking(check);
  tokio::select! {
    biased;
    () = cancel.notified() => Err(ExploreError::cancelled()),
    () = tokio::time::sleep_until(deadline) => Err(ExploreError::Timeout {
      timeout_ms: timeout.as_millis() as u64,
      stderr_tail: String::new(),
      stalled: true,
      partial_bytes: 0,
      partial_text: String::new(),
    }),
    done = task => done.unwrap_or_else(|e| Err(checks_failed(e))),
  }
}

/// The checks' thread died: a resource running out (tokio panics when it cannot start a thread)
/// or a bug, each said as such.
fn checks_failed(e: tokio::task::JoinError) -> ExploreError {
  let reason = SpawnReason::ChecksFailed {
    text: e.to_string(),
  };
  match e.try_into_panic() {
    Ok(payload) => {
      crate::resources::from_panic(payload.as_ref()).unwrap_or(ExploreError::Spawn { reason })
    }
    Err(_) => ExploreError::Spawn { reason },
  }
}

/// The filesystem checks before anything runs.
async fn preflight(
  request: &str,
  cwd: String,
  env: &EnvSnapshot,
  deadline: Instant,
  timeout: Duration,
  cancel: &Cancel,
) -> std::result::Result<Ready, ExploreError> {
  check_request(request)?;
  let env = env.clone();
  let checks = move || {
    let workspace = check_workspace(&cwd)?;
    let home = canonical(&workspace);
    let index = check_index(&workspace, &home, &env)?;
    let launch = discover(&env, &home)?;
    let writer = active_writer(&index.dir)?;
    let child_env = env.for_child(&home);
    Ok(Ready {
      workspace,
      index,
      launch,
      writer,
      child_env,
    })
  };
  off_thread(checks, deadline, timeout, cancel).await
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
) -> std::result::Result<(), ExploreError> {
  let started = Instant::now();
  let give_up = deadline.min(started + WRITER_WAIT);
  let busy = |w: Writer| ExploreError::IndexBusy {
    lock: w.lock,
    pid: w.pid,
    rebuild: w.rebuild,
    waited_ms: started.elapsed().as_millis() as u64,
  };
  while let Some(w) = writer {
    let now = Instant::now();
    if now >= give_up {
      return Err(busy(w));
    }
    tokio::select! {
      biased;
      () = cancel.notified() => return Err(ExploreError::cancelled()),
      () = tokio::time::sleep_until((now + WRITER_POLL).min(give_up)) => {}
    }
    let dir = dir.to_path_buf();
    writer = match off_thread(move || active_writer(&dir), deadline, timeout, cancel).await {
      // At the deadline (or a filesystem that stalls until it) the writer is still the reason.
      Err(ExploreError::Timeout { .. }) => return Err(busy(w)),
      other => other?,
    };
  }
  Ok(())
}

/// How long the checks after a failure may take (a local stat and access(2) take microseconds; a
/// hung mount must not hold the answer).
const CAUSE_WAIT: Duration = Duration::from_secs(1);

/// After a failed spawn or exit, whether the workspace vanished or was locked (and, with `dir`,
/// whether the index paths are accessible), asked off the async workers; None when the
/// filesystem does not answer within CAUSE_WAIT or the call is cancelled meanwhile.
async fn blocked_cause(
  workspace: &Path,
  dir: Option<&Path>,
  cancel: &Cancel,
) -> Option<ExploreError> {
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

pub async fn explore(
  request: String,
  cwd: String,
  env: EnvSnapshot,
  timeout: Duration,
  cancel: Cancel,
  progress: Option<&ProgressFn>,
) -> Result<Outcome> {
  let deadline = Instant::now() + timeout;
  let mut ready = preflight(&request, cwd, &env, deadline, timeout, &cancel)
    .await
    .map_err(bare)?;
  wait_for_writer(
    ready.writer.take(),
    &ready.index.dir,
    deadline,
    timeout,
    &cancel,
  )
  .await
  .map_err(|e| Box::new((e, Failure::after_checks(&ready, None, None))))?;
  let Ready {
    workspace,
    launch,
    child_env,
    ..
  } = &ready;
  let child_env = &child_env.vars;

  // `--` ends option parsing: a request such as "-p /etc" stays the query and never becomes the
  // CLI's `--path`.
  let args: Vec<OsString> = vec!["explore".into(), "--".into(), request.clone().into()];
  let version = Probe::start(launch, workspace, child_env, deadline);
  let cancel_probe = cancel.clone();
  let result = run(RunSpec {
    launch,
    args: &args,
    cwd: workspace,
    env: child_env,
    timeout,
    deadline,
    cancel: Some(cancel),
    spill: Some(SpillTarget {
      tmpdir_var: env.get_set("TMPDIR").map(PathBuf::from),
      workspace: workspace.clone(),
    }),
    progress,
  })
  .await;
  // The version never delays the answer: what is known now is reported.
  let cli_version = version.now();
  let failure =
    |duration: Option<Duration>| Failure::after_checks(&ready, cli_version.clone(), duration);
  let out = match result {
    Ok(out) => out,
    Err(e) => {
      version.stop();
      // A spawn that could not enter its working directory (ENOENT, as if the CLI were
      // missing, or EACCES) ran after the workspace vanished or was locked.
      let e = match e {
        ExploreError::NotFound { .. } | ExploreError::Spawn { .. } => {
          blocked_cause(workspace, None, &cancel_probe)
            .await
            .unwrap_or(e)
        }
        e => e,
      };
      return Err(Box::new((e, failure(None))));
    }
  };

  if !out.status.success() && !out.stopped_at_drain_limit() {
    version.stop();
    let dir = exit::says_cannot_open(&out).then_some(ready.index.dir.as_path());
    let blocked = blocked_cause(workspace, dir, &cancel_probe).await;
    let err = classify_exit(&out, workspace, &ready.index, blocked);
    return Err(Box::new((err, failure(Some(out.duration)))));
  }

  let mut text = out.stdout.text.clone();
  if text.trim().is_empty() && !out.stdout.truncated {
    text = "(codegraph explore printed nothing)".into();
  }
  if out.stdout.truncated {
    text.push_str(&truncation_marker(&out.stdout));
  }
  let Ready {
    workspace,
    index,
    launch,
    child_env,
    ..
  } = ready;
  Ok(Outcome {
    text,
    request,
    cwd: workspace,
    launch,
    index,
    cli_version,
    // Our own stop at the drain limit is not the CLI's verdict; -1 marks "stopped by us".
    exit_code: if out.stopped_at_drain_limit() { -1 } else { 0 },
    duration: out.duration,
    stdout: out.stdout,
    env_dropped: child_env.dropped,
  })
}
