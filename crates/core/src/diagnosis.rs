//! A diagnosis: what a command would find in a workspace, without running one, from the checks'
//! survey (`ready::survey`): each check's own result, and the first problem (not installed before
//! not indexed, a writer at work, a write that never finished). Both runners make it here; each
//! adds the CLI's version by its own probe (a process: `version::Probe`, the Node runner's).

use std::ffi::OsString;
use std::path::PathBuf;

use crate::discovery::Launch;
use crate::environment::Dropped;
use crate::errors::{CodegraphError, NoIndexKind, WorkspaceReason, Writer};
use crate::index_writer::Interrupted;
use crate::preflight::IndexFound;
use crate::ready::Survey;

/// A CLI's version and where it came from (`"package.json"` or `"--version"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
  pub text: String,
  pub source: &'static str,
}

/// Read-only readiness report for a workspace: what a command would find, without running
/// one. Used for the session's guidance, the status slot, `/codegraph` and `pi-codegraph
/// doctor`.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Diagnosis {
  pub executable: Option<PathBuf>,
  /// What runs instead of `executable` (the npm shim's platform bundle), when that differs.
  pub launcher: Option<PathBuf>,
  pub executable_in_workspace: bool,
  /// The executable is the CLI installed beside this package (none on PATH).
  pub executable_beside_package: bool,
  /// What of the user's environment an explore's child would not get.
  pub env_dropped: Vec<Dropped>,
  /// Probed after the survey (a process): never handed over with it.
  #[serde(skip)]
  pub cli_version: Option<Version>,
  pub index: Option<IndexFound>,
  /// The directory the CLI opens as the workspace's index (by its own rule: `CODEGRAPH_DIR`,
  /// `.codegraph-wsl` on a Windows drive under WSL), whether or not an index is there; absent
  /// when the workspace itself is not usable.
  pub index_dir: Option<PathBuf>,
  /// The nearest ancestor with its own index, when the workspace has none.
  pub ancestor_index: Option<PathBuf>,
  /// Each check's own result.
  #[serde(with = "crate::errors::relay_option")]
  pub executable_problem: Option<CodegraphError>,
  #[serde(with = "crate::errors::relay_option")]
  pub index_problem: Option<CodegraphError>,
  /// Why a command that writes the index would be refused here (the index directory, or one of
  /// CodeGraph's files in it, is a link: not the workspace's own); a verb says it before asking.
  #[serde(with = "crate::errors::relay_option")]
  pub write_problem: Option<CodegraphError>,
  /// Why `uninit` would be refused here (a mount point, files CodeGraph does not make).
  #[serde(with = "crate::errors::relay_option")]
  pub remove_problem: Option<CodegraphError>,
  /// The git hooks directory a write verb's CodeGraph may write (its init installs, its uninit
  /// removes its hooks): the workspace's own `.git/hooks`; absent when it has none, and then
  /// CodeGraph writes no hooks at all (`preflight::own_git_hooks`).
  pub git_hooks: Option<PathBuf>,
  /// The first thing that stops a command that reads the index here (not installed before not indexed).
  #[serde(with = "crate::errors::relay_option")]
  pub problem: Option<CodegraphError>,
}

/// What the CLI's version is probed with: the launch found, in the workspace, with the child's
/// environment.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct ToProbe {
  pub launch: Launch,
  pub workspace: PathBuf,
  #[serde(with = "crate::os_strings::pairs")]
  pub vars: Vec<(OsString, OsString)>,
}

impl Diagnosis {
  /// A workspace the checks could not use.
  pub fn failed(e: CodegraphError) -> Self {
    Self {
      problem: Some(e),
      ..Self::default()
    }
  }

  /// Checks that did not answer within the diagnosis's bound (a hung mount).
  pub fn unanswered() -> Self {
    Self::failed(CodegraphError::Workspace {
      path: PathBuf::new(),
      denied: false,
      reason: WorkspaceReason::Unanswered,
    })
  }

  /// The diagnosis a survey makes, all but the CLI's version, and what to probe that with when
  /// the CLI was found.
  pub fn of(survey: Survey) -> (Self, Option<ToProbe>) {
    let Survey {
      workspace,
      index_dir,
      index,
      writer,
      interrupted,
      launch,
      child_env,
      write,
      remove,
      git_hooks,
    } = survey;
    let mut d = Self {
      env_dropped: child_env.dropped,
      write_problem: write,
      remove_problem: remove,
      git_hooks,
      index_dir: Some(index_dir),
      ..Self::default()
    };
    let to_probe = match launch {
      Ok(launch) => {
        d.executable_in_workspace = launch.in_workspace;
        d.executable_beside_package = launch.beside_package;
        d.launcher = launch.bundle.as_ref().map(|b| b.launcher.clone());
        d.executable = Some(launch.executable.clone());
        Some(ToProbe {
          launch,
          workspace,
          vars: child_env.vars,
        })
      }
      Err(e) => {
        d.problem = Some(e.clone());
        d.executable_problem = Some(e);
        None
      }
    };
    let lock = Lock {
      writer,
      interrupted,
    };
    record_index(&mut d, index, &lock);
    (d, to_probe)
  }
}

/// What the index's lock files say: a writer at work, or a write that never finished.
struct Lock {
  writer: Option<Writer>,
  interrupted: Option<Interrupted>,
}

/// The index row: the index found, or why not (a writer at work first, then a write that never
/// finished).
fn record_index(d: &mut Diagnosis, index: Result<IndexFound, CodegraphError>, lock: &Lock) {
  let writer = lock.writer.as_ref();
  // An explore now would wait for the writer and may give up: not ready, and the index row says
  // who is writing.
  let busy = |w: &Writer| CodegraphError::IndexBusy {
    lock: w.lock.clone(),
    pid: w.pid,
    rebuild: w.rebuild,
    outside: w.outside,
    waited_ms: 0,
  };
  if let Some(w) = writer {
    d.index_problem = Some(busy(w));
    if d.problem.is_none() {
      d.problem = Some(busy(w));
    }
  }
  if let Some(i) = &lock.interrupted {
    d.index_problem = Some(i.clone().error());
    if d.problem.is_none() {
      d.problem = Some(i.clone().error());
    }
  }
  match index {
    Ok(found) => d.index = Some(found),
    Err(e) => {
      if let CodegraphError::NoIndex {
        kind: NoIndexKind::Missing { ancestor },
        ..
      } = &e
      {
        d.ancestor_index.clone_from(ancestor);
      }
      d.index_problem = Some(e.clone());
      if d.problem.is_none() {
        d.problem = Some(e);
      }
    }
  }
}
