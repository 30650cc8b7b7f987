//! `diagnose`: what a command would find in a workspace, without running one.

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use crate::discovery::discover_in;
use crate::env_snapshot::EnvSnapshot;
use crate::environment::{ChildEnv, Dropped};
use crate::errors::{CodegraphError, NoIndexKind, WorkspaceReason, Writer};
use crate::files::canonical;
use crate::index_dir::{dir_name, index_dir};
use crate::index_writer::{active_writer, interrupted_write, Interrupted};
use crate::preflight::{
  allow_external, check_index, check_removable, check_workspace, check_write_target, own_entries,
  own_git_hooks, IndexFound,
};
use crate::version::{Probe, Version};

/// How long `diagnose` waits for a `--version` probe (package metadata needs none): a slow CLI
/// must not stall Pi's `session_start`.
const DIAGNOSE_VERSION_WAIT: Duration = Duration::from_secs(1);
/// The bound on a diagnosis's own checks and probe.
const DIAGNOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// Read-only readiness report for a workspace: what a command would find, without running
/// one. Used for the session's guidance, the status slot, `/codegraph` and `pi-codegraph
/// doctor`.
#[derive(Debug, Default)]
pub struct Diagnosis {
  pub executable: Option<PathBuf>,
  /// What runs instead of `executable` (the npm shim's platform bundle), when that differs.
  pub launcher: Option<PathBuf>,
  pub executable_in_workspace: bool,
  /// The executable is the CLI installed beside this package (none on PATH).
  pub executable_beside_package: bool,
  /// What of the user's environment an explore's child would not get.
  pub env_dropped: Vec<Dropped>,
  pub cli_version: Option<Version>,
  pub index: Option<IndexFound>,
  /// The directory the CLI opens as the workspace's index (by its own rule: `CODEGRAPH_DIR`,
  /// `.codegraph-wsl` on a Windows drive under WSL), whether or not an index is there; absent
  /// when the workspace itself is not usable.
  pub index_dir: Option<PathBuf>,
  /// The nearest ancestor with its own index, when the workspace has none.
  pub ancestor_index: Option<PathBuf>,
  /// Each check's own result.
  pub executable_problem: Option<CodegraphError>,
  pub index_problem: Option<CodegraphError>,
  /// Why a command that writes the index would be refused here (the index directory, or one of
  /// CodeGraph's files in it, is a link: not the workspace's own); a verb says it before asking.
  pub write_problem: Option<CodegraphError>,
  /// Why `uninit` would be refused here (a mount point, files CodeGraph does not make).
  pub remove_problem: Option<CodegraphError>,
  /// The git hooks directory a write verb's CodeGraph may write (its init installs, its uninit
  /// removes its hooks): the workspace's own `.git/hooks`; absent when it has none, and then
  /// CodeGraph writes no hooks at all (`preflight::own_git_hooks`).
  pub git_hooks: Option<PathBuf>,
  /// The first thing that stops a command that reads the index here (not installed before not indexed).
  pub problem: Option<CodegraphError>,
}

pub async fn diagnose(cwd: String, env: EnvSnapshot) -> Diagnosis {
  diagnose_for(cwd, None, env).await
}

/// [`diagnose`] of a root other than Pi's workspace (`on_behalf_of`): what a call run there on
/// its behalf would find (code inside either is kept from the child).
pub async fn diagnose_for(
  cwd: String,
  on_behalf_of: Option<PathBuf>,
  env: EnvSnapshot,
) -> Diagnosis {
  let deadline = Instant::now() + DIAGNOSE_TIMEOUT;
  let checks_env = env.clone();
  let checks = tokio::task::spawn_blocking(move || {
    let workspace = check_workspace(&cwd)?;
    let home = canonical(&workspace);
    let homes = super::checks::homes(&home, on_behalf_of.as_deref());
    let dir = index_dir(&workspace, &home, &checks_env);
    let index = check_index(&workspace, &home, &checks_env)
      .and_then(|found| own_entries(&workspace, &home, &checks_env, found));
    let name = dir_name(&dir);
    // As a write would be checked: a link is accepted only for an index the user accepts.
    let accept = index.is_ok() && allow_external(&checks_env);
    let write = check_write_target(&workspace, &home, &name, accept).err();
    let remove = check_removable(&workspace, &name).err();
    let writer = index
      .as_ref()
      .ok()
      .and_then(|i| active_writer(&i.dir).ok().flatten());
    // No writer now, but its lock is left: the last write never finished.
    let interrupted = match (&index, &writer) {
      (Ok(i), None) => interrupted_write(&i.dir).ok().flatten(),
      _ => None,
    };
    let launch = discover_in(&checks_env, &homes);
    let child_env = ChildEnv::for_homes(&checks_env, &homes);
    let lock = Lock {
      writer,
      interrupted,
    };
    let refusals = (write, remove);
    let hooks = own_git_hooks(&workspace, &home);
    Ok::<_, CodegraphError>((
      workspace, dir, index, lock, launch, child_env, refusals, hooks,
    ))
  });
  let mut d = Diagnosis::default();
  let (workspace, dir, index, lock, launch, child_env, (write, remove), hooks) =
    match tokio::time::timeout_at(deadline, checks).await {
      Ok(Ok(Ok(found))) => found,
      Ok(Ok(Err(e))) => {
        d.problem = Some(e);
        return d;
      }
      _ => {
        d.problem = Some(CodegraphError::Workspace {
          path: PathBuf::new(),
          denied: false,
          reason: WorkspaceReason::Unanswered,
        });
        return d;
      }
    };
  d.env_dropped = child_env.dropped;
  d.write_problem = write;
  d.remove_problem = remove;
  d.git_hooks = hooks;
  d.index_dir = Some(dir);
  match launch {
    Ok(launch) => {
      // The probe's deadline is the wait: nothing of a diagnosis outlives it.
      let wait_until = Instant::now() + DIAGNOSE_VERSION_WAIT;
      let mut probe = Probe::start(&launch, &workspace, &child_env.vars, wait_until);
      d.cli_version = probe
        .within(DIAGNOSE_VERSION_WAIT + Duration::from_millis(600))
        .await;
      d.executable_in_workspace = launch.in_workspace;
      d.executable_beside_package = launch.beside_package;
      d.launcher = launch.bundle.map(|b| b.launcher);
      d.executable = Some(launch.executable);
    }
    Err(e) => {
      d.problem = Some(e.clone());
      d.executable_problem = Some(e);
    }
  }
  record_index(&mut d, index, &lock);
  d
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
