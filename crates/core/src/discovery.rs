//! Finding the `codegraph` executable, and how to launch it without a shell.
//!
//! Only absolute PATH entries are searched: a relative entry (or an empty one, which some shells
//! read as ".") would resolve against the workspace, and a `codegraph` planted in a repository
//! must never run just because Pi was started there.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::environment::EnvSnapshot;
use crate::errors::{shown, ExploreError};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
  /// The executable the user has (found on PATH or named by `PI_CODEGRAPH_BIN`).
  pub executable: PathBuf,
  pub program: PathBuf,
  pub prefix: Vec<OsString>,
  /// The executable resolves inside the workspace (only when the user chose so).
  pub in_workspace: bool,
  /// When `executable` is CodeGraph's npm launcher: the platform bundle it would exec, which
  /// runs instead (one Node start fewer), and that bundle's version.
  pub bundle: Option<Bundle>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
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
/// `preflight::canonical` gives it, computed once per call). `PI_CODEGRAPH_BIN` is the user's explicit choice and is
/// used wherever it is (marked in `Launch::in_workspace`); on PATH, only absolute entries count,
/// and an executable that resolves inside the workspace is skipped unless the user opted in.
pub fn discover(env: &EnvSnapshot, home: &Path) -> Result<Launch, ExploreError> {
  let inside = |p: &Path| crate::preflight::canonical(p).starts_with(home);
  if let Some(value) = env.get_set(BIN_OVERRIDE_VAR) {
    let path = PathBuf::from(value);
    if !path.is_absolute() {
      return Err(ExploreError::NotFound {
        reason: format!(
          "{BIN_OVERRIDE_VAR}={} is not an absolute path",
          shown(&path)
        ),
      });
    }
    if !path.is_file() {
      return Err(ExploreError::NotFound {
        reason: format!(
          "{BIN_OVERRIDE_VAR}={} does not exist or is not a file",
          shown(&path)
        ),
      });
    }
    let in_workspace = inside(&path);
    return Ok(launch_for(path, env, in_workspace));
  }
  let allow_inside = env
    .get_set(ALLOW_WORKSPACE_BIN_VAR)
    .is_some_and(|v| v == "1");
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
  match found {
    Some(found) => Ok(launch_for(found, env, found_inside)),
    None => Err(ExploreError::NotFound {
      reason: match skipped {
        Some(p) => format!(
          "no `{}` on PATH outside the workspace; {} was skipped because it lives inside the workspace (set {ALLOW_WORKSPACE_BIN_VAR}=1 to allow it)",
          NAMES.join("` or `"),
          shown(&p)
        ),
        None => format!("no `{}` on PATH", NAMES.join("` or `")),
      },
    }),
  }
}

/// The first of `names` found in the absolute entries of `path` that `accept` allows, in name
/// order: every entry is tried for the first name before the second name is considered.
pub fn search(
  names: &[&str],
  path: Option<&std::ffi::OsStr>,
  mut accept: impl FnMut(&Path) -> bool,
) -> Option<PathBuf> {
  let dirs: Vec<PathBuf> = std::env::split_paths(path?)
    .filter(|d| d.is_absolute())
    .collect();
  if dirs.is_empty() {
    return None;
  }
  let joined = std::env::join_paths(&dirs).ok()?;
  names.iter().find_map(|name| {
    which::which_in_all(name, Some(&joined), &dirs[0])
      .ok()?
      .find(|p| accept(p))
  })
}

/// A `.cmd`/`.bat` launcher cannot be spawned without `cmd.exe` re-parsing its arguments, so for
/// npm's cmd-shim layout we run Node on CodeGraph's own `npm-shim.js` instead (what the `.cmd`
/// would do). Anything else is launched as found; Rust's std then applies its batch-file
/// argument escaping, and refuses arguments it cannot pass safely.
pub fn launch_for(executable: PathBuf, env: &EnvSnapshot, in_workspace: bool) -> Launch {
  let is_batch = executable
    .extension()
    .is_some_and(|e| e.eq_ignore_ascii_case("cmd") || e.eq_ignore_ascii_case("bat"));
  if is_batch {
    if let Some(dir) = executable.parent() {
      if let Some(shim) = npm_shim_beside(dir) {
        let node = [dir.join("node.exe"), dir.join("node")]
          .into_iter()
          .find(|p| p.is_file())
          .or_else(|| search(&["node"], env.get("PATH"), |_| true));
        if let Some(node) = node {
          return Launch {
            executable,
            program: node,
            prefix: vec![shim.into_os_string()],
            in_workspace,
            bundle: None,
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
    };
  }
  Launch {
    program: executable.clone(),
    executable,
    prefix: Vec::new(),
    in_workspace,
    bundle: None,
  }
}

/// CodeGraph's npm package name; its `npm-shim.js` finds `<name>-<platform>-<arch>`.
const NPM_PACKAGE: &str = "@colbymchenry/codegraph";

/// When `executable` resolves to CodeGraph's npm shim (`<pkg>/npm-shim.js`, the package's
/// declared `codegraph` bin), the platform bundle's `bin/codegraph` found the way the shim's
/// `require.resolve` finds it: `node_modules` directories from the shim's real location upward.
/// The shim only starts Node to exec that launcher with the same arguments and environment (it
/// threads `CODEGRAPH_HOST_PPID`, which the launcher sets to the same host pid when run
/// directly). Not on Windows, where the shim runs the bundle differently and nothing tests it.
pub fn npm_bundle(executable: &Path) -> Option<Bundle> {
  if cfg!(windows) {
    return None;
  }
  let real = executable.canonicalize().ok()?;
  let pkg_dir = real.parent()?;
  let manifest = crate::version::read_manifest(&pkg_dir.join("package.json"))?;
  if manifest.name.as_deref() != Some(NPM_PACKAGE)
    || manifest.bin_path("codegraph")? != "npm-shim.js"
  {
    return None;
  }
  if real.file_name()? != "npm-shim.js" {
    return None;
  }
  let platform = match std::env::consts::OS {
    "macos" => "darwin",
    other => other,
  };
  let arch = match std::env::consts::ARCH {
    "x86_64" => "x64",
    "aarch64" => "arm64",
    other => other,
  };
  let bundle_name = format!("{NPM_PACKAGE}-{platform}-{arch}");
  pkg_dir
    .ancestors()
    .filter(|dir| dir.file_name().is_none_or(|n| n != "node_modules"))
    .map(|dir| dir.join("node_modules").join(&bundle_name))
    .find_map(|bundle| {
      let launcher = bundle.join("bin").join("codegraph");
      std::fs::metadata(&launcher).ok()?.is_file().then_some(())?;
      let version = crate::version::read_manifest(&bundle.join("package.json"))
        .filter(|m| m.name.as_deref() == Some(bundle_name.as_str()))
        .and_then(|m| m.version);
      Some(Bundle { launcher, version })
    })
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
mod tests {
  use super::*;
  use std::fs;

  fn exe(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, "#!/bin/sh\n").unwrap();
    #[cfg(unix)]
    {
      use std::os::unix::fs::PermissionsExt;
      fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    }
    p
  }

  // On Windows (CI runs these under Wine, .ci/windows-lane) `which` applies PATHEXT, so the
  // name `codegraph` also finds `codegraph.exe` and `codegraph.cmd`: PATH order decides, as in
  // cmd.exe. These assume Windows' default PATHEXT, which lists .EXE and .CMD.
  #[cfg(windows)]
  #[test]
  fn windows_pathext_finds_the_exe_under_the_name_codegraph() {
    let a = tempfile::tempdir().unwrap();
    let native = exe(a.path(), "codegraph.exe");
    let path = std::env::join_paths([a.path()]).unwrap();
    let found = search(&WINDOWS_NAMES, Some(&path), |_| true).unwrap();
    assert!(found
      .to_string_lossy()
      .eq_ignore_ascii_case(&native.to_string_lossy()));
  }

  #[cfg(windows)]
  #[test]
  fn windows_the_first_path_dir_wins_whichever_launcher_it_holds() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let cmd = exe(a.path(), "codegraph.cmd");
    let native = exe(b.path(), "codegraph.exe");
    let same = |x: PathBuf, y: &Path| {
      x.to_string_lossy()
        .eq_ignore_ascii_case(&y.to_string_lossy())
    };
    let ab = std::env::join_paths([a.path(), b.path()]).unwrap();
    assert!(same(
      search(&WINDOWS_NAMES, Some(&ab), |_| true).unwrap(),
      &cmd
    ));
    let ba = std::env::join_paths([b.path(), a.path()]).unwrap();
    assert!(same(
      search(&WINDOWS_NAMES, Some(&ba), |_| true).unwrap(),
      &native
    ));
    // A launcher skipped (say, in the workspace) falls through to the next one.
    assert!(same(
      search(&WINDOWS_NAMES, Some(&ab), |p| p != cmd).unwrap(),
      &native
    ));
  }

  #[cfg(windows)]
  #[test]
  fn windows_relative_path_entries_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    exe(dir.path(), "codegraph.exe");
    exe(dir.path(), "codegraph.cmd");
    let old = std::env::current_dir().unwrap();
    std::env::set_current_dir(dir.path()).unwrap();
    let found = search(&WINDOWS_NAMES, Some(std::ffi::OsStr::new(".;;bin")), |_| {
      true
    });
    std::env::set_current_dir(old).unwrap();
    assert_eq!(found, None);
  }

  #[test]
  fn npm_cmd_shim_runs_node_on_the_js_shim() {
    let prefix = tempfile::tempdir().unwrap();
    let cmd = exe(prefix.path(), "codegraph.cmd");
    let node = exe(prefix.path(), "node.exe");
    let pkg = prefix
      .path()
      .join("node_modules")
      .join("@colbymchenry")
      .join("codegraph");
    fs::create_dir_all(&pkg).unwrap();
    fs::write(pkg.join("npm-shim.js"), "").unwrap();
    let launch = launch_for(cmd.clone(), &EnvSnapshot::default(), false);
    assert_eq!(launch.executable, cmd);
    assert_eq!(launch.program, node);
    assert_eq!(
      launch.prefix,
      vec![pkg.join("npm-shim.js").into_os_string()]
    );
  }

  #[test]
  fn a_plain_cmd_without_npm_layout_is_launched_as_is() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = exe(dir.path(), "codegraph.cmd");
    let launch = launch_for(cmd.clone(), &EnvSnapshot::default(), false);
    assert_eq!(launch.program, cmd);
    assert!(launch.prefix.is_empty());
  }

  #[cfg(unix)]
  #[test]
  fn relative_and_empty_path_entries_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    exe(dir.path(), "codegraph");
    let old = std::env::current_dir().unwrap();
    std::env::set_current_dir(dir.path()).unwrap();
    let found = search(&UNIX_NAMES, Some(std::ffi::OsStr::new(".::bin")), |_| true);
    std::env::set_current_dir(old).unwrap();
    assert_eq!(found, None);
  }

  #[cfg(unix)]
  #[test]
  fn the_npm_shim_is_skipped_for_its_platform_bundle() {
    let root = tempfile::tempdir().unwrap();
    let modules = root.path().join("node_modules");
    let pkg = modules.join("@colbymchenry/codegraph");
    fs::create_dir_all(&pkg).unwrap();
    exe(&pkg, "npm-shim.js");
    fs::write(
      pkg.join("package.json"),
      r#"{"name":"@colbymchenry/codegraph","version":"1.6.1","bin":{"codegraph":"npm-shim.js"}}"#,
    )
    .unwrap();
    fs::create_dir_all(modules.join(".bin")).unwrap();
    let link = modules.join(".bin/codegraph");
    std::os::unix::fs::symlink("../@colbymchenry/codegraph/npm-shim.js", &link).unwrap();
    // No bundle installed: the shim runs as found.
    assert_eq!(
      launch_for(link.clone(), &EnvSnapshot::default(), false).bundle,
      None
    );

    let (os, arch) = (
      if cfg!(target_os = "macos") {
        "darwin"
      } else {
        std::env::consts::OS
      },
      match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        a => a,
      },
    );
    let bundle = modules.join(format!("@colbymchenry/codegraph-{os}-{arch}"));
    fs::create_dir_all(bundle.join("bin")).unwrap();
    let launcher = exe(&bundle.join("bin"), "codegraph");
    fs::write(
      bundle.join("package.json"),
      format!(r#"{{"name":"@colbymchenry/codegraph-{os}-{arch}","version":"1.6.1-bundle"}}"#),
    )
    .unwrap();
    let launch = launch_for(link.clone(), &EnvSnapshot::default(), false);
    assert_eq!(launch.executable, link);
    assert_eq!(launch.program, launcher);
    assert_eq!(launch.runs(), launcher.as_path());
    assert_eq!(
      launch.bundle.and_then(|b| b.version).as_deref(),
      Some("1.6.1-bundle")
    );

    // Anything else named codegraph is launched as found.
    let other = exe(root.path(), "codegraph");
    assert_eq!(
      launch_for(other, &EnvSnapshot::default(), false).bundle,
      None
    );
  }

  #[test]
  fn override_must_be_absolute_and_a_file() {
    let ws = tempfile::tempdir().unwrap();
    let env = EnvSnapshot::from_pairs(&[(BIN_OVERRIDE_VAR, "codegraph")]);
    assert_eq!(
      discover(&env, ws.path()).unwrap_err().code().as_str(),
      "CODEGRAPH_NOT_FOUND"
    );
    let env = EnvSnapshot::from_pairs(&[(BIN_OVERRIDE_VAR, "/nonexistent/codegraph")]);
    assert_eq!(
      discover(&env, ws.path()).unwrap_err().code().as_str(),
      "CODEGRAPH_NOT_FOUND"
    );
  }
}
