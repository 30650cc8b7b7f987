//! Unit tests of `index_writer`: CodeGraph's lock formats, stale and odd lock files.

use super::*;

fn index_dir() -> tempfile::TempDir {
  tempfile::tempdir().expect("temp dir")
}

/// The live writer, the lock files being readable.
fn writer(dir: &std::path::Path) -> Option<Writer> {
  active_writer(dir).expect("the lock files are readable")
}

/// A pid that ran and has exited (reaped), so nothing runs under it now.
fn dead_pid() -> u32 {
  #[cfg(unix)]
  let mut child = std::process::Command::new("true").spawn().expect("true");
  #[cfg(windows)]
  let mut child = std::process::Command::new("cmd")
    .args(["/c", "exit 0"])
    .spawn()
    .expect("cmd");
  let pid = child.id();
  child.wait().expect("wait");
  pid
}

#[test]
fn a_live_lock_names_its_writer_and_a_rebuild_comes_first() {
  let dir = index_dir();
  let me = std::process::id();
  assert_eq!(writer(dir.path()), None);
  std::fs::write(dir.path().join("codegraph.lock"), me.to_string()).unwrap();
  let lock = writer(dir.path()).expect("a writer");
  assert_eq!((lock.pid, lock.rebuild), (me, false));
  assert_eq!(lock.lock, dir.path().join("codegraph.lock"));
  std::fs::write(
    dir.path().join("rebuild.pid"),
    format!("{{\"pid\":{me},\"mode\":\"rebuild\",\"startedAt\":1,\"ready\":false}}\n"),
  )
  .unwrap();
  let rebuild = writer(dir.path()).expect("a writer");
  assert_eq!((rebuild.pid, rebuild.rebuild), (me, true));
}

#[test]
fn an_empty_lock_is_a_writer_taking_it_only_while_it_is_new() {
  let dir = index_dir();
  let lock = dir.path().join("codegraph.lock");
  std::fs::write(&lock, "").unwrap();
  let taking = writer(dir.path()).expect("a lock created this instant is being taken");
  assert_eq!(
    (taking.pid, taking.rebuild, taking.lock.clone()),
    (0, false, lock.clone())
  );
  let old = std::time::SystemTime::now() - std::time::Duration::from_mins(1);
  std::fs::File::options()
    .write(true)
    .open(&lock)
    .and_then(|f| f.set_modified(old))
    .unwrap();
  assert_eq!(
    writer(dir.path()),
    None,
    "an empty lock a minute old is no sign"
  );
}

#[test]
fn stale_malformed_and_foreign_files_are_not_writers() {
  let dir = index_dir();
  let lock = dir.path().join("codegraph.lock");
  let dead = dead_pid();
  for content in [
    dead.to_string(),
    "not a pid".into(),
    "0".into(),
    "-1".into(),
    format!("-{}", std::process::id()),
    "4294967296".into(),
    format!("{}\n", "9".repeat(5000)),
  ] {
    std::fs::write(&lock, &content).unwrap();
    assert_eq!(writer(dir.path()), None, "{content:?}");
  }
  // rebuild.pid is JSON; a bare pid there is not CodeGraph's format.
  std::fs::remove_file(&lock).unwrap();
  std::fs::write(
    dir.path().join("rebuild.pid"),
    std::process::id().to_string(),
  )
  .unwrap();
  assert_eq!(writer(dir.path()), None);
  // An MCP server's writer.pid is held for its whole life: not a write in progress.
  std::fs::remove_file(dir.path().join("rebuild.pid")).unwrap();
  std::fs::write(
    dir.path().join("writer.pid"),
    format!("{{\"pid\":{},\"mode\":\"daemon\"}}", std::process::id()),
  )
  .unwrap();
  assert_eq!(writer(dir.path()), None);
}

#[test]
fn the_lock_pid_is_read_as_codegraphs_parse_int_reads_it() {
  let dir = index_dir();
  let me = std::process::id();
  for content in [
    format!(" {me}\n"),
    format!("{me}abc"),
    format!("+{me}"),
    format!("{me}.5"),
  ] {
    std::fs::write(dir.path().join("codegraph.lock"), &content).unwrap();
    assert_eq!(writer(dir.path()).map(|w| w.pid), Some(me), "{content:?}");
  }
  // rebuild.pid needs CodeGraph's shape: a numeric pid and a mode.
  std::fs::remove_file(dir.path().join("codegraph.lock")).unwrap();
  for (content, live) in [
    (format!("{{\"pid\":{me},\"mode\":\"rebuild\"}}"), true),
    (format!("{{\"pid\":{me}}}"), false),
    (format!("{{\"pid\":\"{me}\",\"mode\":\"rebuild\"}}"), false),
  ] {
    std::fs::write(dir.path().join("rebuild.pid"), &content).unwrap();
    assert_eq!(writer(dir.path()).is_some(), live, "{content:?}");
  }
}

#[cfg(unix)]
#[test]
fn special_lock_files_are_never_opened_for_reading() {
  let dir = index_dir();
  let lock = dir.path().join("codegraph.lock");
  // A FIFO would block a plain open until a writer came; a directory cannot be read.
  let c = std::ffi::CString::new(lock.to_str().unwrap()).unwrap();
  // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
  assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
  assert_eq!(writer(dir.path()), None);
  std::fs::remove_file(&lock).unwrap();
  std::fs::create_dir(&lock).unwrap();
  assert_eq!(writer(dir.path()), None);
  std::fs::remove_dir(&lock).unwrap();
  std::os::unix::fs::symlink("/dev/zero", &lock).unwrap();
  assert_eq!(writer(dir.path()), None);
}

#[test]
fn liveness() {
  use crate::pid::running;
  assert!(running(std::process::id()));
  assert!(!running(dead_pid()));
  assert!(!running(0));
  assert!(!running(u32::MAX));
}

#[test]
fn a_database_of_one_page_counting_one_is_being_created() {
  let dir = index_dir();
  let db = dir.path().join("codegraph.db");
  let page = |pages: usize, size: u16| {
    let mut bytes = vec![0u8; 4096 * pages];
    bytes[..16].copy_from_slice(b"SQLite format 3\0");
    bytes[16..18].copy_from_slice(&size.to_be_bytes());
    bytes
  };
  let counting = |mut bytes: Vec<u8>, pages: u32| {
    bytes[28..32].copy_from_slice(&pages.to_be_bytes());
    bytes
  };
  for started in [page(1, 4096), counting(page(1, 4096), 1)] {
    std::fs::write(&db, started).unwrap();
    let w = writer(dir.path()).expect("init is creating it");
    assert_eq!((w.pid, w.lock), (0, db.clone()));
  }
  // Finished (more pages), or not a database header CodeGraph writes: no writer.
  for bytes in [
    page(2, 4096),
    page(1, 1799),
    // A finished index cut short: one page whose header counts 42, or less than a page.
    counting(page(1, 4096), 42),
    page(1, 4096)[..2048].to_vec(),
    counting(page(1, 4096), 42)[..100].to_vec(),
    b"SQLite format 3\0".to_vec(),
    Vec::new(),
  ] {
    std::fs::write(&db, bytes).unwrap();
    assert_eq!(writer(dir.path()), None);
  }
}

#[test]
fn a_lock_naming_a_process_that_is_gone_is_an_interrupted_write() {
  let dir = index_dir();
  let interrupted = |d: &std::path::Path| interrupted_write(d).expect("readable");
  assert_eq!(
    interrupted(dir.path()),
    None,
    "no lock: nothing was interrupted"
  );
  let dead = dead_pid();
  std::fs::write(dir.path().join("codegraph.lock"), dead.to_string()).unwrap();
  let found = interrupted(dir.path()).expect("an interrupted write");
  assert_eq!(
    found,
    Interrupted {
      lock: dir.path().join("codegraph.lock"),
      pid: dead,
      rebuild: false
    }
  );
  assert_eq!(found.error().code().as_str(), "CODEGRAPH_INDEX_INTERRUPTED");
  // A rebuild's stale rebuild.pid beside it: a rebuild was interrupted.
  std::fs::write(
    dir.path().join("rebuild.pid"),
    format!("{{\"pid\":{dead},\"mode\":\"rebuild\",\"startedAt\":1,\"ready\":false}}"),
  )
  .unwrap();
  assert!(interrupted(dir.path()).expect("interrupted").rebuild);
  // A live writer's lock is no interruption (active_writer names it).
  std::fs::write(
    dir.path().join("codegraph.lock"),
    std::process::id().to_string(),
  )
  .unwrap();
  assert_eq!(interrupted(dir.path()), None);
  // Nothing CodeGraph writes (empty, no digits): no sign either way.
  for text in ["", "  ", "abc", "-5", "0"] {
    std::fs::write(dir.path().join("codegraph.lock"), text).unwrap();
    assert_eq!(interrupted(dir.path()), None, "{text:?}");
  }
  // A stale rebuild.pid alone (after `codegraph unlock` removed the lock): the index is used as it is.
  std::fs::remove_file(dir.path().join("codegraph.lock")).unwrap();
  assert_eq!(interrupted(dir.path()), None);
}

#[test]
fn a_one_page_database_behind_a_lock_whose_writer_is_gone_is_interrupted_not_being_created() {
  let dir = index_dir();
  let mut page = vec![0u8; 4096];
  page[..16].copy_from_slice(b"SQLite format 3\0");
  page[16..18].copy_from_slice(&4096u16.to_be_bytes());
  page[28..32].copy_from_slice(&1u32.to_be_bytes());
  std::fs::write(dir.path().join("codegraph.db"), page).unwrap();
  assert!(
    writer(dir.path()).is_some(),
    "no lock yet: init is creating it"
  );
  std::fs::write(dir.path().join("codegraph.lock"), dead_pid().to_string()).unwrap();
  assert_eq!(
    writer(dir.path()),
    None,
    "the init took its lock and is gone"
  );
  assert!(interrupted_write(dir.path()).expect("readable").is_some());
  // A rebuild stopped right after it recreated the database, its lock removed by `unlock`: the
  // rebuild.pid it took first says the database is past being created.
  std::fs::remove_file(dir.path().join("codegraph.lock")).unwrap();
  let stale = format!(r#"{{"pid":{},"mode":"rebuild"}}"#, dead_pid());
  std::fs::write(dir.path().join("rebuild.pid"), stale).unwrap();
  assert_eq!(
    writer(dir.path()),
    None,
    "the rebuild took its lock and is gone"
  );
}
