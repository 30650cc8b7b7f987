//! The shape `diagnose` resolves with (in its own file: the largest of the JS surface's shapes).

use napi_derive::napi;

use super::{EnvDropped, Problem};

/// What the addon's `diagnose` resolves with. The public `Diagnosis` (index.d.ts) is this with its
/// problems worded by lib/words/ (lib/api/failures.js).
#[napi(object, object_from_js = false)]
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
  pub index_path: Option<String>,
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
