//! Which source files were written after a moment (the index's last write): the workspace walked
//! as the source scan walks it (`source_walk`: `.gitignore`, `.git/info/exclude`, the directories
//! CodeGraph skips), reading nothing but each file's metadata. It tells the status slot about
//! changes no Pi tool reported (a shell command, an editor). "Written" is `files::written_ms`:
//! the modification time, or on Unix the change time when earlier, so that a modification time
//! set in the future (`touch -d`, an archive, a skewed clock) is not counted after every sync. Bounded by a deadline
//! and a number of files seen; at most `max_paths` paths are listed, every change seen is
//! counted, and a walk a bound ended says so (`stopped`, `files_seen`): its count is a lower bound.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::files::{extension_listed, name_listed, written_ms};
use crate::source_scan::ScanStop;
use crate::source_walk::{SkippedDirs, SourceFiles};

/// One walk: which files count (by extension), what is never entered, since when, the bounds.
#[derive(Debug, Clone)]
pub struct ChangeScan {
  /// Extensions without the dot, compared case-insensitively.
  pub extensions: Vec<String>,
  pub skip: SkippedDirs,
  /// A file modified after this counts.
  pub since: SystemTime,
  pub max_files: usize,
  pub max_paths: usize,
  pub deadline: Duration,
  /// When given, no walk: only these workspace-relative, `/`-separated paths are looked at (the
  /// candidates git or a watcher names: lib/api/disk-changes.js), by the same rules (extension,
  /// skipped directories, never through a link, what the ignore files leave out:
  /// `SourceFiles::reaches`). One with an empty, `.` or `..` component is left out.
  pub only: Option<Vec<String>>,
}

impl ChangeScan {
  /// `since` in milliseconds since the Unix epoch, as [`written_ms`] gives a file's.
  fn since_ms(&self) -> u64 {
    self
      .since
      .duration_since(UNIX_EPOCH)
      .map_or(0, |d| d.as_millis() as u64)
  }

  /// Whether files of `extension` (without the dot) are looked at.
  fn wants(&self, extension: &str) -> bool {
    extension_listed(&self.extensions, extension)
  }
}

/// What the walk found: the first `max_paths` changed files (relative, `/`-separated, in walk
/// order), how many changed in all, how many files of the extensions it looked at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeOutcome {
  pub paths: Vec<String>,
  pub changed: usize,
  pub files_seen: usize,
  /// `Deadline` or `Files` when a bound ended the walk early.
  pub stopped: Option<ScanStop>,
  /// Ignore files read only in part (over the walk's bound).
  pub ignore_files_cut: usize,
}

impl ChangeOutcome {
  /// One file of the extensions, the walk's and the candidates' alike: false (nothing counted,
  /// `stopped` set) once the file bound is reached; else seen, and changed when `written()` (its
  /// write time, asked only now; none when it is no regular file there) is after `since`.
  fn count(
    &mut self,
    scan: &ChangeScan,
    since: u64,
    written: impl FnOnce() -> Option<u64>,
    shown: impl FnOnce() -> String,
  ) -> bool {
    if self.files_seen >= scan.max_files {
      self.stopped = Some(ScanStop::Files);
      return false;
    }
    self.files_seen += 1;
    if written().is_some_and(|at| at > since) {
      self.changed += 1;
      if self.paths.len() < scan.max_paths {
        self.paths.push(shown());
      }
    }
    true
  }
}

/// Walks `root` as `scan` says (or looks at `scan.only`). A file whose metadata cannot be read is
/// not counted.
pub fn changed_since(root: &Path, scan: &ChangeScan) -> ChangeOutcome {
  if let Some(paths) = &scan.only {
    return changed_among(root, scan, paths);
  }
  let started = Instant::now();
  let since = scan.since_ms();
  let mut outcome = ChangeOutcome::default();
  let mut files = SourceFiles::new(root, scan.skip.clone(), started, scan.deadline);
  while let Some(file) = files.next() {
    if !scan.wants(&file.extension) {
      continue;
    }
    let written = || Some(written_ms(&file.metadata));
    if !outcome.count(scan, since, written, || files.shown(&file.path)) {
      break;
    }
  }
  outcome.ignore_files_cut = files.ignore_files_cut;
  outcome.stopped = outcome.stopped.or(files.stopped.map(ScanStop::from));
  outcome
}

/// `scan.only`: each listed path as the walk would judge the file there, without walking.
fn changed_among(root: &Path, scan: &ChangeScan, paths: &[String]) -> ChangeOutcome {
  let started = Instant::now();
  let since = scan.since_ms();
  let mut outcome = ChangeOutcome::default();
  // Sorted, so that paths in the same directories read its ignore files once.
  let mut paths: Vec<&String> = paths.iter().collect();
  paths.sort_unstable();
  paths.dedup();
  let mut reach = SourceFiles::along(root, scan.skip.clone(), started, scan.deadline);
  for rel in paths {
    if started.elapsed() >= scan.deadline {
      outcome.stopped = Some(ScanStop::Deadline);
      break;
    }
    let parts: Vec<&str> = rel.split('/').collect();
    let Some((name, dirs)) = parts.split_last() else {
      continue;
    };
    if parts
      .iter()
      .any(|p| p.is_empty() || *p == "." || *p == "..")
      || dirs.iter().any(|d| scan.skip.skips(d))
    {
      continue;
    }
    let wanted = name_listed(&scan.extensions, name);
    // What the walk would not reach (an ignored file or directory, a link on the way) is not counted.
    if !wanted || !reach.reaches(rel) {
      if reach.stopped.is_some() {
        outcome.stopped = Some(ScanStop::Deadline);
        break;
      }
      continue;
    }
    // Never followed: a link is no file here, as in the walk.
    let written = || {
      let metadata = std::fs::symlink_metadata(root.join(rel)).ok()?;
      metadata.is_file().then(|| written_ms(&metadata))
    };
    if !outcome.count(scan, since, written, || rel.clone()) {
      break;
    }
  }
  outcome
}

#[cfg(test)]
mod tests {
  use super::{changed_since, ChangeScan};
  use crate::source_walk::SkippedDirs;
  use std::fs;
  use std::time::{Duration, SystemTime};

  fn scan(since: SystemTime, max_paths: usize) -> ChangeScan {
    ChangeScan {
      extensions: vec!["rs".into(), "TS".into()],
      skip: SkippedDirs {
        exact: vec![],
        globs: vec!["target".into()],
      },
      since,
      max_files: 100,
      max_paths,
      deadline: Duration::from_secs(10),
      only: None,
    }
  }

  #[test]
  fn counts_files_of_the_extensions_written_after_the_moment_outside_what_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(root.join("target")).unwrap();
    fs::create_dir_all(root.join("gen")).unwrap();
    fs::write(root.join("src/old.rs"), "fn old() {}").unwrap();
    let old = SystemTime::now() - Duration::from_hours(1);
    fs::File::options()
      .write(true)
      .open(root.join("src/old.rs"))
      .unwrap()
      .set_modified(old)
      .unwrap();
    let since = SystemTime::now() - Duration::from_mins(1);
    fs::write(root.join("src/a.rs"), "fn a() {}").unwrap();
    fs::write(root.join("src/b.Ts"), "export {}").unwrap();
    fs::write(root.join("src/notes.md"), "# not code CodeGraph reads").unwrap();
    fs::write(root.join("target/out.rs"), "fn built() {}").unwrap();
    fs::write(root.join("gen/made.rs"), "fn made() {}").unwrap();
    fs::write(root.join(".gitignore"), "gen/\n").unwrap();

    let found = changed_since(root, &scan(since, 10));
    assert_eq!(found.paths, vec!["src/a.rs", "src/b.Ts"]);
    assert_eq!(
      (found.changed, found.files_seen, found.stopped),
      (2, 3, None)
    );

    let capped = changed_since(root, &scan(since, 1));
    assert_eq!(
      (capped.paths, capped.changed),
      (vec!["src/a.rs".to_owned()], 2)
    );

    // Given paths (git's candidates): only those, by the same rules, no walk.
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("src/a.rs"), root.join("src/link.rs")).unwrap();
    let mut listed = scan(since, 10);
    listed.only = Some(
      [
        "src/b.Ts",
        "src/old.rs",
        "src/notes.md",
        "target/out.rs",
        "src/link.rs",
        "src/../src/a.rs",
        "src/gone.rs",
      ]
      .map(str::to_owned)
      .to_vec(),
    );
    let among = changed_since(root, &listed);
    assert_eq!(among.paths, vec!["src/b.Ts"], "src/a.rs was not listed");
    assert_eq!(
      (among.changed, among.files_seen, among.stopped),
      (1, 4, None),
      "seen: b.Ts, old.rs, link.rs, gone.rs"
    );
  }
}
