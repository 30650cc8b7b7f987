//! Which directory CodeGraph opens as a project's index: CodeGraph 1.6.1's own rule
//! (`dist/directory.js` `codeGraphDirName`, `codeGraphDirNameFor`; `dist/sync/watch-policy.js`
//! `detectWsl`, `isWindowsDriveMount`), computed once here for every check of the addon, so the
//! checks look where the CLI will open. The Node runner's twin is `lib/contract/index-dir.js`.
//!
//! - `CODEGRAPH_DIR`, trimmed as JavaScript trims, is the name when it is a plain directory name;
//!   empty, `.`, anything with `..`, `/` or `\`, or an absolute path is ignored (`.codegraph`).
//! - When it is set (valid or not), or the project is not on a Windows drive under WSL, that name.
//! - Under WSL (Linux with `WSL_DISTRO_NAME` or `WSL_INTEROP` set, else `/proc/version` saying
//!   "microsoft" or "wsl") on a Windows drive (the resolved project path is `/mnt/<letter>` or
//!   below): `.codegraph-wsl` when that is a directory, else `.codegraph` when
//!   `.codegraph/codegraph.db` exists, else `.codegraph-wsl`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::env_snapshot::EnvSnapshot;

/// CodeGraph's default index directory name.
pub const DEFAULT_INDEX_DIR: &str = ".codegraph";
/// The name CodeGraph gives a fresh index on a Windows drive under WSL.
pub const WSL_INDEX_DIR: &str = ".codegraph-wsl";
const DB_FILE: &str = "codegraph.db";

/// JavaScript's `String.prototype.trim` set: White_Space without U+0085, plus U+FEFF.
fn js_space(c: char) -> bool {
  c == '\u{feff}' || (c.is_whitespace() && c != '\u{85}')
}

/// `CODEGRAPH_DIR` trimmed, when it is set to anything but white space.
fn configured(env: &EnvSnapshot) -> Option<String> {
  let raw = env.get("CODEGRAPH_DIR")?.to_string_lossy();
  let trimmed = raw.trim_matches(js_space);
  (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// The index directory name without the WSL choice (`codeGraphDirName`).
pub fn index_dir_name(env: &EnvSnapshot) -> String {
  match configured(env) {
    Some(name)
      if !(name == "."
        || name.contains("..")
        || name.contains(['/', '\\'])
        || Path::new(&name).is_absolute()) =>
    {
      name
    }
    _ => DEFAULT_INDEX_DIR.to_owned(),
  }
}

/// The index directory name for the project at `project` (its path with symlinks resolved, as
/// the CLI's working directory is): `codeGraphDirNameFor`.
pub fn index_dir_name_for(project: &Path, env: &EnvSnapshot) -> String {
  if configured(env).is_some() || !(is_wsl(env) && is_windows_drive(project)) {
    return index_dir_name(env);
  }
  wsl_choice(project)
}

/// On a Windows drive under WSL: the WSL directory once it exists, an index built there before
/// WSL had its own kept, else the WSL directory.
fn wsl_choice(project: &Path) -> String {
  if std::fs::metadata(project.join(WSL_INDEX_DIR)).is_ok_and(|m| m.is_dir()) {
    return WSL_INDEX_DIR.to_owned();
  }
  if std::fs::metadata(project.join(DEFAULT_INDEX_DIR).join(DB_FILE)).is_ok() {
    return DEFAULT_INDEX_DIR.to_owned();
  }
  WSL_INDEX_DIR.to_owned()
}

/// `<workspace>/<name>`, the name chosen for `home` (the workspace with symlinks resolved).
pub fn index_dir(workspace: &Path, home: &Path, env: &EnvSnapshot) -> PathBuf {
  workspace.join(index_dir_name_for(home, env))
}

/// The name of an index directory [`index_dir`] chose (its last component).
pub fn dir_name(index_dir: &Path) -> String {
  index_dir
    .file_name()
    .map(|n| n.to_string_lossy().into_owned())
    .unwrap_or_default()
}

/// `detectWsl`: Linux, and a WSL variable set, else the kernel's version naming Microsoft or WSL
/// (read once per process, as the CLI caches it).
fn is_wsl(env: &EnvSnapshot) -> bool {
  static KERNEL: OnceLock<bool> = OnceLock::new();
  // The WebAssembly build's target is `wasi`: its host says whether it runs on Linux.
  #[cfg(target_family = "wasm")]
  let linux = crate::host::linux();
  #[cfg(not(target_family = "wasm"))]
  let linux = cfg!(target_os = "linux");
  if !linux {
    return false;
  }
  if env.get_set("WSL_DISTRO_NAME").is_some() || env.get_set("WSL_INTEROP").is_some() {
    return true;
  }
  *KERNEL.get_or_init(|| {
    std::fs::read_to_string("/proc/version").is_ok_and(|v| {
      let v = v.to_lowercase();
      v.contains("microsoft") || v.contains("wsl")
    })
  })
}

/// `isWindowsDriveMount`: `/mnt/<one letter>` or below (backslashes read as slashes).
fn is_windows_drive(project: &Path) -> bool {
  let text = project.to_string_lossy().replace('\\', "/");
  let b = text.as_bytes();
  b.len() >= 6
    && b[..5].eq_ignore_ascii_case(b"/mnt/")
    && b[5].is_ascii_alphabetic()
    && (b.len() == 6 || b[6] == b'/')
}

#[cfg(test)]
mod tests;
