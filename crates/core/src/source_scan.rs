//! A bounded search of a workspace's source for lines that match a pattern: the runner's half of
//! "where is the index blind" and "what does the graph leave out" (the JS api layer,
//! `lib/api/blind-spots.js` and `lib/api/call-sites.js`, asks for the lines that mention a name
//! and words what is found). The walk is `source_walk`'s (what CodeGraph's indexer ignores, as
//! far as a walk can); the search is ripgrep's (`grep-searcher` over `grep-regex`). Bounded by a
//! deadline, a number of files and of bytes, and of matches: what stopped it is part of the
//! outcome, with how far it got. Sequential and sorted by name, so that the same tree gives the
//! same answer (on both runners: the Node runner runs this scan as WebAssembly).
//!
//! With a [`ScanContext`], each match also carries what the api layer needs to word it, read from
//! its file in the same pass (`source_context`, over the lexer's outline): the line's text
//! (bounded), the tags whose patterns its code matches, whether the match is code at all (not a
//! comment, docstring or string), the definition or `macro_rules!` template it sits in, the Rust
//! macro block that holds it, the file's line count and when it was last written. Every file is opened as a regular
//! file, never through a link, and read up to `max_file_bytes`.

use std::path::Path;
use std::time::{Duration, Instant};

use grep_regex::RegexMatcher;
use grep_searcher::sinks::Bytes;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use regex::Regex;

use crate::files::{extension_listed, open_workspace_file, read_prefix, written_ms};
use crate::source_context::{prefix, FileFacts, Lines, Place};
use crate::source_lex::language_of_extension;
pub use crate::source_pattern::ScanPatternError;
use crate::source_pattern::{compiled, line_matcher};
use crate::source_walk::{SkippedDirs, SourceFiles, WalkStop};

/// Which files one pattern applies to (by extension, compared lowercase, without the dot).
#[derive(Debug, Clone)]
pub struct ScanRule {
  pub extensions: Vec<String>,
  pub pattern: String,
}

/// A name for the lines its rules match (`calls`, `defines`).
#[derive(Debug, Clone)]
pub struct ScanTag {
  pub tag: String,
  pub rules: Vec<ScanRule>,
}

/// What each match carries besides its place (see the module comment).
#[derive(Debug, Clone, Default)]
pub struct ScanContext {
  /// A match's `text` is the first this many characters of its line.
  pub line_chars: usize,
  pub tags: Vec<ScanTag>,
  /// A line that opens this name's own definition is not "in" it (the symbol asked about).
  pub own_name: Option<String>,
}

/// One scan: the rules, the directories never entered, the bounds.
#[derive(Debug, Clone)]
pub struct SourceScan {
  pub rules: Vec<ScanRule>,
  pub skip: SkippedDirs,
  pub max_files: usize,
  /// Larger files are not read (counted in `files_too_large`).
  pub max_file_bytes: u64,
  pub max_total_bytes: u64,
  pub max_matches: usize,
  pub deadline: Duration,
  pub context: Option<ScanContext>,
}

/// What a match's line and file say (with a [`ScanContext`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchContext {
  pub text: String,
  /// Read on the line's code only, where the lexer knows the language.
  pub tags: Vec<String>,
  /// Whether the pattern matches the line's code, not only its comments and strings (None: the
  /// lexer cannot tell). With a match in code: the innermost definition whose lines hold it, the
  /// `macro_rules!` whose template does, in Rust the macro invocation whose block does.
  pub code: Option<bool>,
  pub within: Option<String>,
  pub macro_rules: Option<String>,
  pub in_macro: Option<String>,
  pub file_lines: u64,
  /// Milliseconds since the Unix epoch: the file's modification time, or on Unix its change
  /// time when that is earlier (a modification time set in the future, by `touch -d`, an archive
  /// or a skewed clock, is not a write after the index; the change time cannot be set).
  pub written_ms: u64,
}

/// A matching line: the file relative to the root (`/`-separated), its 1-based line, its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanMatch {
  pub path: String,
  pub line: u64,
  pub file_bytes: u64,
  pub context: Option<MatchContext>,
}

/// Which bound ended the scan early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanStop {
  Deadline,
  Cancelled,
  Files,
  Bytes,
  Matches,
}

impl ScanStop {
  /// The tag JS reads (`stopped`).
  pub fn tag(self) -> &'static str {
    match self {
      ScanStop::Deadline => "deadline",
      ScanStop::Cancelled => "cancelled",
      ScanStop::Files => "files",
      ScanStop::Bytes => "bytes",
      ScanStop::Matches => "matches",
    }
  }
}

impl From<WalkStop> for ScanStop {
  fn from(stop: WalkStop) -> Self {
    match stop {
      WalkStop::Deadline => ScanStop::Deadline,
      WalkStop::Cancelled => ScanStop::Cancelled,
    }
  }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanOutcome {
  pub matches: Vec<ScanMatch>,
  pub files_scanned: usize,
  pub bytes_scanned: u64,
  pub files_too_large: usize,
  /// Ignore files read only in part (over the walk's bound).
  pub ignore_files_cut: usize,
  pub stopped: Option<ScanStop>,
}

fn applies(rule: &ScanRule, extension: &str) -> bool {
  extension_listed(&rule.extensions, extension)
}

/// A context's patterns, compiled once (and the scan's own, to tell code from text).
struct Compiled<'a> {
  context: &'a ScanContext,
  tags: Vec<(&'a str, Vec<(&'a ScanRule, Regex)>)>,
  rules: Vec<Regex>,
}

impl<'a> Compiled<'a> {
  fn new(context: &'a ScanContext, scan_rules: &[ScanRule]) -> Result<Self, ScanPatternError> {
    let rules = |rules: &'a [ScanRule]| {
      rules
        .iter()
        .map(|r| Ok((r, compiled(&r.pattern)?)))
        .collect::<Result<Vec<_>, ScanPatternError>>()
    };
    Ok(Compiled {
      context,
      tags: context
        .tags
        .iter()
        .map(|t| Ok((t.tag.as_str(), rules(&t.rules)?)))
        .collect::<Result<_, ScanPatternError>>()?,
      rules: scan_rules
        .iter()
        .map(|r| compiled(&r.pattern))
        .collect::<Result<_, _>>()?,
    })
  }

  /// The context of each of `lines` (1-based) of one file, which scan rule `rule` matched: where
  /// the lexer reads the file, on each line's code (comments and strings blanked).
  fn of_file(
    &self,
    rule: usize,
    extension: &str,
    bytes: &[u8],
    lines: &[u64],
    written_ms: u64,
  ) -> Vec<MatchContext> {
    let text = Lines::new(bytes);
    let facts = language_of_extension(extension)
      .and_then(|(_, lang)| FileFacts::new(&String::from_utf8_lossy(bytes), lang));
    let own = self.context.own_name.as_deref();
    lines
      .iter()
      .map(|&line| {
        let index = usize::try_from(line - 1).unwrap_or(usize::MAX);
        let whole = text.text(index);
        let read = facts.as_ref().map_or(whole.as_ref(), |f| f.code_line(line));
        let tags = self
          .tags
          .iter()
          .filter(|(_, rules)| {
            rules
              .iter()
              .any(|(r, re)| applies(r, extension) && re.is_match(read))
          })
          .map(|(tag, _)| (*tag).to_owned())
          .collect();
        let code = facts.as_ref().map(|_| self.rules[rule].is_match(read));
        let place = match &facts {
          Some(f) if code == Some(true) => f.place(line, own),
          _ => Place::default(),
        };
        MatchContext {
          text: prefix(&whole, self.context.line_chars).to_owned(),
          tags,
          code,
          within: place.within,
          macro_rules: place.macro_rules,
          in_macro: place.in_macro,
          file_lines: text.count(),
          written_ms,
        }
      })
      .collect()
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

/// Searches `root` as `scan` says. Only a pattern that does not compile is an error; a file
/// that cannot be read is skipped, as CodeGraph skips it.
pub fn scan(root: &Path, scan: &SourceScan) -> Result<ScanOutcome, ScanPatternError> {
  scan_cancellable(root, scan, &|| false)
}

/// [`scan`], ended early (`stopped: cancelled`) once `cancelled` says so.
pub fn scan_cancellable(
  root: &Path,
  scan: &SourceScan,
  cancelled: &dyn Fn() -> bool,
) -> Result<ScanOutcome, ScanPatternError> {
  let started = Instant::now();
  let matchers = scan
    .rules
    .iter()
    .map(|rule| line_matcher(&rule.pattern))
    .collect::<Result<Vec<_>, _>>()?;
  let context = scan
    .context
    .as_ref()
    .map(|c| Compiled::new(c, &scan.rules))
    .transpose()?;
  let mut outcome = ScanOutcome::default();
  let mut files =
    SourceFiles::cancellable(root, scan.skip.clone(), started, scan.deadline, cancelled);
  while let Some(file) = files.next() {
    let Some(rule) = scan.rules.iter().position(|r| applies(r, &file.extension)) else {
      continue;
    };
    if file.metadata.len() > scan.max_file_bytes {
      outcome.files_too_large += 1;
      continue;
    }
    if outcome.files_scanned >= scan.max_files {
      outcome.stopped = Some(ScanStop::Files);
      break;
    }
    if outcome.bytes_scanned + file.metadata.len() > scan.max_total_bytes {
      outcome.stopped = Some(ScanStop::Bytes);
      break;
    }
    // The file as opened (a regular file, no link), up to the bound whatever it grew to.
    let Ok(opened) = open_workspace_file(&file.path) else {
      continue;
    };
    let Ok(metadata) = opened.metadata() else {
      continue;
    };
    let Ok((bytes, _)) = read_prefix(opened, scan.max_file_bytes) else {
      continue;
    };
    outcome.files_scanned += 1;
    outcome.bytes_scanned += bytes.len() as u64;
    let mut lines = matching_lines(&matchers[rule], &bytes);
    if lines.is_empty() {
      continue;
    }
    let left = scan.max_matches - outcome.matches.len();
    let full = lines.len() > left;
    lines.truncate(left);
    let shown = files.shown(&file.path);
    let contexts = context
      .as_ref()
      .map(|c| c.of_file(rule, &file.extension, &bytes, &lines, written_ms(&metadata)));
    let mut contexts = contexts.map(Vec::into_iter);
    for line in lines {
      outcome.matches.push(ScanMatch {
        path: shown.clone(),
        line,
        file_bytes: bytes.len() as u64,
        context: contexts.as_mut().and_then(Iterator::next),
      });
    }
    if full {
      outcome.stopped = Some(ScanStop::Matches);
      break;
    }
  }
  outcome.ignore_files_cut = files.ignore_files_cut;
  outcome.stopped = outcome.stopped.or(files.stopped.map(ScanStop::from));
  Ok(outcome)
}
