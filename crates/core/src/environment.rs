//! The environment the child sees, captured once per call on the JS thread (`env_capture` in
//! the addon). Everything downstream (discovery, preflight, the child) uses that snapshot
//! only, never `environ` directly.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

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

/// Set to `1` to let a `codegraph` found on PATH run from inside the workspace (a project's own
/// `node_modules/.bin`, say). Off by default: a repository could plant one.
pub const ALLOW_WORKSPACE_BIN_VAR: &str = "PI_CODEGRAPH_ALLOW_WORKSPACE_BIN";

/// The user opted in to code from inside the workspace (`PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1`):
/// discovery may pick it, and the child's environment is passed on unfiltered.
pub fn allows_workspace_code(env: &EnvSnapshot) -> bool {
  env
    .get_set(ALLOW_WORKSPACE_BIN_VAR)
    .is_some_and(|v| v == "1")
}

#[derive(Debug, Clone, Default)]
pub struct EnvSnapshot {
  vars: Vec<(OsString, OsString)>,
}

impl EnvSnapshot {
  /// The C `environ`, for when JS cannot be asked.
  pub fn capture() -> Self {
    Self::from_vars(std::env::vars_os().collect())
  }

  pub fn from_vars(vars: Vec<(OsString, OsString)>) -> Self {
    Self { vars }
  }

  /// A snapshot of just these variables (tests, and callers that build the child's environment).
  pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
    Self {
      vars: pairs
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect(),
    }
  }

  pub fn get(&self, key: &str) -> Option<&OsStr> {
    self
      .vars
      .iter()
      .rev()
      .find(|(k, _)| key_eq(k, key))
      .map(|(_, v)| v.as_os_str())
  }

  /// A non-empty value, as the user would mean it.
  pub fn get_set(&self, key: &str) -> Option<&OsStr> {
    self.get(key).filter(|v| !v.is_empty())
  }

  /// The child's environment for the workspace `home` (as `preflight::canonical` gives it):
  /// the user's, without what would let the workspace choose the child's code (`code_paths`;
  /// kept whole with `PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1`), plus the quiet defaults the user did
  /// not override. `DO_NOT_TRACK` is the user's global opt-out and also counts as a telemetry
  /// setting. Reads the filesystem (PATH entries are resolved): call it off the async workers.
  pub fn for_child(&self, home: &Path) -> ChildEnv {
    self.for_child_in(&[home.to_path_buf()])
  }

  /// [`Self::for_child`] for a call in one root on behalf of another workspace: nothing inside
  /// any of `homes` (the root and Pi's workspace) may choose the child's code.
  pub fn for_child_in(&self, homes: &[PathBuf]) -> ChildEnv {
    let (mut vars, dropped) = if allows_workspace_code(self) {
      (self.vars.clone(), Vec::new())
    } else {
      code_paths::filter(&self.vars, homes, key_eq)
    };
    for (key, value) in QUIET_DEFAULTS {
      let user_decided = self.get(key).is_some()
        || (*key == "CODEGRAPH_TELEMETRY" && self.get("DO_NOT_TRACK").is_some());
      if !user_decided {
        vars.push(((*key).into(), (*value).into()));
      }
    }
    ChildEnv { vars, dropped }
  }
}

/// What the child is started with, and what of the user's environment it does not get.
#[derive(Debug, Clone, Default)]
pub struct ChildEnv {
  pub vars: Vec<(OsString, OsString)>,
  pub dropped: Vec<Dropped>,
}

/// Windows environment names are case-insensitive.
fn key_eq(k: &OsStr, key: &str) -> bool {
  if cfg!(windows) {
    k.to_string_lossy().eq_ignore_ascii_case(key)
  } else {
    k == key
  }
}

#[cfg(test)]
mod tests;
