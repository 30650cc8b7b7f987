//! The checks before a command runs, in one synchronous pass over the filesystem: the request,
//! the workspace, where a write may write, the executable, the index, an active writer, an
//! unfinished write, and the child's environment. The native runner runs them on its blocking
//! pool (`command_run`); the WebAssembly build runs them in the Node runner's worker, where its
//! host answers what WASI cannot ask (`host`). Either way the caller bounds them by the call's
//! deadline: a `stat` on a hung mount holds the thread, not the answer.

use std::path::{Path, PathBuf};

use crate::command::Command;
use crate::discovery::{discover_in, Launch};
use crate::env_snapshot::EnvSnapshot;
use crate::environment::ChildEnv;
use crate::errors::{CodegraphError, Writer};
use crate::files::canonical;
use crate::index_dir::{dir_name, index_dir};
use crate::index_writer::Interrupted as Unfinished;
use crate::index_writer::{active_writer, interrupted_write, Interrupted};
use crate::manifest::cli_package_version;
use crate::preflight::{
  allow_external, check_index, check_removable, check_request, check_workspace, check_write_target,
  own_entries, own_git_hooks, IndexFound,
};

/// What the checks before the run establish.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Ready {
  pub workspace: PathBuf,
  pub index: IndexFound,
  pub launch: Launch,
  /// A CodeGraph process writing the index as the checks ran.
  pub writer: Option<Writer>,
  /// For a command that reads the index, with no writer at work: the last write never finished.
  #[serde(with = "crate::errors::relay_option")]
  pub interrupted: Option<CodegraphError>,
  /// The environment of every process this call starts (the explore and a `--version` probe).
  pub child_env: ChildEnv,
}

/// The directories whose code the child must not run: the workspace it runs in (`home`) and, for
/// a call in another root, Pi's workspace (`on_behalf_of`), resolved as `home` is.
pub fn homes(home: &Path, on_behalf_of: Option<&Path>) -> Vec<PathBuf> {
  let mut homes = vec![home.to_path_buf()];
  if let Some(ws) = on_behalf_of {
    homes.push(canonical(ws));
  }
  homes
}

/// The checks before anything runs, for `command` in the workspace `cwd`. A command that writes
/// the index is first held to the workspace's own index directory ([`check_writes`]). A command
/// that needs no index (init) is given the directory its index will have, so that an active
/// writer there is still seen.
pub fn checks(command: &Command, cwd: &str, env: &EnvSnapshot) -> Result<Ready, CodegraphError> {
  if let Some(text) = &command.positional {
    check_request(text)?;
  }
  let needs_index = command.needs_index;
  let write_subcommand = command.writes_index.then_some(command.subcommand.as_str());
  let workspace = check_workspace(cwd)?;
  let home = canonical(&workspace);
  let homes = homes(&home, command.workspace.as_deref());
  // The directory the CLI will open, chosen once for the write checks and for init (check_index
  // finds it itself for a command that reads the index).
  let chosen =
    (write_subcommand.is_some() || !needs_index).then(|| index_dir(&workspace, &home, env));
  if let (Some(subcommand), Some(dir)) = (write_subcommand, &chosen) {
    check_writes(&workspace, &home, env, dir, needs_index, subcommand)?;
  }
  // The executable before the index: without a CLI the cause to name is the CLI (an index could
  // not be made either), not the index.
  let launch = discover_in(env, &homes)?;
  let index = if needs_index {
    let found = check_index(&workspace, &home, env)?;
    own_entries(&workspace, &home, env, found)?
  } else {
    let dir = chosen.unwrap_or_else(|| index_dir(&workspace, &home, env));
    IndexFound {
      resolved: canonical(&dir),
      dir,
      bytes: None,
    }
  };
  let writer = active_writer(&index.dir)?;
  let interrupted = if command.refuses_interrupted() && writer.is_none() {
    interrupted_write(&index.dir)?.map(Interrupted::error)
  } else {
    None
  };
  let mut child_env = ChildEnv::for_homes(env, &homes);
  if write_subcommand.is_some() {
    // init and uninit write git hooks where git names them: only the workspace's own.
    child_env.pin_git_hooks(own_git_hooks(&workspace, &home).as_deref());
  }
  Ok(Ready {
    workspace,
    index,
    launch,
    writer,
    interrupted,
    child_env,
  })
}

/// The subcommands that delete the index directory (CodeGraph's `removeDirectory`).
const REMOVES_INDEX_DIR: &[&str] = &["uninit"];

/// A command that writes the index writes only into the workspace's own index directory
/// ([`check_write_target`]; a link is accepted only for an existing index the user accepts
/// outside the workspace), and one that deletes it deletes only what CodeGraph made
/// ([`check_removable`]).
pub fn check_writes(
  workspace: &Path,
  home: &Path,
  env: &EnvSnapshot,
  index_dir: &Path,
  needs_index: bool,
  subcommand: &str,
) -> Result<(), CodegraphError> {
  let name = dir_name(index_dir);
  check_write_target(workspace, home, &name, needs_index && allow_external(env))?;
  if REMOVES_INDEX_DIR.contains(&subcommand) {
    check_removable(workspace, &name)?;
  }
  Ok(())
}

/// The version from package metadata: the platform bundle's when it runs, else CodeGraph's own
/// `package.json` when the executable is its npm launcher ([`cli_package_version`]).
pub fn package_version(launch: &Launch) -> Option<String> {
  match &launch.bundle {
    Some(bundle) => bundle.version.clone(),
    None => cli_package_version(&launch.executable),
  }
}

/// What a diagnosis finds of a workspace, each check's own result: what a command would find,
/// without running one (`command_run::diagnose` adds the CLI's version and words nothing).
pub struct Survey {
  pub workspace: PathBuf,
  /// The directory the CLI opens as the index, whether or not an index is there.
  pub index_dir: PathBuf,
  pub index: Result<IndexFound, CodegraphError>,
  pub writer: Option<Writer>,
  /// No writer now, but its lock is left: the last write never finished.
  pub interrupted: Option<Unfinished>,
  pub launch: Result<Launch, CodegraphError>,
  pub child_env: ChildEnv,
  /// Why a write (`write`) or `uninit` (`remove`) would be refused here.
  pub write: Option<CodegraphError>,
  pub remove: Option<CodegraphError>,
  pub git_hooks: Option<PathBuf>,
}

/// The diagnosis's checks of `cwd` (Pi's workspace, or a root checked `on_behalf_of` it), read-only;
/// only an unusable workspace fails them.
pub fn survey(
  cwd: &str,
  on_behalf_of: Option<&Path>,
  env: &EnvSnapshot,
) -> Result<Survey, CodegraphError> {
  let workspace = check_workspace(cwd)?;
  let home = canonical(&workspace);
  let homes = homes(&home, on_behalf_of);
  let index_dir = index_dir(&workspace, &home, env);
  let index = check_index(&workspace, &home, env)
    .and_then(|found| own_entries(&workspace, &home, env, found));
  let name = dir_name(&index_dir);
  // As a write would be checked: a link is accepted only for an index the user accepts.
  let accept = index.is_ok() && allow_external(env);
  let write = check_write_target(&workspace, &home, &name, accept).err();
  let remove = check_removable(&workspace, &name).err();
  let writer = index
    .as_ref()
    .ok()
    .and_then(|i| active_writer(&i.dir).ok().flatten());
  let interrupted = match (&index, &writer) {
    (Ok(i), None) => interrupted_write(&i.dir).ok().flatten(),
    _ => None,
  };
  let launch = discover_in(env, &homes);
  let child_env = ChildEnv::for_homes(env, &homes);
  let git_hooks = own_git_hooks(&workspace, &home);
  Ok(Survey {
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
  })
}
