//! Where git is and what it is given, before it runs (`git_run`, natively; the Node runner's worker
//! in the WebAssembly build): `git` on the absolute PATH entries outside the workspace (one planted
//! in the repository never runs), and the quiet environment without the variables that point git
//! elsewhere, with the C locale and no pager.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::discovery::{resolves_inside, search};
use crate::env_snapshot::{key_eq, EnvSnapshot};
use crate::environment::ChildEnv;
use crate::files::canonical;

/// Set for git on top of the quiet environment.
const GIT_ENV: [(&str, &str); 7] = [
  ("LC_ALL", "C"),
  ("LANGUAGE", "C"),
  ("GIT_TERMINAL_PROMPT", "0"),
  ("GIT_OPTIONAL_LOCKS", "0"),
  ("GIT_PAGER", "cat"),
  ("PAGER", "cat"),
  ("GIT_EXTERNAL_DIFF", ""),
];
/// Never passed on: they would point git at another repository, config or program.
const GIT_DROPPED_ENV: [&str; 19] = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_CONFIG",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_EXEC_PATH",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_ASKPASS",
  "GIT_EDITOR",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_NAMESPACE",
  "GIT_TRACE",
  "GIT_TRACE2",
  "GIT_TRACE2_EVENT",
];

/// What a git run is given: the workspace resolved (`home`, its working directory), git (None:
/// not found; `skipped`, the first one passed over inside the workspace) and its environment.
pub struct GitFound {
  pub home: PathBuf,
  pub git: Option<PathBuf>,
  pub skipped: Option<PathBuf>,
  pub vars: Vec<(OsString, OsString)>,
}

/// Finds git for the workspace `dir` (absolute), and its environment. Reads the filesystem.
pub fn find_git(dir: &Path, env: &EnvSnapshot) -> GitFound {
  let home = canonical(dir);
  let mut skipped = None;
  let git = search(&["git"], env.get("PATH"), |p| {
    let inside = resolves_inside(p, &home);
    if inside {
      skipped.get_or_insert_with(|| p.to_path_buf());
    }
    !inside
  });
  let vars = git_env(env, &home);
  GitFound {
    home,
    git,
    skipped,
    vars,
  }
}

/// The child's environment: the quiet one, git's pointers elsewhere dropped, ours set.
fn git_env(env: &EnvSnapshot, home: &std::path::Path) -> Vec<(OsString, OsString)> {
  let mut vars = ChildEnv::for_home(env, home).vars;
  vars.retain(|(k, _)| {
    !GIT_DROPPED_ENV.iter().any(|d| key_eq(k, d)) && !GIT_ENV.iter().any(|(d, _)| key_eq(k, d))
  });
  vars.extend(GIT_ENV.iter().map(|(k, v)| ((*k).into(), (*v).into())));
  vars
}
