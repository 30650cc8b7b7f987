//! Output bounds: what the model may see of stdout, and what is kept of stderr.
//!
//! Memory is bounded by construction: stdout keeps at most `MAX_BYTES` (+ a few bytes to finish a
//! UTF-8 character) and stops storing at the `MAX_LINES`th newline; everything after is only
//! counted. stderr is a ring of its last `STDERR_TAIL_BYTES`.

use crate::full_output::{FullOutput, Spill, SpillTarget};
use crate::sanitize::shown;
use crate::sanitize::{clean_text, Cleaner};

/// 50 KB, as Pi counts it (`DEFAULT_MAX_BYTES`).
pub const MAX_BYTES: usize = 50 * 1024;
/// Pi's `DEFAULT_MAX_LINES`.
pub const MAX_LINES: usize = 2000;
/// Only the end of stderr is useful for a diagnosis.
pub const STDERR_TAIL_BYTES: usize = 4 * 1024;
/// After the cap, stdout is still drained and counted (so the model learns how much more existed)
/// up to this many bytes; a CLI printing more is stopped rather than read forever.
pub const DRAIN_LIMIT_BYTES: u64 = 16 * 1024 * 1024;
/// The Explore request's own bound, the same as the CLI's (`query exceeds maximum length of 10000`).
pub const MAX_REQUEST_CHARS: usize = 10_000;

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

/// Collects stdout within the caps and counts what it does not keep. Once a cap is passed, the
/// whole stream (from its first byte) also goes to a spill file, if a target was given.
#[derive(Debug, Default)]
pub struct StdoutCollector {
  target: Option<SpillTarget>,
  spill: Option<Result<Spill, String>>,
  kept: Vec<u8>,
  kept_newlines: usize,
  storing: bool,
  /// Raw bytes read (for the drain limit and "was everything kept?").
  seen_bytes: u64,
  /// The totals the model is told, counted on the cleaned text like the kept counts (a CR is a
  /// line end there, an invalid byte a 3-byte U+FFFD, an escape nothing).
  totals: CleanTotals,
}

/// Bytes and lines of the whole stream as cleaned, counted as it streams by.
#[derive(Debug, Default)]
struct CleanTotals {
  cleaner: Cleaner,
  scratch: String,
  bytes: u64,
  newlines: u64,
  ends_with_newline: bool,
}

impl CleanTotals {
  fn push(&mut self, chunk: &[u8]) {
    self.cleaner.push(chunk, &mut self.scratch);
    self.count();
  }

  fn count(&mut self) {
    if !self.scratch.is_empty() {
      self.bytes += self.scratch.len() as u64;
      self.newlines += memchr_count(self.scratch.as_bytes()) as u64;
      self.ends_with_newline = self.scratch.ends_with('\n');
      self.scratch.clear();
    }
  }

  /// (bytes, lines) of everything pushed, the pending end flushed.
  fn finish(mut self) -> (u64, u64) {
    std::mem::take(&mut self.cleaner).finish(&mut self.scratch);
    self.count();
    let partial = u64::from(self.bytes > 0 && !self.ends_with_newline);
    (self.bytes, self.newlines + partial)
  }
}

/// The bounded text and the counts that describe it.
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
}

impl StdoutCollector {
  pub fn new(target: Option<SpillTarget>) -> Self {
    Self {
      target,
      storing: true,
      ..Self::default()
    }
  }

  pub fn push(&mut self, chunk: &[u8]) {
    if chunk.is_empty() {
      return;
    }
    self.seen_bytes += chunk.len() as u64;
    self.totals.push(chunk);
    if !self.storing {
      self.spill_write(chunk);
      return;
    }
    // Room for the byte cap plus up to 3 bytes to complete a character cut at the cap.
    let room = (MAX_BYTES + 3).saturating_sub(self.kept.len());
    let mut take = chunk.len().min(room);
    // Never store past the newline that ends line MAX_LINES + 1 worth of content.
    for (i, b) in chunk[..take].iter().enumerate() {
      if *b == b'\n' {
        self.kept_newlines += 1;
        if self.kept_newlines > MAX_LINES {
          take = i + 1;
          break;
        }
      }
    }
    self.kept.extend_from_slice(&chunk[..take]);
    if take < chunk.len() || self.kept.len() >= MAX_BYTES + 3 || self.kept_newlines > MAX_LINES {
      self.storing = false;
      self.start_spill();
      self.spill_write(&chunk[take..]);
    }
  }

  /// Opens the spill file and writes everything kept so far into it.
  fn start_spill(&mut self) {
    if self.spill.is_some() {
      return;
    }
    let Some(target) = &self.target else { return };
    let kept = std::mem::take(&mut self.kept);
    self.spill = Some(Spill::create(target));
    self.spill_write(&kept);
    self.kept = kept;
  }

  fn spill_write(&mut self, chunk: &[u8]) {
    if let Some(Ok(spill)) = &mut self.spill {
      if let Err(reason) = spill.write(chunk) {
        self.spill = Some(Err(reason));
      }
    }
  }

  /// What has been kept so far, as the model would see it (bounded: at most the caps).
  pub fn preview(&self) -> (String, u64, u64) {
    let (text, _) = cut(&clean_text(&self.kept), MAX_BYTES, MAX_LINES);
    (text, self.totals.bytes, self.totals.newlines)
  }

  /// True once the CLI has printed more than we are willing to drain.
  pub fn over_drain_limit(&self) -> bool {
    self.seen_bytes > DRAIN_LIMIT_BYTES
  }

  pub fn finish(mut self, totals_exact: bool) -> Bounded {
    let (total_bytes, total_lines) = std::mem::take(&mut self.totals).finish();
    let decoded = clean_text(&self.kept);
    let whole = self.seen_bytes == self.kept.len() as u64 && totals_exact;
    let fits = whole && decoded.len() <= MAX_BYTES && count_lines(&decoded) <= MAX_LINES as u64;
    if fits {
      return Bounded {
        kept_bytes: decoded.len() as u64,
        kept_lines: count_lines(&decoded),
        text: decoded,
        truncated: false,
        truncated_by: None,
        total_bytes,
        total_lines,
        totals_exact,
        full_output: None,
      };
    }
    // Truncated: every cut answer names its file, even one that never passed the storing cap.
    self.start_spill();
    let full_output = match self.spill.take() {
      Some(Ok(spill)) => Some(spill.finish(totals_exact)),
      Some(Err(reason)) => Some(FullOutput::NotKept { reason }),
      None => None,
    };
    // The marker counts against the caps: reserve its worst case (the same totals and file, the
    // largest kept counts), so text + marker never exceed MAX_BYTES or MAX_LINES.
    let mut b = Bounded {
      // Not ending in a newline: the marker's longer gap.
      text: "x".to_owned(),
      truncated: true,
      truncated_by: Some(Cap::Bytes),
      total_bytes,
      total_lines,
      kept_bytes: MAX_BYTES as u64,
      kept_lines: MAX_LINES as u64,
      totals_exact,
      full_output,
    };
    let reserve = truncation_marker(&b);
    let (text, cut_by) = cut(
      &decoded,
      MAX_BYTES - reserve.len(),
      MAX_LINES - MARKER_LINES,
    );
    // Storing only stops at a cap, so a cut is found when more was seen; "bytes" is the honest
    // default for the drain-limit stop.
    b.truncated_by = Some(cut_by.unwrap_or(Cap::Bytes));
    b.kept_bytes = text.len() as u64;
    b.kept_lines = count_lines(&text);
    b.text = text;
    b
  }
}

/// Lines the marker adds: a blank line and the marker itself (when the kept text ends with a
/// newline; otherwise the newline that ends the last kept line and the marker).
const MARKER_LINES: usize = 2;

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

/// The visible marker appended to truncated output: what was kept, that more existed, and
/// where the rest is (or why it is not kept).
pub fn truncation_marker(b: &Bounded) -> String {
  let at_least = if b.totals_exact { "" } else { "at least " };
  // One blank line between the kept text and the marker.
  let gap = if b.text.ends_with('\n') || b.text.is_empty() {
    "\n"
  } else {
    "\n\n"
  };
  format!(
    "{gap}[Output truncated by {}: showing {} of {}{} lines ({} of {}{} bytes). {}]",
    b.truncated_by.unwrap_or(Cap::Bytes).as_str(),
    b.kept_lines,
    at_least,
    b.total_lines,
    b.kept_bytes,
    at_least,
    b.total_bytes,
    match &b.full_output {
      Some(FullOutput::Kept { path, bytes, complete }) => format!(
        "More output existed: the full output{} ({bytes} bytes) is in {}; use the read tool with an offset to see the rest",
        if *complete { "" } else { ", itself cut at 16 MiB," },
        shown(path)
      ),
      Some(FullOutput::NotKept { reason }) => format!(
        "More output existed; the full output was not kept ({reason}); ask a narrower question to see it"
      ),
      None => "More output existed and was omitted; ask a narrower question to see it".to_owned(),
    }
  )
}

mod stderr_tail;
pub use stderr_tail::StderrTail;

#[cfg(test)]
mod tests;
