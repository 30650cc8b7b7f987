//! The environment the child sees: the caller's snapshot (`env_snapshot`) without what would let
//! the workspace choose the child's code, plus the quiet defaults.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::discovery::allows_workspace_code;
use crate::env_snapshot::{key_eq, EnvSnapshot};

mod code_paths;
pub use code_paths::{DropReason, Dropped};

/// Variables set for the child unless the user already set them: no telemetry queue, no update
/// check, no bundle download from the network, no colour codes. Each one is read by the pinned
/// CLI (see `../shared/research/codegraph-cli.md` §3.5 and the 1.6.1 bundle).
const QUIET_DEFAULTS: &[(&str, &str)] = &[
  ("CODEGRAPH_TELEMETRY", "0"),
  ("CODEGRAPH_NO_UPDATE_CHECK", "1"),
  ("CODEGRAPH_NO_DOWNLOAD", "1"),
  ("NO_COLOR", "1"),
];

/// What the child is started with, and what of the user's environment it does not get.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ChildEnv {
  #[serde(with = "crate::os_strings::pairs")]
  pub vars: Vec<(OsString, OsString)>,
  pub dropped: Vec<Dropped>,
}

impl ChildEnv {
  /// The child's environment for the workspace `home` (as `files::canonical` gives it):
  /// the user's, without what would let the workspace choose the child's code (`code_paths`;
  /// kept whole with `PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1`), plus the quiet defaults the user did
  /// not override. `DO_NOT_TRACK` is the user's global opt-out and also counts as a telemetry
  /// setting. Reads the filesystem (PATH entries are resolved): call it off the async workers.
  pub fn for_home(env: &EnvSnapshot, home: &Path) -> Self {
    Self::for_homes(env, &[home.to_path_buf()])
  }

  /// [`Self::for_home`] for a call in one root on behalf of another workspace: nothing inside
  /// any of `homes` (the root and Pi's workspace) may choose the child's code.
  pub fn for_homes(env: &EnvSnapshot, homes: &[PathBuf]) -> Self {
    let (mut vars, dropped) = if allows_workspace_code(env) {
      (env.vars().to_vec(), Vec::new())
    } else {
      code_paths::filter(env.vars(), homes, key_eq)
    };
    for (key, value) in QUIET_DEFAULTS {
      let user_decided = env.get(key).is_some()
        || (*key == "CODEGRAPH_TELEMETRY" && env.get("DO_NOT_TRACK").is_some());
      if !user_decided {
        vars.push(((*key).into(), (*value).into()));
      }
    }
    Self { vars, dropped }
  }

  /// Pins the git hooks directory of every git command the child runs (`core.hooksPath`, in
  /// `GIT_CONFIG_PARAMETERS`, which git reads after every config file and after
  /// `GIT_CONFIG_COUNT`'s entries, so that ours is the last word): `own` (the workspace's own
  /// `.git/hooks`, `preflight::own_git_hooks`), or, without one, a path nothing can be created
  /// under. CodeGraph writes and removes its git hooks where git names them: here, or nowhere.
  pub fn pin_git_hooks(&mut self, own: Option<&Path>) {
    let dir = own.and_then(Path::to_str).unwrap_or(NO_HOOKS_DIR);
    let pin = format!("'core.hookspath={}'", dir.replace('\'', r"'\''"));
    let key = GIT_CONFIG_PARAMETERS;
    match self.vars.iter_mut().find(|(k, _)| key_eq(k, key)) {
      Some((_, value)) if !value.is_empty() => {
        value.push(" ");
        value.push(&pin);
      }
      Some((_, value)) => *value = pin.into(),
      None => self.vars.push((key.into(), pin.into())),
    }
  }
}

/// git's own variable for `git -c` settings, which it hands to the commands it starts.
const GIT_CONFIG_PARAMETERS: &str = "GIT_CONFIG_PARAMETERS";
/// A hooks directory nothing can be created under or read from: CodeGraph's `mkdir -p` of it
/// fails (it then says it could not install its hooks) and no hook file is found in it. On
/// Windows a name with `|`, which no Windows file system allows, resolved in the workspace.
#[cfg(not(windows))]
const NO_HOOKS_DIR: &str = "/dev/null";
#[cfg(windows)]
const NO_HOOKS_DIR: &str = "|no-hooks|";

#[cfg(test)]
mod tests;
