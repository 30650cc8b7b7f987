//! Unit tests of `discovery` (they reach its private items).

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
  let launch = launch_for(cmd.clone(), &EnvSnapshot::default(), false, &|_| true);
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
  let launch = launch_for(cmd.clone(), &EnvSnapshot::default(), false, &|_| true);
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
    launch_for(link.clone(), &EnvSnapshot::default(), false, &|_| true).bundle,
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
  let launch = launch_for(link.clone(), &EnvSnapshot::default(), false, &|_| true);
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
    launch_for(other, &EnvSnapshot::default(), false, &|_| true).bundle,
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
