//! The shape `diagnose` resolves with (in its own file: the largest of the JS surface's shapes),
//! filled from the core's `Diagnosis` (src/runner_calls.rs `diagnose`, in both builds).

use napi_derive::napi;
use pi_codegraph_core::diagnosis::Diagnosis;
use pi_codegraph_core::environment::Dropped;
use pi_codegraph_core::errors::{self, CodegraphError};

use super::{lossy, EnvDropped, ErrorCode, Problem};

/// What the addon's `diagnose` resolves with. The public `Diagnosis` (index.d.ts) is this with its
/// problems worded by lib/words/ (lib/api/failures.js).
#[napi(object, object_from_js = false)]
// A JS object's independent facts, each its own field (not a state machine of flags).
#[allow(clippy::struct_excessive_bools)]
pub struct AddonDiagnosis {
  pub cwd: String,
  /// True when an explore can run here: CodeGraph found and the workspace has its own index.
  pub ready: bool,
  pub executable: Option<String>,
  /// What runs instead (CodeGraph's platform bundle launcher, when `executable` is its npm shim).
  pub launcher: Option<String>,
  /// The executable lives inside the workspace (by the user's choice).
  pub executable_in_workspace: bool,
  /// The executable is the CodeGraph CLI installed beside this package: none is on PATH.
  pub executable_beside_package: bool,
  /// What of the user's environment an explore's CLI would not get.
  pub env_dropped: Vec<EnvDropped>,
  pub cli_version: Option<String>,
  /// "package.json" or "--version".
  pub cli_version_source: Option<String>,
  /// The directory the CLI opens as the workspace's index, by CodeGraph's own rule
  /// (`CODEGRAPH_DIR` trimmed; `.codegraph-wsl` on a Windows drive under WSL), whether or not an
  /// index is there; absent when the workspace itself is not usable.
  pub index_dir: Option<String>,
  /// The workspace has a usable index in `index_dir` (its own, complete: an explore can read it).
  pub has_index: bool,
  /// The index directory with symlinks resolved.
  pub index_resolved: Option<String>,
  /// The index database's size in bytes, when the workspace has a usable index.
  pub index_bytes: Option<f64>,
  /// When the workspace has no index: the nearest ancestor directory that has its own.
  pub ancestor_index: Option<String>,
  /// Each check's own result: why no executable, why no index (absent when that check passed
  /// or could not run).
  pub executable_problem: Option<Problem>,
  pub index_problem: Option<Problem>,
  /// Why a command that writes the index would be refused here (the index directory, or a file
  /// CodeGraph writes in it, is not the workspace's own).
  pub write_problem: Option<Problem>,
  /// Why `uninit` would be refused here (the index directory is a mount point, or holds files
  /// CodeGraph does not make).
  pub remove_problem: Option<Problem>,
  /// The git hooks directory CodeGraph's init and uninit may write: the workspace's own
  /// `.git/hooks`; absent when it has none (git's hooks would be outside the workspace, or
  /// reached through a link), and then they write no hooks.
  pub git_hooks_dir: Option<String>,
  /// What stops an explore here, as `explore` would reject.
  pub problem: Option<Problem>,
}

impl AddonDiagnosis {
  /// The core's diagnosis of `cwd`, all but the CLI's version (each runner probes it).
  pub fn of(d: &Diagnosis, cwd: String) -> Self {
    let index = d.index.as_ref();
    let problem = |e: &Option<CodegraphError>| e.as_ref().map(Problem::of);
    Self {
      cwd,
      ready: d.problem.is_none(),
      executable: d.executable.as_deref().map(lossy),
      launcher: d.launcher.as_deref().map(lossy),
      executable_in_workspace: d.executable_in_workspace,
      executable_beside_package: d.executable_beside_package,
      env_dropped: EnvDropped::list(&d.env_dropped),
      cli_version: d.cli_version.as_ref().map(|v| v.text.clone()),
      cli_version_source: d.cli_version.as_ref().map(|v| v.source.to_owned()),
      index_dir: d.index_dir.as_deref().map(lossy),
      has_index: index.is_some(),
      index_resolved: index.map(|i| lossy(&i.resolved)),
      index_bytes: index.and_then(|i| i.bytes).map(|b| b as f64),
      ancestor_index: d.ancestor_index.as_deref().map(lossy),
      executable_problem: problem(&d.executable_problem),
      index_problem: problem(&d.index_problem),
      write_problem: problem(&d.write_problem),
      remove_problem: problem(&d.remove_problem),
      git_hooks_dir: d.git_hooks.as_deref().map(lossy),
      problem: problem(&d.problem),
    }
  }
}

impl Problem {
  /// A failure as its code and facts, for lib/words/.
  pub fn of(err: &CodegraphError) -> Self {
    Self {
      code: err.code().into(),
      facts: err.facts(),
    }
  }
}

impl EnvDropped {
  /// What of the caller's environment the child did not get.
  pub fn list(dropped: &[Dropped]) -> Vec<Self> {
    dropped
      .iter()
      .map(|d| Self {
        variable: d.variable.clone(),
        entry: d.entry.clone(),
        reason: d.reason.tag(),
      })
      .collect()
  }
}

impl From<errors::ErrorCode> for ErrorCode {
  fn from(code: errors::ErrorCode) -> Self {
    use errors::ErrorCode as Core;
    match code {
      Core::InvalidRequest => Self::InvalidRequest,
      Core::InvalidOptions => Self::InvalidOptions,
      Core::Workspace => Self::Workspace,
      Core::NotFound => Self::NotFound,
      Core::NoIndex => Self::NoIndex,
      Core::IndexReadOnly => Self::IndexReadOnly,
      Core::IndexBusy => Self::IndexBusy,
      Core::IndexInterrupted => Self::IndexInterrupted,
      Core::Spawn => Self::Spawn,
      Core::Resources => Self::Resources,
      Core::Exit => Self::Exit,
      Core::Timeout => Self::Timeout,
      Core::Cancelled => Self::Cancelled,
      Core::Git => Self::Git,
    }
  }
}
