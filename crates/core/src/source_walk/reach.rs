//! Whether the walk would reach a given file: the same rules ([`SourceFiles`]: no skipped
//! directory on its way, no link, what the `.gitignore` files of its directories and
//! `.git/info/exclude` ignore left out), asked of a list of workspace-relative paths without
//! walking the tree: each directory on the way is entered only to read its `.gitignore`, once for
//! every path below it (the list is taken sorted, so paths that share directories share them).
//! The candidates git or a watcher name go through it, so a count from them is the walk's count.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{is_real_dir, Level, SkippedDirs, SourceFiles, NEVER};

impl SourceFiles<'_> {
  /// A walk that enters nothing yet, for [`SourceFiles::reaches`].
  pub fn along(root: &Path, skip: SkippedDirs, started: Instant, deadline: Duration) -> Self {
    Self::unentered(root, skip, started, deadline, NEVER)
  }

  /// Whether the walk reaches `rel` (`/`-separated, under the root; components already checked
  /// to be no `.`, `..` or empty): every directory on its way a real one, neither skipped nor
  /// ignored, and the file not ignored. False once the deadline has passed.
  pub fn reaches(&mut self, rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let Some((name, dirs)) = parts.split_last() else {
      return false;
    };
    if self.stack.first().is_none_or(|l| l.dir != self.root) {
      self.stack.clear();
      self.push(self.root.clone());
    }
    // The levels already entered that are on this path's way stay; the others go.
    let mut dir = self.root.clone();
    let mut depth = 0;
    for part in dirs {
      let next = dir.join(part);
      if self.stack.get(depth + 1).is_none_or(|l| l.dir != next) {
        break;
      }
      dir = next;
      depth += 1;
    }
    self.stack.truncate(depth + 1);
    for part in &dirs[depth..] {
      if self.should_stop() {
        return false;
      }
      let next = dir.join(part);
      if self.skip.skips(part) || !is_real_dir(&next) || self.ignored(&next, true) {
        return false;
      }
      self.push(next.clone());
      dir = next;
    }
    !self.should_stop() && !self.ignored(&dir.join(name), false)
  }

  /// Enters `dir` for its `.gitignore` alone (nothing listed).
  fn push(&mut self, dir: PathBuf) {
    // None where there is none, or it is no regular file reached without a link.
    let ignore = self.ignore_file(&dir, &dir.join(".gitignore"));
    self.stack.push(Level {
      dir,
      pending: Vec::new(),
      ignore,
    });
  }
}

#[cfg(test)]
mod tests {
  use std::fs;
  use std::time::{Duration, Instant};

  use super::super::{SkippedDirs, SourceFiles};

  /// Kept, ignored by a pattern, re-included, in an ignored directory, in another, in a skipped one.
  const FILES: [&str; 7] = [
    "src/a.ts",
    "src/keep.gen.ts",
    "src/x.gen.ts",
    "src/gen/b.ts",
    "dist/c.ts",
    "node_modules/x/d.ts",
    "docs/e.ts",
  ];

  #[test]
  fn reaches_what_the_walk_yields_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for d in ["src/gen", "dist", "node_modules/x", "docs"] {
      fs::create_dir_all(root.join(d)).unwrap();
    }
    fs::write(root.join(".gitignore"), "dist/\n*.gen.ts\n").unwrap();
    fs::write(root.join("src/.gitignore"), "gen/\n!keep.gen.ts\n").unwrap();
    for f in FILES {
      fs::write(root.join(f), "x").unwrap();
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("docs"), root.join("linked")).unwrap();
    let skip = SkippedDirs {
      exact: vec!["node_modules".into()],
      globs: vec![],
    };
    let walked: Vec<String> = {
      let walk = SourceFiles::new(root, skip.clone(), Instant::now(), Duration::from_secs(10));
      let mut files: Vec<String> = walk
        .map(|f| super::super::shown_path(root, &f.path))
        .collect();
      files.sort();
      files
    };
    assert_eq!(walked, ["docs/e.ts", "src/a.ts", "src/keep.gen.ts"]);
    let mut along = SourceFiles::along(root, skip, Instant::now(), Duration::from_secs(10));
    // Each file, and one reached through a link (never followed).
    let mut asked: Vec<&str> = FILES.iter().copied().chain(["linked/e.ts"]).collect();
    asked.sort_unstable();
    let reached: Vec<&str> = asked.into_iter().filter(|p| along.reaches(p)).collect();
    assert_eq!(reached, ["docs/e.ts", "src/a.ts", "src/keep.gen.ts"]);
  }
}
