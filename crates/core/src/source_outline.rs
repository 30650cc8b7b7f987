//! The outline of source files: each file asked for (workspace-relative) opened with the
//! workspace's rules (no link on the way, a regular file, bounded), its true line count, its
//! language by extension, and its definitions from the lexer (`source_lex`), never from patterns
//! over raw lines. A file not read says why (`problem`); a bound that ended the request early
//! says which (`cut`), the files outlined so far kept. Bounded by a number of paths, a file's
//! size, the bytes read in all and a deadline.
//!
//! Both runners run this one (the Node runner as WebAssembly); its bounds are
//! `lib/contract/source-outline.js`.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::files::{open_workspace_file, read_prefix};
use crate::source_lex::definitions::{definitions, Definition};
use crate::source_lex::{language_of_extension, lex, masked, Lang};

/// At most this many paths are outlined; past them the outline is cut (`paths`).
pub const MAX_OUTLINE_PATHS: usize = 500;
/// A larger file is not read (`tooLarge`).
pub const MAX_OUTLINE_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// Past this many bytes read in all, the rest is not (`bytes`).
pub const MAX_OUTLINE_TOTAL_BYTES: u64 = 64 * 1024 * 1024;
/// Without a deadline of its own, a request stops after this long (`deadline`).
pub const OUTLINE_DEADLINE_MS: u64 = 2000;
const MAX_DEADLINE_MS: u64 = 60_000;

/// One request: workspace-relative paths (`/`-separated) and a deadline in milliseconds.
#[derive(Debug, Clone, Default)]
pub struct OutlineRequest {
  pub paths: Vec<String>,
  pub deadline_ms: Option<f64>,
}

/// One file's outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOutline {
  /// As asked.
  pub path: String,
  /// A last line without its newline counts, an empty end does not; 0 for a file not read.
  pub lines: u64,
  /// `rust`, `python`, `typescript`, `javascript`, or None (not outlined).
  pub language: Option<&'static str>,
  pub definitions: Vec<Definition>,
  /// Why the file was not read (or outlined): `outside`, `missing`, `link`, `notRegular`,
  /// `tooLarge`, `unreadable`, `binary`.
  pub problem: Option<&'static str>,
  /// A bracket, comment or string did not close: the definitions past it may be wrong.
  pub unbalanced: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
  pub files: Vec<FileOutline>,
  /// `paths`, `cancelled`, `deadline` or `bytes` when a bound ended it early.
  pub cut: Option<&'static str>,
}

/// The language of workspace-relative `path` by its extension, and its lexer.
pub fn language_of(path: &str) -> Option<(&'static str, Lang)> {
  let name = path.rsplit('/').next().unwrap_or(path);
  let dot = name.rfind('.').filter(|&d| d > 0)?;
  language_of_extension(&name[dot + 1..])
}

/// How many lines `text` has: a last line without its newline counts, an empty end does not.
pub fn line_count(text: &str) -> u64 {
  #[allow(clippy::naive_bytecount)] // once per file
  let newlines = text.bytes().filter(|b| *b == b'\n').count() as u64;
  if text.is_empty() || text.ends_with('\n') {
    newlines
  } else {
    newlines + 1
  }
}

/// The definitions of `text` read by `lang`, and whether something did not close.
pub fn outline_text(text: &str, lang: Lang) -> (Vec<Definition>, bool) {
  let lexed = lex(text, lang);
  let code = masked(text, &lexed.blanks);
  (definitions(lang, &lexed, text, &code), lexed.unbalanced)
}

/// Workspace-relative `rel` under `root`: its bytes, or why they cannot be read.
fn read_workspace_file(root: &Path, rel: &str) -> Result<Vec<u8>, &'static str> {
  let drive =
    rel.len() >= 2 && rel.as_bytes()[0].is_ascii_alphabetic() && rel.as_bytes()[1] == b':';
  if rel.is_empty() || rel.contains('\0') || rel.starts_with('/') || drive {
    return Err("outside");
  }
  let parts: Vec<&str> = rel
    .split('/')
    .filter(|p| !p.is_empty() && *p != ".")
    .collect();
  if parts.is_empty() || parts.contains(&"..") || (cfg!(windows) && rel.contains('\\')) {
    return Err("outside");
  }
  let mut here = root.to_path_buf();
  for (k, part) in parts.iter().enumerate() {
    here.push(part);
    let Ok(meta) = std::fs::symlink_metadata(&here) else {
      return Err("missing");
    };
    let last = k == parts.len() - 1;
    if meta.file_type().is_symlink() {
      return Err("link");
    }
    if !last && !meta.is_dir() {
      return Err("missing");
    }
    if last && !meta.is_file() {
      return Err("notRegular");
    }
    if last && meta.len() > MAX_OUTLINE_FILE_BYTES {
      return Err("tooLarge");
    }
  }
  let read = open_workspace_file(&here).and_then(|file| read_prefix(file, MAX_OUTLINE_FILE_BYTES));
  match read {
    Ok((_, true)) => Err("tooLarge"),
    Ok((bytes, false)) => Ok(bytes),
    #[cfg(unix)]
    Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Err("link"),
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err("missing"),
    Err(_) => Err("unreadable"),
  }
}

/// A request's deadline: its own when a positive number (at most a minute), else the default.
#[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)] // a positive finite number, floored
fn deadline_of(request: &OutlineRequest) -> Duration {
  let own = request.deadline_ms.filter(|d| d.is_finite() && *d > 0.0);
  Duration::from_millis(own.map_or(OUTLINE_DEADLINE_MS, |d| {
    (d.floor() as u64).min(MAX_DEADLINE_MS)
  }))
}

/// The outlines of `request.paths` under `root`; ended early (`cut: cancelled`) once `cancelled` says so.
pub fn outline_source(
  root: &Path,
  request: &OutlineRequest,
  cancelled: &dyn Fn() -> bool,
) -> Outline {
  let started = Instant::now();
  let deadline = deadline_of(request);
  let mut out = Outline::default();
  let mut total = 0u64;
  for (k, rel) in request.paths.iter().enumerate() {
    let reason = if k >= MAX_OUTLINE_PATHS {
      Some("paths")
    } else if cancelled() {
      Some("cancelled")
    } else if started.elapsed() >= deadline {
      Some("deadline")
    } else {
      None
    };
    if reason.is_some() {
      out.cut = reason;
      break;
    }
    let language = language_of(rel);
    let read = read_workspace_file(root, rel);
    if read
      .as_ref()
      .is_ok_and(|b| total + b.len() as u64 > MAX_OUTLINE_TOTAL_BYTES)
    {
      out.cut = Some("bytes");
      break;
    }
    let mut file = FileOutline {
      path: rel.clone(),
      lines: 0,
      language: language.map(|l| l.0),
      definitions: Vec::new(),
      problem: None,
      unbalanced: false,
    };
    match read {
      Err(problem) => file.problem = Some(problem),
      Ok(bytes) => {
        total += bytes.len() as u64;
        let text = String::from_utf8_lossy(&bytes);
        file.lines = line_count(&text);
        if bytes.contains(&0) {
          file.problem = Some("binary");
        } else if let Some((_, lang)) = language {
          (file.definitions, file.unbalanced) = outline_text(&text, lang);
        }
      }
    }
    out.files.push(file);
  }
  out
}

#[cfg(test)]
mod corpus;
