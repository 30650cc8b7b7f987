//! Output bounds: what the model may see of stdout, and what is kept of stderr (the numbers and
//! the caps themselves are `caps`').
//!
//! Memory is bounded by construction: stdout keeps at most a command's byte cap (`MAX_BYTES` for
//! what the model sees, the drain limit at most, + a few bytes to finish a UTF-8 character) and
//! stops storing at its line cap;
//! everything after is only counted (`stdout_collector`). stderr is a ring of its last
//! `STDERR_TAIL_BYTES`.

use crate::caps::Cap;
use crate::full_output::FullOutput;

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
