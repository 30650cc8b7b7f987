//! Unit tests of `preflight` (they reach its private items).

use super::*;
use crate::caps::MAX_REQUEST_CHARS;

#[test]
fn requests() {
  assert!(check_request("how does checkout call charge").is_ok());
  assert!(check_request("-p /etc --max-files 1").is_ok());
  for bad in ["", "  \n\t", "a\0b"] {
    assert_eq!(
      check_request(bad).unwrap_err().code().as_str(),
      "CODEGRAPH_INVALID_REQUEST"
    );
  }
  assert!(check_request(&"é".repeat(MAX_REQUEST_CHARS)).is_ok());
  assert!(check_request(&"é".repeat(MAX_REQUEST_CHARS + 1)).is_err());
  // An emoji is two UTF-16 units, as the CLI counts them.
  assert!(check_request(&"😀".repeat(MAX_REQUEST_CHARS / 2)).is_ok());
  assert!(check_request(&"😀".repeat(MAX_REQUEST_CHARS / 2 + 1)).is_err());
}

#[test]
fn workspace_must_be_an_absolute_directory() {
  let dir = tempfile::tempdir().unwrap();
  let file = dir.path().join("f");
  std::fs::write(&file, "").unwrap();
  assert!(check_workspace(dir.path().to_str().unwrap()).is_ok());
  for bad in [
    "",
    "relative/dir",
    file.to_str().unwrap(),
    "/nonexistent/ws",
  ] {
    assert_eq!(
      check_workspace(bad).unwrap_err().code().as_str(),
      "CODEGRAPH_WORKSPACE",
      "{bad}"
    );
  }
}

#[test]
fn index_needs_a_sqlite_db_and_honours_codegraph_dir() {
  let ws = tempfile::tempdir().unwrap();
  let home = canonical(ws.path());
  let env = EnvSnapshot::default();
  assert_eq!(
    check_index(ws.path(), &home, &env)
      .unwrap_err()
      .code()
      .as_str(),
    "CODEGRAPH_NO_INDEX"
  );
  std::fs::create_dir(ws.path().join(".codegraph")).unwrap();
  let db = ws.path().join(".codegraph/codegraph.db");
  assert!(check_index(ws.path(), &home, &env).is_err());
  std::fs::write(&db, b"hello").unwrap();
  assert!(check_index(ws.path(), &home, &env).is_err());
  std::fs::write(&db, [&SQLITE_MAGIC[..], &[0u8; 84]].concat()).unwrap();
  assert!(check_index(ws.path(), &home, &env).is_ok());

  let renamed = EnvSnapshot::from_pairs(&[("CODEGRAPH_DIR", ".cg")]);
  assert!(check_index(ws.path(), &home, &renamed).is_err());
  let escaping = EnvSnapshot::from_pairs(&[("CODEGRAPH_DIR", "../elsewhere")]);
  assert!(check_index(ws.path(), &home, &escaping).is_ok());
}
