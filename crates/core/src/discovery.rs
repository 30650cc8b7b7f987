//! Finding the `codegraph` executable, and how to launch it without a shell.
//!
//! Only absolute PATH entries are searched: a relative entry (or an empty one, which some shells
//! read as ".") would resolve against the workspace, and a `codegraph` planted in a repository
//! must never run just because Pi was started there.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::env_snapshot::EnvSnapshot;
use crate::errors::{CodegraphError, NotFoundReason};
use crate::files::{canonical, split_path_list, within};

mod npm_bundle;
mod package_cli;
pub use npm_bundle::npm_bundle;
pub use package_cli::{package_cli, set_package_cli};

/// Names an operator can use to point at a specific CodeGraph install. Never model-controlled.
pub const BIN_OVERRIDE_VAR: &str = "PI_CODEGRAPH_BIN";

#[cfg(windows)]
const NAMES: &[&str] = &WINDOWS_NAMES;
#[cfg(not(windows))]
const NAMES: &[&str] = &UNIX_NAMES;
#[cfg_attr(windows, allow(dead_code))]
const UNIX_NAMES: [&str; 1] = ["codegraph"];
/// `codegraph` first: with PATHEXT it matches `codegraph.exe` and npm's `codegraph.cmd` alike,
/// so the first PATH directory holding either wins (as in cmd.exe). `codegraph.cmd` by its full
/// name only matters when PATHEXT lacks `.CMD`.
#[cfg_attr(not(windows), allow(dead_code))]
const WINDOWS_NAMES: [&str; 2] = ["codegraph", "codegraph.cmd"];

/// What to run: `program prefix... <our args>`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Launch {
  /// The executable the user has (found on PATH or named by `PI_CODEGRAPH_BIN`).
  pub executable: PathBuf,
  pub program: PathBuf,
  #[serde(with = "crate::os_strings::list")]
  pub prefix: Vec<OsString>,
  /// The executable resolves inside the workspace (only when the user chose so).
  pub in_workspace: bool,
  /// When `executable` is CodeGraph's npm launcher: the platform bundle it would exec, which
  /// runs instead (one Node start fewer), and that bundle's version.
  pub bundle: Option<Bundle>,
  /// The CLI installed beside this package, run because none is on PATH ([`package_cli`]).
  pub beside_package: bool,
  /// Why the kernel would not execute `program` itself, where the host's spawn would hand it to
  /// /bin/sh (the WebAssembly build's checks judge it: `exec_format`); never set natively.
  pub exec_refused: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Bundle {
  pub launcher: PathBuf,
  pub version: Option<String>,
}

impl Launch {
  /// What actually runs: the bundle's launcher, or the executable itself.
  pub fn runs(&self) -> &Path {
    self
      .bundle
      .as_ref()
      .map_or(&self.executable, |b| &b.launcher)
  }
}

/// Set to `1` to let a `codegraph` found on PATH run from inside the workspace (a project's own
/// `node_modules/.bin`, say). Off by default: a repository could plant one.
pub const ALLOW_WORKSPACE_BIN_VAR: &str = "PI_CODEGRAPH_ALLOW_WORKSPACE_BIN";

/// Finds the executable for the workspace `home` (its path with symlinks resolved, as
/// `files::canonical` gives it, computed once per call). `PI_CODEGRAPH_BIN` is the user's explicit choice and is
/// used wherever it is (marked in `Launch::in_workspace`); on PATH, only absolute entries count,
/// and an executable that resolves inside the workspace is skipped unless the user opted in.
pub fn discover(env: &EnvSnapshot, home: &Path) -> Result<Launch, CodegraphError> {
  discover_in(env, &[home.to_path_buf()])
}

/// [`discover`] for a call that runs in one root on behalf of another workspace: `homes` are
/// every directory whose code the child must not run (the root it runs in and Pi's workspace,
/// each as `files::canonical` gives it).
pub fn discover_in(env: &EnvSnapshot, homes: &[PathBuf]) -> Result<Launch, CodegraphError> {
  let inside = |p: &Path| resolves_inside_any(p, homes);
  let allow_inside = allows_workspace_code(env);
  // npm's `.cmd` layout on Windows looks `node` up on PATH: the same rule as for `codegraph`.
  let node_ok = |p: &Path| allow_inside || !inside(p);
  if let Some(value) = env.get_set(BIN_OVERRIDE_VAR) {
    let path = PathBuf::from(value);
    if !path.is_absolute() {
      return Err(CodegraphError::NotFound {
        reason: NotFoundReason::OverrideRelative {
          variable: BIN_OVERRIDE_VAR,
          value: path,
        },
      });
    }
    if !path.is_file() {
      return Err(CodegraphError::NotFound {
        reason: NotFoundReason::OverrideMissing {
          variable: BIN_OVERRIDE_VAR,
          value: path,
        },
      });
    }
    let in_workspace = inside(&path);
    return Ok(launch_for(path, env, in_workspace, &node_ok));
  }
  let mut skipped = None;
  let mut found_inside = false;
  let found = search(NAMES, env.get("PATH"), |p| {
    found_inside = inside(p);
    if found_inside && !allow_inside {
      skipped.get_or_insert_with(|| p.to_path_buf());
      return false;
    }
    true
  });
  if let Some(found) = found {
    return Ok(launch_for(found, env, found_inside, &node_ok));
  }
  // None on PATH: the CLI installed beside this package, under the same workspace rule.
  if let Some(beside) = package_cli() {
    let in_workspace = inside(&beside);
    if allow_inside || !in_workspace {
      return Ok(Launch {
        beside_package: true,
        ..launch_for(beside, env, in_workspace, &node_ok)
      });
    }
  }
  Err(CodegraphError::NotFound {
    reason: NotFoundReason::NotOnPath {
      names: NAMES,
      skipped,
      allow_variable: ALLOW_WORKSPACE_BIN_VAR,
    },
  })
}

/// The user opted in to code from inside the workspace (`PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1`):
/// discovery may pick it, and the child's environment is passed on unfiltered.
pub fn allows_workspace_code(env: &EnvSnapshot) -> bool {
  env
    .get_set(ALLOW_WORKSPACE_BIN_VAR)
    .is_some_and(|v| v == "1")
}

/// The one "inside the workspace" rule, for executables and for every path the child inherits:
/// `p` resolves (symlinks followed, `..` applied) to `home` or below it. `home` is the
/// workspace as `files::canonical` gives it, computed once per call. A path that does not
/// exist (yet) is judged by its longest existing ancestor, resolved, plus the rest: a PATH
/// entry such as `<workspace>/node_modules/.bin` counts as inside before `npm install` made it.
pub fn resolves_inside(p: &Path, home: &Path) -> bool {
  within(&resolve_leniently(p, 0), home)
}

/// [`resolves_inside`] any of `homes` (the path resolved once).
pub fn resolves_inside_any(p: &Path, homes: &[PathBuf]) -> bool {
  let resolved = resolve_leniently(p, 0);
  homes.iter().any(|home| within(&resolved, home))
}

/// `p` with its longest existing prefix resolved and the rest applied to it.
fn resolve_leniently(p: &Path, depth: u8) -> PathBuf {
  use std::path::Component;
  let parts: Vec<Component> = p.components().collect();
  for i in (0..=parts.len()).rev() {
    let prefix: PathBuf = parts[..i].iter().collect();
    let mut base = if i == 0 {
      PathBuf::new()
    } else if std::fs::metadata(&prefix).is_ok() {
      canonical(&prefix)
    } else if let (Ok(target), true) = (std::fs::read_link(&prefix), depth < 40) {
      // A dangling symlink: the kernel follows it once its target exists.
      let target = prefix
        .parent()
        .map_or_else(|| target.clone(), |dir| dir.join(&target));
      resolve_leniently(&target, depth + 1)
    } else {
      continue;
    };
    for part in &parts[i..] {
      match part {
        Component::ParentDir => {
          base.pop();
        }
        Component::CurDir => {}
        other => base.push(other.as_os_str()),
      }
    }
    return base;
  }
  unreachable!("the empty prefix always matches")
}

/// The first of `names` found in the absolute entries of `path` that `accept` allows, in name
/// order: every entry is tried for the first name before the second name is considered.
pub fn search(
  names: &[&str],
  path: Option<&std::ffi::OsStr>,
  mut accept: impl FnMut(&Path) -> bool,
) -> Option<PathBuf> {
  let dirs: Vec<PathBuf> = split_path_list(path?)
    .into_iter()
    .filter(|d| d.is_absolute())
    .collect();
  if dirs.is_empty() {
    return None;
  }
  names
    .iter()
    .find_map(|name| candidates(name, &dirs).find(|p| accept(p)))
}

/// Where `name` is an executable in `dirs`, in order (`which`, natively).
#[cfg(not(target_family = "wasm"))]
fn candidates<'a>(name: &'a str, dirs: &'a [PathBuf]) -> impl Iterator<Item = PathBuf> + 'a {
  crate::files::join_path_list(dirs)
    .into_iter()
    .flat_map(move |joined| {
      which::which_in_all(name, Some(joined), &dirs[0])
        .into_iter()
        .flatten()
    })
}

/// Where `name` is an executable in `dirs`, in order: a file the host says it may execute (WASI's
/// std can split no search list, and its access(2) calls every file executable).
#[cfg(target_family = "wasm")]
fn candidates<'a>(name: &'a str, dirs: &'a [PathBuf]) -> impl Iterator<Item = PathBuf> + 'a {
  dirs
    .iter()
    .map(move |d| d.join(name))
    .filter(|p| p.is_file() && crate::host::access(p, crate::host::EXECUTE).is_ok())
}

/// A `.cmd`/`.bat` launcher cannot be spawned without `cmd.exe` re-parsing its arguments, so for
/// npm's cmd-shim layout we run Node on CodeGraph's own `npm-shim.js` instead (what the `.cmd`
/// would do). Anything else is launched as found; Rust's std then applies its batch-file
/// argument escaping, and refuses arguments it cannot pass safely.
/// `node_ok` says whether a `node` found on PATH may run (not one inside the workspace).
pub fn launch_for(
  executable: PathBuf,
  env: &EnvSnapshot,
  in_workspace: bool,
  node_ok: &dyn Fn(&Path) -> bool,
) -> Launch {
  let is_batch = executable
    .extension()
    .is_some_and(|e| e.eq_ignore_ascii_case("cmd") || e.eq_ignore_ascii_case("bat"));
  if is_batch {
    if let Some(dir) = executable.parent() {
      if let Some(shim) = npm_shim_beside(dir) {
        let node = [dir.join("node.exe"), dir.join("node")]
          .into_iter()
          .find(|p| p.is_file())
          .or_else(|| search(&["node"], env.get("PATH"), node_ok));
        if let Some(node) = node {
          return Launch {
            executable,
            program: node,
            prefix: vec![shim.into_os_string()],
            in_workspace,
            bundle: None,
            beside_package: false,
            exec_refused: None,
          };
        }
      }
    }
  }
  if let Some(bundle) = npm_bundle(&executable) {
    return Launch {
      program: bundle.launcher.clone(),
      executable,
      prefix: Vec::new(),
      in_workspace,
      bundle: Some(bundle),
      beside_package: false,
      exec_refused: None,
    };
  }
  Launch {
    program: executable.clone(),
    executable,
    prefix: Vec::new(),
    in_workspace,
    bundle: None,
    beside_package: false,
    exec_refused: None,
  }
}

/// npm puts the launcher in `<prefix>/` (global) or `node_modules/.bin/` (local).
fn npm_shim_beside(dir: &Path) -> Option<PathBuf> {
  let package = Path::new("@colbymchenry")
    .join("codegraph")
    .join("npm-shim.js");
  [
    dir.join("node_modules").join(&package),
    dir.join("..").join(&package),
  ]
  .into_iter()
  .find(|p| p.is_file())
}

#[cfg(test)]
mod tests;
