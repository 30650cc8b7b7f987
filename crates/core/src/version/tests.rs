//! Unit tests of `version` (they reach its private items).

use super::*;

#[test]
fn version_from_the_npm_package_only_for_its_own_bin() {
  let dir = tempfile::tempdir().unwrap();
  let pkg = dir.path().join("node_modules/@colbymchenry/codegraph");
  std::fs::create_dir_all(&pkg).unwrap();
  std::fs::write(pkg.join("npm-shim.js"), "").unwrap();
  std::fs::write(pkg.join("other.js"), "").unwrap();
  std::fs::write(
    pkg.join("package.json"),
    r#"{"name":"@colbymchenry/codegraph","version":"1.6.1","bin":{"codegraph":"npm-shim.js"}}"#,
  )
  .unwrap();
  let launch = |exe: PathBuf| Launch {
    program: exe.clone(),
    executable: exe,
    prefix: Vec::new(),
    in_workspace: false,
    bundle: None,
    beside_package: false,
    exec_refused: None,
  };
  assert_eq!(
    package_version(&launch(pkg.join("npm-shim.js"))).as_deref(),
    Some("1.6.1")
  );
  assert_eq!(package_version(&launch(pkg.join("other.js"))), None);
  std::fs::write(
    pkg.join("package.json"),
    r#"{"name":"someone-else","version":"6.6.6","bin":{"codegraph":"npm-shim.js"}}"#,
  )
  .unwrap();
  assert_eq!(package_version(&launch(pkg.join("npm-shim.js"))), None);
}
