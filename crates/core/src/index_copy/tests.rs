use std::time::Duration;

use super::*;

fn sibling() -> tempfile::TempDir {
  let dir = tempfile::tempdir().unwrap();
  let index = dir.path().join(".codegraph");
  std::fs::create_dir(&index).unwrap();
  std::fs::write(index.join("codegraph.db"), vec![7u8; 3 * PIECE + 5]).unwrap();
  std::fs::write(index.join("codegraph.db-wal"), b"wal").unwrap();
  std::fs::write(index.join("codegraph.db-shm"), b"shm").unwrap();
  std::fs::write(index.join("codegraph.lock"), b"123").unwrap();
  std::fs::write(index.join(".gitignore"), b"*\n").unwrap();
  dir
}

fn request(from: &Path, to: &Path) -> CopyRequest {
  CopyRequest {
    workspace: to.to_path_buf(),
    from: from.join(".codegraph"),
    to: to.join(".codegraph"),
    deadline: Duration::from_mins(1),
  }
}

fn listing(dir: &Path) -> Vec<String> {
  let mut names: Vec<String> = std::fs::read_dir(dir)
    .unwrap()
    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
    .collect();
  names.sort();
  names
}

#[test]
fn copies_the_database_its_log_and_gitignore_into_new_files_and_nothing_else() {
  let from = sibling();
  let to = tempfile::tempdir().unwrap();
  let copied = copy_index(&request(from.path(), to.path()), &|| false).unwrap();
  assert_eq!(
    copied.files,
    ["codegraph.db", "codegraph.db-wal", ".gitignore"]
  );
  assert_eq!(copied.bytes, (3 * PIECE + 5 + 3 + 2) as u64);
  let index = to.path().join(".codegraph");
  assert_eq!(
    listing(&index),
    [".gitignore", "codegraph.db", "codegraph.db-wal"]
  );
  assert_eq!(
    std::fs::read(index.join("codegraph.db")).unwrap(),
    std::fs::read(from.path().join(".codegraph/codegraph.db")).unwrap()
  );
  assert_eq!(
    listing(to.path()),
    [".codegraph"],
    "no temporary directory left"
  );
  #[cfg(unix)]
  {
    use std::os::unix::fs::MetadataExt;
    let a = std::fs::metadata(index.join("codegraph.db")).unwrap();
    let b = std::fs::metadata(from.path().join(".codegraph/codegraph.db")).unwrap();
    assert_ne!(a.ino(), b.ino(), "a file of its own, not the sibling's");
    assert_eq!(a.nlink(), 1);
  }
}

#[test]
fn refuses_an_existing_target_a_missing_database_and_a_file_that_is_not_regular() {
  let from = sibling();
  let to = tempfile::tempdir().unwrap();
  std::fs::create_dir(to.path().join(".codegraph")).unwrap();
  assert_eq!(
    copy_index(&request(from.path(), to.path()), &|| false),
    Err(CopyRefusal::TargetExists)
  );

  let elsewhere = tempfile::tempdir().unwrap();
  let mut outside = request(from.path(), elsewhere.path());
  outside.workspace = to.path().join("sub");
  assert_eq!(
    copy_index(&outside, &|| false),
    Err(CopyRefusal::TargetOutside)
  );

  let empty = tempfile::tempdir().unwrap();
  std::fs::create_dir(empty.path().join(".codegraph")).unwrap();
  let to = tempfile::tempdir().unwrap();
  assert_eq!(
    copy_index(&request(empty.path(), to.path()), &|| false),
    Err(CopyRefusal::NoDatabase)
  );
  assert_eq!(listing(to.path()), Vec::<String>::new());

  #[cfg(unix)]
  {
    let linked = sibling();
    let wal = linked.path().join(".codegraph/codegraph.db-wal");
    std::fs::remove_file(&wal).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", &wal).unwrap();
    let to = tempfile::tempdir().unwrap();
    assert_eq!(
      copy_index(&request(linked.path(), to.path()), &|| false),
      Err(CopyRefusal::NotRegular {
        name: "codegraph.db-wal".into()
      })
    );
    assert_eq!(
      listing(to.path()),
      Vec::<String>::new(),
      "the partial copy is removed"
    );

    let whole = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
      from.path().join(".codegraph"),
      whole.path().join(".codegraph"),
    )
    .unwrap();
    let to = tempfile::tempdir().unwrap();
    assert_eq!(
      copy_index(&request(whole.path(), to.path()), &|| false),
      Err(CopyRefusal::FromNotDirectory)
    );
  }
}

#[test]
fn a_cancel_or_the_deadline_leaves_nothing_and_the_sibling_as_it_was() {
  let from = sibling();
  let before = std::fs::read(from.path().join(".codegraph/codegraph.db")).unwrap();
  let to = tempfile::tempdir().unwrap();
  let asked = std::cell::Cell::new(0);
  let stop_later = || {
    asked.set(asked.get() + 1);
    asked.get() > 2
  };
  assert_eq!(
    copy_index(&request(from.path(), to.path()), &stop_later),
    Err(CopyRefusal::Stopped { why: "cancelled" })
  );
  assert_eq!(listing(to.path()), Vec::<String>::new());
  let mut late = request(from.path(), to.path());
  late.deadline = Duration::ZERO;
  assert_eq!(
    copy_index(&late, &|| false),
    Err(CopyRefusal::Stopped { why: "deadline" })
  );
  assert_eq!(listing(to.path()), Vec::<String>::new());
  assert_eq!(
    std::fs::read(from.path().join(".codegraph/codegraph.db")).unwrap(),
    before
  );
}
