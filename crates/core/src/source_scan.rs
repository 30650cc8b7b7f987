//! A bounded search of a workspace's source for lines that match a pattern: the runner's half of
//! "where is the index blind" (the JS api layer, `lib/api/blind-spots.js`, asks for the
//! definitions of a name CodeGraph said it lacks and words what is found). The walk ignores what
//! CodeGraph's indexer ignores as far as a walk can (`.gitignore` files at every depth,
//! `.git/info/exclude`, the directory names the caller lists); the search is ripgrep's
//! (`grep-searcher` over `grep-regex`). Bounded by a deadline, a number of files and of bytes, and
//! of matches: what stopped it is part of the outcome. Sequential and sorted by name, so that the
//! same tree gives the same answer (the Node runner's twin, `lib/runners/node/source-scan.js`,
//! walks in the same order).

use std::path::Path;
use std::time::{Duration, Instant};

use grep_regex::RegexMatcher;
use grep_searcher::sinks::Bytes;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::{DirEntry, WalkBuilder};

/// Which files one pattern applies to (by extension, compared lowercase, without the dot).
#[derive(Debug, Clone)]
pub struct ScanRule {
  pub extensions: Vec<String>,
  pub pattern: String,
}

/// One scan: the rules, the directories never entered, the bounds.
#[derive(Debug, Clone)]
pub struct SourceScan {
  pub rules: Vec<ScanRule>,
  /// Directory names never entered: exact, or with `*` standing for any run of characters.
  pub skip_dirs: Vec<String>,
  pub max_files: usize,
  /// Larger files are not read (counted in `files_too_large`).
  pub max_file_bytes: u64,
  pub max_total_bytes: u64,
  pub max_matches: usize,
  pub deadline: Duration,
}

/// A matching line: the file relative to the root (`/`-separated), its 1-based line, its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanMatch {
  pub path: String,
  pub line: u64,
  pub file_bytes: u64,
}

/// Which bound ended the scan early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanStop {
  Deadline,
  Files,
  Bytes,
  Matches,
}

impl ScanStop {
  /// The tag JS reads (`stopped`).
  pub fn tag(self) -> &'static str {
    match self {
      ScanStop::Deadline => "deadline",
      ScanStop::Files => "files",
      ScanStop::Bytes => "bytes",
      ScanStop::Matches => "matches",
    }
  }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanOutcome {
  pub matches: Vec<ScanMatch>,
  pub files_scanned: usize,
  pub bytes_scanned: u64,
  pub files_too_large: usize,
  pub stopped: Option<ScanStop>,
}

/// A pattern that does not compile: the pattern and the regex engine's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid scan pattern {pattern:?}: {text}")]
pub struct ScanPatternError {
  pub pattern: String,
  pub text: String,
}

/// Whether a directory `name` is one `skip` lists (`*` matches any run of characters).
fn glob_matches(glob: &str, name: &str) -> bool {
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

fn lowercase_extension(path: &Path) -> Option<String> {
  path
    .extension()
    .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// The walk: sorted by name, symlinks not followed, `.gitignore` at every depth and
/// `.git/info/exclude` read (with or without a repository), `skip_dirs` never entered.
fn walker(root: &Path, skip_dirs: &[String]) -> ignore::Walk {
  let skip_dirs = skip_dirs.to_vec();
  WalkBuilder::new(root)
    .standard_filters(false)
    .git_ignore(true)
    .git_exclude(true)
    .require_git(false)
    .follow_links(false)
    .sort_by_file_name(std::cmp::Ord::cmp)
    .filter_entry(move |entry: &DirEntry| {
      let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
      let name = entry.file_name().to_string_lossy();
      !(is_dir && entry.depth() > 0 && skip_dirs.iter().any(|g| glob_matches(g, &name)))
    })
    .build()
}

/// The files of a walk that have an extension, in walk order, each with its extension
/// lowercased, until `deadline` has passed since `started` (checked before each entry, a
/// directory's too): the iteration then ends and `stopped` says `Deadline`.
pub(crate) struct SourceFiles {
  walk: ignore::Walk,
  started: Instant,
  deadline: Duration,
  /// `Some(Deadline)` once the deadline ended the walk.
  pub(crate) stopped: Option<ScanStop>,
}

impl Iterator for SourceFiles {
  type Item = (DirEntry, String);

  fn next(&mut self) -> Option<Self::Item> {
    loop {
      if self.stopped.is_some() {
        return None;
      }
      if self.started.elapsed() >= self.deadline {
        self.stopped = Some(ScanStop::Deadline);
        return None;
      }
      let Ok(entry) = self.walk.next()? else {
        continue;
      };
      if !entry.file_type().is_some_and(|t| t.is_file()) {
        continue;
      }
      let Some(extension) = lowercase_extension(entry.path()) else {
        continue;
      };
      return Some((entry, extension));
    }
  }
}

/// `root`'s source files (SourceFiles), `skip_dirs` never entered.
pub(crate) fn source_files(
  root: &Path,
  skip_dirs: &[String],
  started: Instant,
  deadline: Duration,
) -> SourceFiles {
  SourceFiles {
    walk: walker(root, skip_dirs),
    started,
    deadline,
    stopped: None,
  }
}

/// The 1-based numbers of `bytes`' lines that `matcher` matches; none for a binary file (a NUL
/// byte anywhere) or one the searcher cannot read.
fn matching_lines(matcher: &RegexMatcher, bytes: &[u8]) -> Vec<u64> {
  if bytes.contains(&0) {
    return Vec::new();
  }
  let mut lines = Vec::new();
  let mut searcher = SearcherBuilder::new()
    .line_number(true)
    .binary_detection(BinaryDetection::quit(0))
    .build();
  let sink = Bytes(|line, _| {
    lines.push(line);
    Ok(true)
  });
  match searcher.search_slice(matcher, bytes, sink) {
    Ok(()) => lines,
    Err(_) => Vec::new(),
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

/// Searches `root` as `scan` says. Only a pattern that does not compile is an error; a file
/// that cannot be read is skipped, as CodeGraph skips it.
pub fn scan(root: &Path, scan: &SourceScan) -> Result<ScanOutcome, ScanPatternError> {
  let started = Instant::now();
  let matchers = scan
    .rules
    .iter()
    .map(|rule| {
      RegexMatcher::new_line_matcher(&rule.pattern).map_err(|e| ScanPatternError {
        pattern: rule.pattern.clone(),
        text: e.to_string(),
      })
    })
    .collect::<Result<Vec<_>, _>>()?;
  let mut outcome = ScanOutcome::default();
  let mut files = source_files(root, &scan.skip_dirs, started, scan.deadline);
  for (entry, extension) in &mut files {
    let Some(rule) = scan.rules.iter().position(|r| {
      r.extensions
        .iter()
        .any(|e| e.eq_ignore_ascii_case(&extension))
    }) else {
      continue;
    };
    let Ok(meta) = entry.metadata() else { continue };
    if meta.len() > scan.max_file_bytes {
      outcome.files_too_large += 1;
      continue;
    }
    if outcome.files_scanned >= scan.max_files {
      outcome.stopped = Some(ScanStop::Files);
      break;
    }
    if outcome.bytes_scanned + meta.len() > scan.max_total_bytes {
      outcome.stopped = Some(ScanStop::Bytes);
      break;
    }
    let Ok(bytes) = std::fs::read(entry.path()) else {
      continue;
    };
    outcome.files_scanned += 1;
    outcome.bytes_scanned += bytes.len() as u64;
    let lines = matching_lines(&matchers[rule], &bytes);
    if lines.is_empty() {
      continue;
    }
    let shown = shown_path(root, entry.path());
    for line in lines {
      if outcome.matches.len() >= scan.max_matches {
        outcome.stopped = Some(ScanStop::Matches);
        return Ok(outcome);
      }
      outcome.matches.push(ScanMatch {
        path: shown.clone(),
        line,
        file_bytes: bytes.len() as u64,
      });
    }
  }
  outcome.stopped = outcome.stopped.or(files.stopped);
  Ok(outcome)
}

#[cfg(test)]
mod tests {
  use super::glob_matches;

  #[test]
  fn globs_match_whole_names() {
    assert!(glob_matches("target", "target"));
    assert!(!glob_matches("target", "targets"));
    assert!(glob_matches("*.egg-info", "pkg.egg-info"));
    assert!(!glob_matches("*.egg-info", "pkg.egg-info2"));
    assert!(glob_matches("cmake-build-*", "cmake-build-debug"));
    assert!(glob_matches("bazel-*", "bazel-"));
    assert!(!glob_matches("bazel-*", "bazel"));
    assert!(glob_matches("a*b*c", "a-b-c"));
    assert!(!glob_matches("a*b*c", "a-c-b"));
  }
}
