//! Unit tests of `write_target` (the public-seam tests are __test__/contracts/write-target.test.mjs).

use super::*;

#[test]
fn codegraph_files_and_their_temp_files() {
  for name in [
    "codegraph.db",
    "codegraph.db-wal",
    ".gitignore",
    "writer.pid.123.tmp",
    "daemon.pid.9.ready.tmp",
  ] {
    assert!(is_codegraph_file(name), "{name}");
  }
  for name in [
    "ui",
    "notes.txt",
    "writer.pid..tmp",
    "writer.pid.12a.tmp",
    "other.pid.1.tmp",
    "codegraph.db.bak",
  ] {
    assert!(!is_codegraph_file(name), "{name}");
  }
}

#[test]
fn mountinfo_escapes() {
  assert_eq!(unescape_mount(r"/a\040b\011c\134d"), "/a b\tc\\d");
  assert_eq!(unescape_mount(r"/plain\04"), r"/plain\04");
}

#[cfg(unix)]
#[test]
fn links_are_refused_for_a_write_and_a_real_directory_is_not() {
  let outer = tempfile::tempdir().unwrap();
  let ws = outer.path().join("ws");
  std::fs::create_dir(&ws).unwrap();
  let home = canonical(&ws);
  let tag = |e: CodegraphError| match e {
    CodegraphError::NoIndex {
      kind: NoIndexKind::NotOwn { .. },
      reason,
      ..
    } => match *reason {
      NoIndexReason::Outside { .. } => "outside",
      NoIndexReason::Linked { .. } => "linked",
      other => panic!("{other:?}"),
    },
    other => panic!("{other:?}"),
  };
  assert!(check_write_target(&ws, &home, ".codegraph", false).is_ok());
  std::os::unix::fs::symlink("..", ws.join(".codegraph")).unwrap();
  assert_eq!(
    tag(check_write_target(&ws, &home, ".codegraph", false).unwrap_err()),
    "outside"
  );
  assert!(check_write_target(&ws, &home, ".codegraph", true).is_ok());
  std::fs::remove_file(ws.join(".codegraph")).unwrap();
  std::os::unix::fs::symlink("gone", ws.join(".codegraph")).unwrap();
  assert_eq!(
    tag(check_write_target(&ws, &home, ".codegraph", false).unwrap_err()),
    "linked"
  );
  std::fs::remove_file(ws.join(".codegraph")).unwrap();
  std::fs::create_dir(ws.join(".codegraph")).unwrap();
  assert!(check_write_target(&ws, &home, ".codegraph", false).is_ok());
  std::os::unix::fs::symlink("../x", ws.join(".codegraph").join("errors.log")).unwrap();
  assert_eq!(
    tag(check_write_target(&ws, &home, ".codegraph", false).unwrap_err()),
    "linked"
  );
}

#[test]
fn uninit_refuses_a_foreign_file() {
  let ws = tempfile::tempdir().unwrap();
  let dir = ws.path().join(".codegraph");
  std::fs::create_dir_all(dir.join("ui").join("trails")).unwrap();
  std::fs::write(dir.join("codegraph.db"), "").unwrap();
  std::fs::write(dir.join("ui").join("trails").join("t.json"), "").unwrap();
  assert!(check_removable(ws.path(), ".codegraph").is_ok());
  std::fs::write(dir.join("mine.txt"), "").unwrap();
  let err = check_removable(ws.path(), ".codegraph").unwrap_err();
  assert!(
    matches!(&err, CodegraphError::NoIndex { reason, .. } if matches!(**reason, NoIndexReason::ForeignEntry { .. })),
    "{err:?}"
  );
}
