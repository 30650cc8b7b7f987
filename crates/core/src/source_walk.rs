//! The walk of a workspace's source that the scan (`source_scan`) and the changed-files walk
//! (`source_changes`) share: depth first, sorted by name, a directory before what it holds,
//! symbolic links never followed, the directory names the caller lists never entered, and what
//! `.gitignore` files (at every depth) and `.git/info/exclude` ignore left out, the deepest
//! file that decides winning, as git has it.
//!
//! A repository's own files are attacker-controlled input: an ignore file is read only when it
//! is a regular file reached without a link (`files::open_workspace_file`: a committed
//! `.gitignore -> /dev/tty` is never opened), and only its first [`MAX_IGNORE_FILE_BYTES`]
//! (counted in `ignore_files_cut`). The deadline is checked before each entry, while a large
//! directory is listed and while an ignore file's patterns compile; no read the walk makes can
//! block (regular files, bounded), so it holds.
//! Matching uses ripgrep's own gitignore rules (`ignore::gitignore`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::files::{open_workspace_file, read_prefix};

mod reach;

/// An ignore file's bytes past this are not read (a real one is a few KB; one of megabytes would
/// cost seconds to compile): the first lines count, the file is counted as cut.
pub const MAX_IGNORE_FILE_BYTES: u64 = 64 * 1024;
/// An ignore file's patterns are compiled this many lines at a time, the deadline checked
/// between (compiling 64 KB of globs can take a few hundred milliseconds).
const IGNORE_LINES_PER_CHUNK: usize = 128;
/// While a directory is listed, the deadline is checked every this many entries.
const LIST_CHECK_EVERY: usize = 1024;

/// Why a walk ended before the end of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkStop {
  Deadline,
  Cancelled,
}

/// What never to enter: exact directory names (the index directory's own, `.git`) and names
/// with `*` standing for any run of characters (`*.egg-info`).
#[derive(Debug, Clone, Default)]
pub struct SkippedDirs {
  pub exact: Vec<String>,
  pub globs: Vec<String>,
}

impl SkippedDirs {
  pub(crate) fn skips(&self, name: &str) -> bool {
    self.exact.iter().any(|e| e == name) || self.globs.iter().any(|g| glob_matches(g, name))
  }
}

/// Whether a directory `name` is one `glob` lists (`*` matches any run of characters).
pub(crate) fn glob_matches(glob: &str, name: &str) -> bool {
  let mut parts = glob.split('*');
  let first = parts.next().unwrap_or_default();
  let Some(mut rest) = name.strip_prefix(first) else {
    return false;
  };
  let tail: Vec<&str> = parts.collect();
  let Some((last, middle)) = tail.split_last() else {
    return rest.is_empty();
  };
  for part in middle {
    match rest.find(part) {
      Some(i) => rest = &rest[i + part.len()..],
      None => return false,
    }
  }
  rest.len() >= last.len() && rest.ends_with(last)
}

/// A file the walk yields: its path, its extension lowercased, and its metadata (not followed).
pub struct SourceFile {
  pub path: PathBuf,
  pub extension: String,
  pub metadata: std::fs::Metadata,
}

/// One ignore file's patterns, compiled in chunks of lines, in the file's order.
struct IgnoreFile(Vec<Gitignore>);

impl IgnoreFile {
  /// The last pattern that matches decides, as in one file: the last chunk with a match.
  fn matched(&self, path: &Path, is_dir: bool) -> Match<()> {
    for chunk in self.0.iter().rev() {
      match chunk.matched(path, is_dir) {
        Match::Ignore(_) => return Match::Ignore(()),
        Match::Whitelist(_) => return Match::Whitelist(()),
        Match::None => {}
      }
    }
    Match::None
  }
}

/// One directory being walked: its entries still to visit (sorted, reversed to pop), and the
/// patterns of its own `.gitignore`, if any.
struct Level {
  dir: PathBuf,
  pending: Vec<OsString>,
  ignore: Option<IgnoreFile>,
}

/// The files of `root`'s tree that have an extension, in walk order (see the module comment),
/// until the deadline passes or `cancelled` says so: then `stopped` says which.
pub struct SourceFiles<'a> {
  root: PathBuf,
  skip: SkippedDirs,
  /// `.git/info/exclude` of the root: below every `.gitignore` in precedence.
  exclude: Option<IgnoreFile>,
  stack: Vec<Level>,
  started: Instant,
  deadline: Duration,
  cancelled: &'a dyn Fn() -> bool,
  pub stopped: Option<WalkStop>,
  /// Ignore files longer than [`MAX_IGNORE_FILE_BYTES`], read only in part.
  pub ignore_files_cut: usize,
  /// The directories entered, when asked for ([`SourceFiles::entering`]).
  entered: Option<Vec<PathBuf>>,
}

const NEVER: &dyn Fn() -> bool = &|| false;

impl<'a> SourceFiles<'a> {
  pub fn new(root: &Path, skip: SkippedDirs, started: Instant, deadline: Duration) -> Self {
    Self::cancellable(root, skip, started, deadline, NEVER)
  }

  pub fn cancellable(
    root: &Path,
    skip: SkippedDirs,
    started: Instant,
    deadline: Duration,
    cancelled: &'a dyn Fn() -> bool,
  ) -> Self {
    let mut walk = Self::unentered(root, skip, started, deadline, cancelled);
    walk.enter(root.to_path_buf());
    walk
  }

  /// The walk before it enters the root: its rules, and `.git/info/exclude` when `.git` and
  /// `.git/info` are directories (not links, not a worktree's `.git` file, whose exclude lives
  /// outside the workspace).
  fn unentered(
    root: &Path,
    skip: SkippedDirs,
    started: Instant,
    deadline: Duration,
    cancelled: &'a dyn Fn() -> bool,
  ) -> Self {
    let mut walk = SourceFiles {
      root: root.to_path_buf(),
      skip,
      exclude: None,
      stack: Vec::new(),
      started,
      deadline,
      cancelled,
      stopped: None,
      ignore_files_cut: 0,
      entered: None,
    };
    let git = root.join(".git");
    let info = git.join("info");
    if is_real_dir(&git) && is_real_dir(&info) {
      walk.exclude = walk.ignore_file(root, &info.join("exclude"));
    }
    walk
  }

  /// The same walk, keeping every directory it enters (the root first): [`SourceFiles::entered`].
  #[must_use]
  pub fn entering(mut self) -> Self {
    self.entered = Some(self.stack.iter().map(|l| l.dir.clone()).collect());
    self
  }

  /// The directories entered so far (with [`SourceFiles::entering`]; else none).
  pub fn entered(&mut self) -> Vec<PathBuf> {
    self.entered.take().unwrap_or_default()
  }

  fn should_stop(&mut self) -> bool {
    if self.stopped.is_none() {
      if (self.cancelled)() {
        self.stopped = Some(WalkStop::Cancelled);
      } else if self.started.elapsed() >= self.deadline {
        self.stopped = Some(WalkStop::Deadline);
      }
    }
    self.stopped.is_some()
  }

  /// The patterns of one ignore file (`root`: the directory they are relative to); None when
  /// there are none, or the deadline passed while they were compiled (then the walk stops).
  fn ignore_file(&mut self, root: &Path, file: &Path) -> Option<IgnoreFile> {
    let (bytes, more) = open_workspace_file(file)
      .and_then(|f| read_prefix(f, MAX_IGNORE_FILE_BYTES))
      .ok()?;
    let text = String::from_utf8_lossy(&bytes);
    // Cut at the last whole line when the file goes on.
    let text = if more {
      self.ignore_files_cut += 1;
      text.rfind('\n').map_or("", |i| &text[..i])
    } else {
      &text
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut chunks = Vec::new();
    for part in lines.chunks(IGNORE_LINES_PER_CHUNK) {
      if self.should_stop() {
        return None;
      }
      let mut builder = GitignoreBuilder::new(root);
      for line in part {
        // A line the rules cannot read is skipped; the rest of the file still counts.
        let _ = builder.add_line(Some(file.to_path_buf()), line);
      }
      if let Ok(chunk) = builder.build() {
        if !chunk.is_empty() {
          chunks.push(chunk);
        }
      }
    }
    (!chunks.is_empty()).then_some(IgnoreFile(chunks))
  }

  /// Lists `dir` (sorted by name) and pushes it, with its `.gitignore`.
  fn enter(&mut self, dir: PathBuf) {
    let mut pending = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
      for (i, entry) in entries.enumerate() {
        if i % LIST_CHECK_EVERY == LIST_CHECK_EVERY - 1 && self.should_stop() {
          return;
        }
        if let Ok(entry) = entry {
          pending.push(entry.file_name());
        }
      }
    }
    pending.sort_unstable_by(|a, b| b.as_encoded_bytes().cmp(a.as_encoded_bytes()));
    let ignore = if pending.iter().any(|n| n == ".gitignore") {
      self.ignore_file(&dir, &dir.join(".gitignore"))
    } else {
      None
    };
    if let Some(entered) = &mut self.entered {
      entered.push(dir.clone());
    }
    self.stack.push(Level {
      dir,
      pending,
      ignore,
    });
  }

  /// Whether `path` is ignored: the deepest ignore file that matches decides, then the exclude.
  fn ignored(&self, path: &Path, is_dir: bool) -> bool {
    let levels = self.stack.iter().rev().filter_map(|l| l.ignore.as_ref());
    for patterns in levels.chain(self.exclude.as_ref()) {
      match patterns.matched(path, is_dir) {
        Match::Ignore(()) => return true,
        Match::Whitelist(()) => return false,
        Match::None => {}
      }
    }
    false
  }
}

fn is_real_dir(path: &Path) -> bool {
  std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

fn lowercase_extension(path: &Path) -> Option<String> {
  path
    .extension()
    .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

impl Iterator for SourceFiles<'_> {
  type Item = SourceFile;

  fn next(&mut self) -> Option<SourceFile> {
    loop {
      if self.should_stop() {
        return None;
      }
      let level = self.stack.last_mut()?;
      let Some(name) = level.pending.pop() else {
        self.stack.pop();
        continue;
      };
      let path = level.dir.join(&name);
      // Never followed: a link is neither a directory nor a file here.
      let Ok(metadata) = std::fs::symlink_metadata(&path) else {
        continue;
      };
      if metadata.is_dir() {
        let skipped = self.skip.skips(&name.to_string_lossy());
        if !skipped && !self.ignored(&path, true) {
          self.enter(path);
        }
        continue;
      }
      if !metadata.is_file() || self.ignored(&path, false) {
        continue;
      }
      let Some(extension) = lowercase_extension(&path) else {
        continue;
      };
      return Some(SourceFile {
        path,
        extension,
        metadata,
      });
    }
  }
}

impl SourceFiles<'_> {
  /// `path` relative to the walked root, `/`-separated.
  pub fn shown(&self, path: &Path) -> String {
    shown_path(&self.root, path)
  }
}

/// `path` relative to `root`, `/`-separated.
pub(crate) fn shown_path(root: &Path, path: &Path) -> String {
  let relative = path.strip_prefix(root).unwrap_or(path);
  relative
    .components()
    .map(|c| c.as_os_str().to_string_lossy())
    .collect::<Vec<_>>()
    .join("/")
}

#[cfg(test)]
mod tests;
