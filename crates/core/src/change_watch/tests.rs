use std::fs;
use std::time::{Duration, Instant};

use super::{unwatch_all, watch_changes, WatchReport};
use crate::source_walk::SkippedDirs;

fn skip() -> SkippedDirs {
  SkippedDirs {
    exact: vec!["node_modules".into(), ".git".into()],
    globs: vec![],
  }
}

/// The report once `done` holds of it (the watch runs on its own thread), within 10 s.
fn report_when(root: &std::path::Path, done: impl Fn(&WatchReport) -> bool) -> WatchReport {
  let started = Instant::now();
  loop {
    let report = watch_changes(root, vec!["ts".into()], skip());
    if done(&report) || started.elapsed() > Duration::from_secs(10) {
      return report;
    }
    std::thread::sleep(Duration::from_millis(5));
  }
}

#[test]
fn files_written_after_it_is_ready_are_touched_skipped_directories_never_watched() {
  let dir = tempfile::tempdir().unwrap();
  let root = dir.path();
  fs::create_dir_all(root.join("src/deep")).unwrap();
  fs::create_dir_all(root.join("node_modules/pkg")).unwrap();
  fs::write(root.join("src/deep/a.ts"), "a").unwrap();
  let ready = report_when(root, |r| r.ready);
  assert!(ready.ready, "{ready:?}");
  assert!(ready.touched.is_empty());
  assert_eq!(
    ready.dirs, 3,
    "the root, src and src/deep; never node_modules"
  );

  fs::write(root.join("src/deep/a.ts"), "changed").unwrap();
  fs::write(root.join("src/notes.md"), "not a source file").unwrap();
  fs::write(root.join("node_modules/pkg/x.ts"), "skipped").unwrap();
  fs::create_dir_all(root.join("src/new/inner")).unwrap();
  fs::write(root.join("src/new/inner/b.ts"), "b").unwrap();
  let seen = report_when(root, |r| r.touched.len() >= 2);
  assert_eq!(seen.touched, ["src/deep/a.ts", "src/new/inner/b.ts"]);
  assert_eq!(seen.epoch, ready.epoch, "the same watch");
  assert!(seen.dirs >= 5, "the new directories are watched: {seen:?}");

  assert!(unwatch_all() >= 1);
  let again = watch_changes(root, vec!["ts".into()], skip());
  assert_ne!(again.epoch, ready.epoch, "a new watch after it was stopped");
  assert!(again.touched.is_empty());
  unwatch_all();
}
