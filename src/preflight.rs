//! Checks made before anything runs. They only read: nothing here creates, syncs or repairs.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::environment::EnvSnapshot;
use crate::errors::ExploreError;
use crate::limits::MAX_REQUEST_CHARS;

/// CodeGraph's own default index directory name, overridable with `CODEGRAPH_DIR`.
const DEFAULT_INDEX_DIR: &str = ".codegraph";
const DB_FILE: &str = "codegraph.db";
/// Every SQLite database starts with this 16-byte header; CodeGraph also treats a db shorter than
/// the header as "not initialised".
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

pub fn check_request(request: &str) -> Result<(), ExploreError> {
  let invalid = |reason: &str| {
    Err(ExploreError::InvalidRequest {
      reason: reason.to_owned(),
    })
  };
  if request.trim().is_empty() {
    return invalid("it is empty or only whitespace");
  }
  if request.contains('\0') {
    return invalid("it contains a NUL byte, which no command-line argument can carry");
  }
  let chars = request.chars().count();
  if chars > MAX_REQUEST_CHARS {
    return Err(ExploreError::InvalidRequest {
      reason: format!("it is {chars} characters long; the limit is {MAX_REQUEST_CHARS}"),
    });
  }
  Ok(())
}

pub fn check_workspace(cwd: &str) -> Result<PathBuf, ExploreError> {
  let path = PathBuf::from(cwd);
  let fail = |reason: &str| {
    Err(ExploreError::Workspace {
      path: path.clone(),
      reason: reason.to_owned(),
    })
  };
  if cwd.is_empty() {
    return fail("no workspace directory was given");
  }
  if !path.is_absolute() {
    return fail("it is not an absolute path");
  }
  match std::fs::metadata(&path) {
    // A directory we cannot list would fail later in confusing ways (as "no index").
    Ok(m) if m.is_dir() => match std::fs::read_dir(&path) {
      Ok(_) => Ok(path),
      Err(e) => fail(&format!("it cannot be read ({e})")),
    },
    Ok(_) => fail("it is not a directory"),
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => fail("it does not exist"),
    Err(e) => fail(&format!("it cannot be read ({e})")),
  }
}

/// The index must be the workspace's own: the CLI would walk up to an ancestor's index, which
/// would answer questions about another project.
pub fn check_index(workspace: &Path, env: &EnvSnapshot) -> Result<PathBuf, ExploreError> {
  let dir = workspace.join(index_dir_name(env));
  let db = dir.join(DB_FILE);
  let no_index = |reason: String| ExploreError::NoIndex {
    path: workspace.to_path_buf(),
    reason,
  };
  match std::fs::metadata(&dir) {
    Ok(m) if m.is_dir() => {}
    Ok(_) => return Err(no_index(format!("{} is not a directory", dir.display()))),
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
      return Err(no_index(format!("{} does not exist", dir.display())))
    }
    Err(e) => {
      return Err(ExploreError::Workspace {
        path: workspace.to_path_buf(),
        reason: format!("{} cannot be read ({e})", dir.display()),
      })
    }
  }
  let mut header = [0u8; 16];
  let read = File::open(&db).and_then(|mut f| f.read_exact(&mut header));
  match read {
    Ok(()) if &header == SQLITE_MAGIC => Ok(dir),
    Ok(()) => Err(no_index(format!(
      "{} is not a SQLite database",
      db.display()
    ))),
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
      Err(no_index(format!("{} does not exist", db.display())))
    }
    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
      Err(no_index(format!("{} is empty or truncated", db.display())))
    }
    Err(e) => Err(no_index(format!("{} cannot be read ({e})", db.display()))),
  }
}

/// `CODEGRAPH_DIR` as the CLI accepts it: a plain directory name. Anything path-like is ignored
/// (the CLI warns and ignores it too), so it can never point the check outside the workspace.
fn index_dir_name(env: &EnvSnapshot) -> String {
  env
    .get_set("CODEGRAPH_DIR")
    .and_then(|v| v.to_str())
    .filter(|v| *v != "." && *v != ".." && !v.contains(['/', '\\']))
    .unwrap_or(DEFAULT_INDEX_DIR)
    .to_owned()
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn requests() {
    assert!(check_request("how does checkout call charge").is_ok());
    assert!(check_request("-p /etc --max-files 1").is_ok());
    for bad in ["", "  \n\t", "a\0b"] {
      assert_eq!(
        check_request(bad).unwrap_err().code(),
        "CODEGRAPH_INVALID_REQUEST"
      );
    }
    assert!(check_request(&"é".repeat(MAX_REQUEST_CHARS)).is_ok());
    assert!(check_request(&"é".repeat(MAX_REQUEST_CHARS + 1)).is_err());
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
        check_workspace(bad).unwrap_err().code(),
        "CODEGRAPH_WORKSPACE",
        "{bad}"
      );
    }
  }

  #[test]
  fn index_needs_a_sqlite_db_and_honours_codegraph_dir() {
    let ws = tempfile::tempdir().unwrap();
    let env = EnvSnapshot::default();
    assert_eq!(
      check_index(ws.path(), &env).unwrap_err().code(),
      "CODEGRAPH_NO_INDEX"
    );
    std::fs::create_dir(ws.path().join(".codegraph")).unwrap();
    let db = ws.path().join(".codegraph/codegraph.db");
    assert!(check_index(ws.path(), &env).is_err());
    std::fs::write(&db, b"hello").unwrap();
    assert!(check_index(ws.path(), &env).is_err());
    std::fs::write(&db, [&SQLITE_MAGIC[..], &[0u8; 84]].concat()).unwrap();
    assert!(check_index(ws.path(), &env).is_ok());

    let renamed = EnvSnapshot::from_pairs(&[("CODEGRAPH_DIR", ".cg")]);
    assert!(check_index(ws.path(), &renamed).is_err());
    let escaping = EnvSnapshot::from_pairs(&[("CODEGRAPH_DIR", "../elsewhere")]);
    assert!(check_index(ws.path(), &escaping).is_ok());
  }
}
