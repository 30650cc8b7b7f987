//! Output bounds: what the model may see of stdout, and what is kept of stderr.
//!
//! Memory is bounded by construction: stdout keeps at most a command's byte cap (`MAX_BYTES` for
//! what the model sees, the drain limit at most, + a few bytes to finish a UTF-8 character) and stops storing at its line cap;
//! everything after is only counted (`stdout_collector`). stderr is a ring of its last
//! `STDERR_TAIL_BYTES`.

use crate::full_output::FullOutput;

/// 50 KB, as Pi counts it (`DEFAULT_MAX_BYTES`).
pub const MAX_BYTES: usize = 50 * 1024;
/// Pi's `DEFAULT_MAX_LINES`.
pub const MAX_LINES: usize = 2000;
/// Only the end of stderr is useful for a diagnosis.
pub const STDERR_TAIL_BYTES: usize = 4 * 1024;
/// The end of stdout as cleaned, whatever the caps kept: every progress report's `tail` and a
/// truncated answer's `output_tail` (a long write's latest line, its final summary).
pub const OUTPUT_TAIL_BYTES: usize = 1024;
/// After the cap, stdout is still drained and counted (so the model learns how much more existed)
/// up to this many bytes; a CLI printing more is stopped rather than read forever.
pub const DRAIN_LIMIT_BYTES: u64 = 16 * 1024 * 1024;
/// The Explore request's own bound, the same as the CLI's (`query exceeds maximum length of 10000`).
pub const MAX_REQUEST_CHARS: usize = 10_000;

/// The least byte cap a command may choose: room for the truncation marker (which names the
/// full-output file; lib/words/ words it) and some text.
pub const MIN_CAP_BYTES: usize = 4 * 1024;
/// The least line cap a command may choose: the marker's lines and some text.
pub const MIN_CAP_LINES: usize = 10;

/// What the model may see of one command's stdout, the marker included: bytes and lines,
/// whichever is hit first. Explore's are the maxima.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
  pub bytes: usize,
  pub lines: usize,
}

impl Caps {
  pub const MAX: Self = Self {
    bytes: MAX_BYTES,
    lines: MAX_LINES,
  };
  /// The largest caps a command may choose: what the drain reads at most. For a command whose
  /// answer is not for the model (doctor's listing of the indexed files), so that it asks for
  /// all it needs instead of reading the full-output file back.
  pub const LARGEST: Self = Self {
    bytes: DRAIN_LIMIT_BYTES as usize,
    lines: DRAIN_LIMIT_BYTES as usize,
  };
}

impl Default for Caps {
  fn default() -> Self {
    Self::MAX
  }
}

/// Which cap cut a truncated answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
  Bytes,
  Lines,
}

impl Cap {
  /// `"bytes"` or `"lines"`, as the marker and JS name it.
  pub fn as_str(self) -> &'static str {
    match self {
      Self::Bytes => "bytes",
      Self::Lines => "lines",
    }
  }
}

/// The bounded text and the counts that describe it. When truncated, `text` is what was stored
/// (within the caps, + a few bytes to finish a character) and the counts are its own: the glue
/// (lib/api/answer.js) fits it and lib/words/' marker to the caps, and counts what it kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded {
  /// The kept output, without the truncation marker.
  pub text: String,
  pub truncated: bool,
  /// Which cap cut the text, when truncated.
  pub truncated_by: Option<Cap>,
  pub total_bytes: u64,
  pub total_lines: u64,
  pub kept_bytes: u64,
  pub kept_lines: u64,
  /// False when the CLI was stopped at `DRAIN_LIMIT_BYTES`: the totals are then lower bounds.
  pub totals_exact: bool,
  /// When truncated: the full stdout's file, or why there is none.
  pub full_output: Option<FullOutput>,
  /// When truncated: the end of the whole cleaned stdout ([`StdoutCollector::tail`]), which the
  /// text may not reach. `None` when the text is whole (it ends the same way).
  pub output_tail: Option<String>,
}

/// Applies both caps to decoded text: at most `max_lines` lines, at most `max_bytes` bytes, cut at
/// a line end where one fits, else at a character boundary (a single huge line still shows).
fn cut(text: &str, max_bytes: usize, max_lines: usize) -> (String, Option<Cap>) {
  let mut end = text.len();
  let mut by = None;
  if let Some((i, _)) = text.match_indices('\n').nth(max_lines - 1) {
    if i + 1 < text.len() {
      end = i + 1;
      by = Some(Cap::Lines);
    }
  }
  if end > max_bytes {
    let mut limit = max_bytes;
    while !text.is_char_boundary(limit) {
      limit -= 1;
    }
    end = match text[..limit].rfind('\n') {
      Some(nl) => nl + 1,
      None => limit,
    };
    by = Some(Cap::Bytes);
  }
  (text[..end].to_owned(), by)
}

fn count_lines(text: &str) -> u64 {
  let newlines = text.bytes().filter(|b| *b == b'\n').count() as u64;
  newlines + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

#[allow(clippy::naive_bytecount)] // a dependency for a 64 KiB chunk is not worth it
fn memchr_count(chunk: &[u8]) -> usize {
  chunk.iter().filter(|b| **b == b'\n').count()
}

mod stderr_tail;
mod stdout_collector;
pub use stderr_tail::StderrTail;
pub use stdout_collector::StdoutCollector;

#[cfg(test)]
mod tests;
