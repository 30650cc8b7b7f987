//! `scanSource()` and `changedSource()`: the JS shapes of the core's bounded source search
//! (`pi_codegraph_core::source_scan`) and walk for changed files (`source_changes`), and their
//! conversion. Both run on tokio's blocking pool, never on the host's thread; a promise settles
//! with what was found, or a search rejects with CODEGRAPH_INVALID_REQUEST (a pattern that does
//! not compile: `lib/contract/` builds them, never the model). A search takes the caller's
//! `AbortSignal`: aborted, it ends at its next file (`stopped: "cancelled"`).

use std::time::{Duration, UNIX_EPOCH};

use napi_derive::napi;
use pi_codegraph_core::source_changes::{ChangeOutcome, ChangeScan};
use pi_codegraph_core::source_pattern::ScanPatternError;
use pi_codegraph_core::source_scan::{
  MatchContext, ScanContext, ScanOutcome, ScanRule, ScanTag, SourceScan,
};
use pi_codegraph_core::source_walk::SkippedDirs;
#[cfg(not(target_family = "wasm"))]
pub use promised::{changed_source, scan_source};

/// Which files one pattern applies to.
#[napi(object, object_to_js = false)]
pub struct SourceScanRule {
  /// Extensions without the dot, compared lowercase (`rs`, `ts`).
  pub extensions: Vec<String>,
  /// A regular expression matched against each line (Rust's `regex` syntax, which the patterns
  /// of `lib/contract/definitions.js` keep to the part JavaScript reads alike).
  pub pattern: String,
}

/// Lines its rules match carry its name in their `tags`.
#[napi(object, object_to_js = false)]
pub struct SourceScanTag {
  pub tag: String,
  pub rules: Vec<SourceScanRule>,
}

/// What each match carries besides its place (`lib/contract/call-sites.js` builds it).
#[napi(object, object_to_js = false)]
pub struct SourceScanContext {
  /// A match's `text` is the first this many characters of its line.
  pub line_chars: u32,
  pub tags: Vec<SourceScanTag>,
  /// A line opening this name's own definition is not "in" it.
  pub own_name: Option<String>,
}

/// One scan, as `lib/contract/definitions.js` describes it.
#[napi(object, object_to_js = false)]
pub struct SourceScanRequest {
  pub rules: Vec<SourceScanRule>,
  /// Directory names never entered, with `*` for any run of characters (`node_modules`, `*.egg-info`).
  pub skip_dirs: Vec<String>,
  /// Directory names never entered, exactly as written (`.git`, the index directory's name).
  pub skip_exact: Option<Vec<String>>,
  pub max_files: u32,
  pub max_file_bytes: f64,
  pub max_total_bytes: f64,
  pub max_matches: u32,
  pub deadline_ms: u32,
  pub context: Option<SourceScanContext>,
}

/// A matching line.
#[napi(object, object_from_js = false)]
pub struct SourceScanMatch {
  /// Relative to the scanned directory, `/`-separated.
  pub path: String,
  /// 1-based.
  pub line: f64,
  /// The file's size in bytes.
  pub file_bytes: f64,
  /// With a context: the line's first `lineChars` characters.
  pub text: Option<String>,
  /// With a context: the tags whose rules match the line (its code, where the language is known).
  pub tags: Option<Vec<String>>,
  /// With a context, in a language the lexer knows: whether the match is in code (false: only in
  /// a comment, docstring or string). Absent where it cannot tell.
  pub code: Option<bool>,
  /// With a context: the innermost definition whose lines hold a match in code.
  pub within: Option<String>,
  /// With a context: the `macro_rules!` whose template holds a match in code.
  pub macro_rules: Option<String>,
  /// With a context, in a Rust file: the macro whose block holds the line.
  #[napi(js_name = "macro")]
  pub in_macro: Option<String>,
  /// With a context: how many lines the file has.
  pub file_lines: Option<f64>,
  /// With a context: when the file was last written (ms since the epoch; see the core).
  pub written_ms: Option<f64>,
}

/// What the scan found and how far it went.
#[napi(object, object_from_js = false)]
pub struct SourceScanResult {
  pub matches: Vec<SourceScanMatch>,
  pub files_scanned: u32,
  pub bytes_scanned: f64,
  /// Files of a rule's extensions over `maxFileBytes`, not read.
  pub files_too_large: u32,
  /// Ignore files over the walk's bound, read only in part.
  pub ignore_files_cut: u32,
  /// The bound that ended the scan early: "deadline", "cancelled", "files", "bytes" or
  /// "matches"; null when it walked the whole tree.
  pub stopped: Option<String>,
}

/// A count from JS (bytes, milliseconds): a positive finite number, truncated (saturating at u64's range); 0 else.
#[allow(clippy::cast_sign_loss)] // only a positive value is cast
fn whole(n: f64) -> u64 {
  if n.is_finite() && n > 0.0 {
    n as u64
  } else {
    0
  }
}

fn rules(rules: Vec<SourceScanRule>) -> Vec<ScanRule> {
  rules
    .into_iter()
    .map(|r| ScanRule {
      extensions: r.extensions,
      pattern: r.pattern,
    })
    .collect()
}

fn skipped(globs: Vec<String>, exact: Option<Vec<String>>) -> SkippedDirs {
  SkippedDirs {
    exact: exact.unwrap_or_default(),
    globs,
  }
}

pub(crate) fn request(scan: SourceScanRequest) -> SourceScan {
  SourceScan {
    rules: rules(scan.rules),
    skip: skipped(scan.skip_dirs, scan.skip_exact),
    max_files: scan.max_files as usize,
    max_file_bytes: whole(scan.max_file_bytes),
    max_total_bytes: whole(scan.max_total_bytes),
    max_matches: scan.max_matches as usize,
    deadline: Duration::from_millis(u64::from(scan.deadline_ms)),
    context: scan.context.map(|c| ScanContext {
      line_chars: c.line_chars as usize,
      tags: c
        .tags
        .into_iter()
        .map(|t| ScanTag {
          tag: t.tag,
          rules: rules(t.rules),
        })
        .collect(),
      own_name: c.own_name,
    }),
  }
}

fn matched(
  path: String,
  line: u64,
  file_bytes: u64,
  context: Option<MatchContext>,
) -> SourceScanMatch {
  let Some(c) = context else {
    return SourceScanMatch {
      path,
      line: line as f64,
      file_bytes: file_bytes as f64,
      text: None,
      tags: None,
      code: None,
      within: None,
      macro_rules: None,
      in_macro: None,
      file_lines: None,
      written_ms: None,
    };
  };
  SourceScanMatch {
    path,
    line: line as f64,
    file_bytes: file_bytes as f64,
    text: Some(c.text),
    tags: Some(c.tags),
    code: c.code,
    within: c.within,
    macro_rules: c.macro_rules,
    in_macro: c.in_macro,
    file_lines: Some(c.file_lines as f64),
    written_ms: Some(c.written_ms as f64),
  }
}

pub(crate) fn result(found: ScanOutcome) -> SourceScanResult {
  SourceScanResult {
    matches: found
      .matches
      .into_iter()
      .map(|m| matched(m.path, m.line, m.file_bytes, m.context))
      .collect(),
    files_scanned: u32::try_from(found.files_scanned).unwrap_or(u32::MAX),
    bytes_scanned: found.bytes_scanned as f64,
    files_too_large: u32::try_from(found.files_too_large).unwrap_or(u32::MAX),
    ignore_files_cut: u32::try_from(found.ignore_files_cut).unwrap_or(u32::MAX),
    stopped: found.stopped.map(|s| s.tag().to_owned()),
  }
}

/// Which files of `extensions` were written after `sinceMs`, as `lib/contract/definitions.js`'s
/// `sourceChangesRequest` describes the walk.
#[napi(object, object_to_js = false)]
pub struct SourceChangesRequest {
  pub extensions: Vec<String>,
  pub skip_dirs: Vec<String>,
  pub skip_exact: Option<Vec<String>>,
  /// Milliseconds since the Unix epoch (the index's last write, as `fs.stat` gives it).
  pub since_ms: f64,
  pub max_files: u32,
  pub max_paths: u32,
  pub deadline_ms: u32,
  /// When given, no walk: only these workspace-relative paths (the candidates git names) are looked at.
  pub paths: Option<Vec<String>>,
}

/// What the walk found.
#[napi(object, object_from_js = false)]
pub struct SourceChangesResult {
  /// The first `maxPaths` changed files, relative to the walked directory, `/`-separated.
  pub paths: Vec<String>,
  /// How many changed in all.
  pub changed: u32,
  pub files_seen: u32,
  /// Ignore files over the walk's bound, read only in part.
  pub ignore_files_cut: u32,
  /// "deadline" or "files" when a bound ended the walk early (then `changed` is a lower bound);
  /// null when it walked the whole tree.
  pub stopped: Option<String>,
}

pub(crate) fn changes_request(walk: SourceChangesRequest) -> ChangeScan {
  // Rounded up to a whole millisecond (the Node runner alike): an mtime read as a float is not
  // exact, and a file written in the index's own millisecond is not told as newer.
  let since = UNIX_EPOCH + Duration::from_millis(whole(walk.since_ms.ceil()));
  ChangeScan {
    extensions: walk.extensions,
    skip: skipped(walk.skip_dirs, walk.skip_exact),
    since,
    max_files: walk.max_files as usize,
    max_paths: walk.max_paths as usize,
    deadline: Duration::from_millis(u64::from(walk.deadline_ms)),
    only: walk.paths,
  }
}

/// A scan whose pattern does not compile, as both builds reject it: napi's InvalidArg, the
/// contract's code first in the message (lib/runners/core-results.js reads it from there).
pub(crate) fn pattern_refused(bad: &ScanPatternError) -> napi::Error {
  napi::Error::new(
    napi::Status::InvalidArg,
    format!("CODEGRAPH_INVALID_REQUEST: {bad}"),
  )
}

pub(crate) fn changes_result(found: ChangeOutcome) -> SourceChangesResult {
  SourceChangesResult {
    paths: found.paths,
    changed: u32::try_from(found.changed).unwrap_or(u32::MAX),
    files_seen: u32::try_from(found.files_seen).unwrap_or(u32::MAX),
    ignore_files_cut: u32::try_from(found.ignore_files_cut).unwrap_or(u32::MAX),
    stopped: found.stopped.map(|s| s.tag().to_owned()),
  }
}

/// The native addon's calls: promises, on tokio's blocking pool.
#[cfg(not(target_family = "wasm"))]
mod promised {
  use std::path::PathBuf;

  use napi::bindgen_prelude::{Object, Unknown};
  use napi::{Env, Status};
  use napi_derive::napi;
  use pi_codegraph_core::command_run::Failure;
  use pi_codegraph_core::{source_changes, source_scan};

  use super::{
    changes_request, changes_result, pattern_refused, request, result, SourceChangesRequest,
    SourceScanRequest,
  };
  use crate::threaded::threaded;
  use crate::{convert, runtime};

  /// Searches `cwd`'s source as `scan` says (a bounded, sorted walk that skips what CodeGraph's
  /// indexer skips). Rejects only for a pattern that does not compile; an aborted `signal` ends it
  /// early with what it found (`stopped: "cancelled"`).
  #[napi(
    ts_args_type = "cwd: string, scan: SourceScanRequest, signal?: AbortSignal | null",
    ts_return_type = "Promise<SourceScanResult>"
  )]
  #[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
  pub fn scan_source<'env>(
    env: &'env Env,
    cwd: String,
    scan: SourceScanRequest,
    signal: Option<Unknown<'env>>,
  ) -> napi::Result<Object<'env>> {
    let scan = request(scan);
    threaded(
      env,
      signal,
      "the source scan",
      move |stopped| source_scan::scan_cancellable(&PathBuf::from(cwd), &scan, stopped),
      |found| match found {
        Ok(found) => Ok(result(found)),
        Err(bad) => Err(pattern_refused(&bad)),
      },
    )
  }

  /// Walks `cwd` for source files written after `walk.sinceMs` (metadata only, the scan's walk).
  #[napi(ts_return_type = "Promise<SourceChangesResult>")]
  #[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
  pub fn changed_source(
    env: &Env,
    cwd: String,
    walk: SourceChangesRequest,
  ) -> napi::Result<Object<'_>> {
    let walk = changes_request(walk);
    let work = async move {
      tokio::task::spawn_blocking(move || source_changes::changed_since(&PathBuf::from(cwd), &walk))
        .await
    };
    runtime::promise(env, work, |env, outcome| match outcome {
      Ok(Ok(found)) => Ok(changes_result(found)),
      Ok(Err(joined)) => Err(napi::Error::new(
        Status::GenericFailure,
        format!("the source walk did not finish: {joined}"),
      )),
      Err(e) => Err(convert::js_error(&env, &e, &Failure::default())),
    })
  }
}
