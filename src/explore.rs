//! One explore, start to finish: preflight, discovery, the run, and what its exit means.
//! Plain Rust, no napi types: `lib.rs` converts at the edge.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::discovery::discover;
use crate::environment::EnvSnapshot;
use crate::errors::ExploreError;
use crate::full_output;
use crate::limits::{truncation_marker, Bounded};
use crate::preflight::{check_index, check_request, check_workspace};
use crate::runner::{run, Cancel, ProgressFn, RunSpec};
use crate::sanitize::redact;
use crate::version::cli_version;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What CodeGraph prints on stderr when the directory has no index (1.1 to 1.6.1).
const CLI_NO_INDEX_MARKER: &str = "no .codegraph/ index exists";
/// Bound on the stdout excerpt attached to a failure whose stderr is empty (the CLI prints its
/// validation errors, such as `Error: query must be a non-empty string`, on stdout).
const STDOUT_EXCERPT_BYTES: usize = 1024;

#[derive(Debug)]
pub struct Outcome {
  pub text: String,
  pub request: String,
  pub cwd: PathBuf,
  pub executable: PathBuf,
  pub cli_version: Option<String>,
  pub exit_code: i32,
  pub duration: Duration,
  pub stdout: Bounded,
}

/// Diagnostics that travel with an error (bounded: no unbounded CLI text).
#[derive(Debug, Default)]
pub struct Failure {
  pub executable: Option<PathBuf>,
  pub cli_version: Option<String>,
  pub duration: Option<Duration>,
}

/// Boxed: the error side is large and rare.
pub type Result<T> = std::result::Result<T, Box<(ExploreError, Failure)>>;

fn bare<T>(r: std::result::Result<T, ExploreError>) -> Result<T> {
  r.map_err(|e| Box::new((e, Failure::default())))
}

pub async fn explore(
  request: String,
  cwd: String,
  env: EnvSnapshot,
  timeout: Duration,
  cancel: Cancel,
  progress: Option<&ProgressFn>,
) -> Result<Outcome> {
  bare(check_request(&request))?;
  let workspace = bare(check_workspace(&cwd))?;
  bare(check_index(&workspace, &env))?;
  let launch = bare(discover(&env))?;
  let child_env = env.for_child();

  // `--` ends option parsing: a request such as "-p /etc" stays the query and never becomes the
  // CLI's `--path`.
  let args: Vec<OsString> = vec!["explore".into(), "--".into(), request.clone().into()];
  let version = cli_version(&launch, &workspace, &child_env);
  let explore = run(RunSpec {
    launch: &launch,
    args: &args,
    cwd: &workspace,
    env: &child_env,
    timeout,
    cancel: Some(cancel),
    spill_dir: Some(full_output::temp_dir(env.get_set("TMPDIR"), &workspace)),
    progress,
  });
  tokio::pin!(version, explore);
  let mut cli_version_seen: Option<Option<String>> = None;
  let result = loop {
    tokio::select! {
      v = &mut version, if cli_version_seen.is_none() => cli_version_seen = Some(v),
      r = &mut explore => break r,
    }
  };
  let failure = |cli_version: Option<String>, duration: Option<Duration>| Failure {
    executable: Some(launch.executable.clone()),
    cli_version,
    duration,
  };
  let out = match result {
    Ok(out) => out,
    // A stopped run must settle now: the version probe is dropped (and killed) unfinished.
    Err(e) => return Err(Box::new((e, failure(cli_version_seen.flatten(), None)))),
  };
  let cli_version = match cli_version_seen {
    Some(v) => v,
    None => version.await,
  };

  if !out.status.success() && !out.stopped_at_drain_limit() {
    let err = classify_exit(&out, &workspace);
    return Err(Box::new((err, failure(cli_version, Some(out.duration)))));
  }

  let mut text = out.stdout.text.clone();
  if text.trim().is_empty() {
    text = "(codegraph explore printed nothing)".into();
  }
  if out.stdout.truncated {
    text.push_str(&truncation_marker(&out.stdout));
  }
  Ok(Outcome {
    text,
    request,
    cwd: workspace.clone(),
    executable: launch.executable.clone(),
    cli_version,
    // Our own stop at the drain limit is not the CLI's verdict; -1 marks "stopped by us".
    exit_code: if out.stopped_at_drain_limit() { -1 } else { 0 },
    duration: out.duration,
    stdout: out.stdout,
  })
}

fn classify_exit(out: &crate::runner::RunOutput, workspace: &std::path::Path) -> ExploreError {
  if out.stderr_tail.contains(CLI_NO_INDEX_MARKER) {
    // Our preflight saw a database file, but the CLI could not use it (no schema, say).
    return ExploreError::NoIndex {
      path: workspace.to_path_buf(),
      reason: "codegraph found no usable index here".into(),
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

/// Read-only readiness report for a workspace: what `explore` would find, without running an
/// explore. Used for the session's one-time guidance, `/codegraph` and `pi-codegraph doctor`.
#[derive(Debug, Default)]
pub struct Diagnosis {
  pub executable: Option<PathBuf>,
  pub cli_version: Option<String>,
  pub index_dir: Option<PathBuf>,
  /// The first thing that stops an explore here (not installed before not indexed).
  pub problem: Option<ExploreError>,
}

pub async fn diagnose(cwd: String, env: EnvSnapshot) -> Diagnosis {
  let mut d = Diagnosis::default();
  let workspace = match check_workspace(&cwd) {
    Ok(w) => w,
    Err(e) => {
      d.problem = Some(e);
      return d;
    }
  };
  let index = check_index(&workspace, &env);
  match discover(&env) {
    Ok(launch) => {
      d.cli_version = cli_version(&launch, &workspace, &env.for_child()).await;
      d.executable = Some(launch.executable);
    }
    Err(e) => d.problem = Some(e),
  }
  match index {
    Ok(dir) => d.index_dir = Some(dir),
    Err(e) => {
      d.problem.get_or_insert(e);
    }
  }
  d
}
