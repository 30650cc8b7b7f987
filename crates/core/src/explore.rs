//! One explore, start to finish: preflight, discovery, the run, and what its exit means.
//! Plain Rust, no napi types: `lib.rs` converts at the edge.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use crate::discovery::{discover, Launch};
use crate::environment::EnvSnapshot;
use crate::errors::{shown, ExploreError, NoIndexKind};
use crate::full_output::SpillTarget;
use crate::limits::{truncation_marker, Bounded};
use crate::preflight::{canonical, check_index, check_request, check_workspace, IndexFound};
use crate::runner::{run, Cancel, ProgressFn, RunSpec};
use crate::sanitize::redact;
use crate::version::{Probe, Version};

mod diagnose;
pub use diagnose::{diagnose, Diagnosis};

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What CodeGraph prints on stderr when the directory has no index (1.1 to 1.6.1).
const CLI_NO_INDEX_MARKER: &str = "no .codegraph/ index exists";
/// What CodeGraph 1.6.1 prints when it cannot open its index read-write (SQLite's message for a
/// read-only database file or directory).
const CLI_READONLY_MARKERS: &[&str] = &["attempt to write a readonly database", "SQLITE_READONLY"];
/// Bound on the stdout excerpt attached to a failure whose stderr is empty (the CLI prints its
/// validation errors, such as `Error: query must be a non-empty string`, on stdout).
const STDOUT_EXCERPT_BYTES: usize = 1024;

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
}

/// The filesystem checks, off the async workers (a `stat` on a hung mount blocks) and bounded by
/// the call's deadline and cancel.
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
  let checks = tokio::task::spawn_blocking(move || {
    let workspace = check_workspace(&cwd)?;
    let home = canonical(&workspace);
    let index = check_index(&workspace, &home, &env)?;
    let launch = discover(&env, &home)?;
    Ok(Ready {
      workspace,
      index,
      launch,
    })
  });
  tokio::select! {
    biased;
    () = cancel.notified() => Err(ExploreError::Cancelled { partial_bytes: 0, partial_text: String::new() }),
    () = tokio::time::sleep_until(deadline) => Err(ExploreError::Timeout {
      timeout_ms: timeout.as_millis() as u64,
      stderr_tail: "(stopped while checking the workspace: the filesystem did not answer)".into(),
      partial_bytes: 0,
      partial_text: String::new(),
    }),
    done = checks => done.unwrap_or_else(|e| Err(ExploreError::Spawn { reason: format!("the workspace checks failed: {e}") })),
  }
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
  let Ready {
    workspace,
    index,
    launch,
  } = preflight(&request, cwd, &env, deadline, timeout, &cancel)
    .await
    .map_err(bare)?;
  let child_env = env.for_child();

  // `--` ends option parsing: a request such as "-p /etc" stays the query and never becomes the
  // CLI's `--path`.
  let args: Vec<OsString> = vec!["explore".into(), "--".into(), request.clone().into()];
  let version = Probe::start(&launch, &workspace, &child_env, deadline);
  let result = run(RunSpec {
    launch: &launch,
    args: &args,
    cwd: &workspace,
    env: &child_env,
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
  let failure = |duration: Option<Duration>| Failure {
    executable: Some(launch.runs().to_path_buf()),
    executable_in_workspace: Some(launch.in_workspace),
    index: Some(index.clone()),
    cli_version: cli_version.clone(),
    duration,
  };
  let out = match result {
    Ok(out) => out,
    Err(e) => {
      version.stop();
      return Err(Box::new((e, failure(None))));
    }
  };

  if !out.status.success() && !out.stopped_at_drain_limit() {
    version.stop();
    let err = classify_exit(&out, &workspace, &index);
    return Err(Box::new((err, failure(Some(out.duration)))));
  }

  let mut text = out.stdout.text.clone();
  if text.trim().is_empty() && !out.stdout.truncated {
    text = "(codegraph explore printed nothing)".into();
  }
  if out.stdout.truncated {
    text.push_str(&truncation_marker(&out.stdout));
  }
  Ok(Outcome {
    text,
    request,
    cwd: workspace.clone(),
    launch,
    index,
    cli_version,
    // Our own stop at the drain limit is not the CLI's verdict; -1 marks "stopped by us".
    exit_code: if out.stopped_at_drain_limit() { -1 } else { 0 },
    duration: out.duration,
    stdout: out.stdout,
  })
}

fn classify_exit(
  out: &crate::runner::RunOutput,
  workspace: &std::path::Path,
  index: &IndexFound,
) -> ExploreError {
  if out.stderr_tail.contains(CLI_NO_INDEX_MARKER) {
    // Our preflight saw a database file, but the CLI could not use it (a corrupt file, say).
    let db = index.dir.join("codegraph.db");
    return ExploreError::NoIndex {
      path: workspace.to_path_buf(),
      reason: format!("codegraph cannot use {} as an index", shown(&db)),
      kind: NoIndexKind::Unusable { db },
    };
  }
  if CLI_READONLY_MARKERS
    .iter()
    .any(|m| out.stderr_tail.contains(m))
  {
    return ExploreError::IndexReadOnly {
      dir: index.dir.clone(),
      reason: "codegraph explore failed with \"attempt to write a readonly database\"".into(),
    };
  }
  let code = out.status.code();
  #[cfg(unix)]
  let signal = std::os::unix::process::ExitStatusExt::signal(&out.status);
  #[cfg(not(unix))]
  let signal = None;
  let how = match (code, signal) {
    (Some(c), _) => format!("exited with code {c}"),
    (None, Some(s)) => match signal_name(s) {
      Some(name) => format!("was killed by {name} (signal {s})"),
      None => format!("was killed by signal {s}"),
    },
    (None, None) => "ended abnormally".into(),
  };
  let mut stderr_tail = out.stderr_tail.clone();
  if stderr_tail.trim().is_empty() && !out.stdout.text.trim().is_empty() {
    let text = &out.stdout.text;
    let mut end = text.len().min(STDOUT_EXCERPT_BYTES);
    while !text.is_char_boundary(end) {
      end -= 1;
    }
    stderr_tail = format!("(stderr empty; stdout began:)\n{}", redact(&text[..end]));
  }
  ExploreError::Exit {
    how,
    code,
    signal,
    stderr_tail,
  }
}

/// The usual names of the signals a crashing or killed CLI dies by.
fn signal_name(signal: i32) -> Option<&'static str> {
  #[cfg(unix)]
  {
    let name = match signal {
      libc::SIGSEGV => "SIGSEGV",
      libc::SIGKILL => "SIGKILL",
      libc::SIGABRT => "SIGABRT",
      libc::SIGBUS => "SIGBUS",
      libc::SIGILL => "SIGILL",
      libc::SIGFPE => "SIGFPE",
      libc::SIGTERM => "SIGTERM",
      libc::SIGINT => "SIGINT",
      libc::SIGHUP => "SIGHUP",
      libc::SIGPIPE => "SIGPIPE",
      _ => return None,
    };
    Some(name)
  }
  #[cfg(not(unix))]
  {
    let _ = signal;
    None
  }
}
