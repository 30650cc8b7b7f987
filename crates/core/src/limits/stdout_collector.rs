//! The bounded collector of one run's stdout: it keeps at most the command's byte cap (+ a few
//! bytes to finish a UTF-8 character), stops storing at the line cap, and only counts (and
//! spills) what follows; the end of the cleaned stream is kept apart (`tail`).

use super::{count_lines, cut, memchr_count, Bounded};
use crate::caps::{Cap, Caps, DRAIN_LIMIT_BYTES, OUTPUT_TAIL_BYTES};
use crate::full_output::{FullOutput, NotKeptReason, Spill, SpillTarget};
use crate::sanitize::{clean_text, Cleaner};

/// Collects stdout within the caps and counts what it does not keep. Once a cap is passed, the
/// whole stream (from its first byte) also goes to a spill file, if a target was given.
#[derive(Debug, Default)]
pub struct StdoutCollector {
  target: Option<SpillTarget>,
  caps: Caps,
  spill: Option<Result<Spill, NotKeptReason>>,
  kept: Vec<u8>,
  kept_newlines: usize,
  storing: bool,
  /// Raw bytes read (for the drain limit and "was everything kept?").
  seen_bytes: u64,
  /// The totals the model is told, counted on the cleaned text like the kept counts (a CR is a
  /// line end there, an invalid byte a 3-byte U+FFFD, an escape nothing).
  totals: CleanTotals,
}

/// Bytes and lines of the whole stream as cleaned, counted as it streams by, and its end.
#[derive(Debug, Default)]
struct CleanTotals {
  cleaner: Cleaner,
  scratch: String,
  bytes: u64,
  newlines: u64,
  ends_with_newline: bool,
  /// The last `OUTPUT_TAIL_BYTES` (or fewer, from a character boundary) of the cleaned stream.
  end: String,
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
      keep_end(&mut self.end, &self.scratch);
      self.scratch.clear();
    }
  }

  /// The end of the cleaned stream so far: at most `OUTPUT_TAIL_BYTES`, from a character
  /// boundary; when older text fell off, from its first whole line (unless only blanks follow
  /// the first newline: the end is then part of one long line).
  fn tail(&self) -> String {
    let cut = self.bytes > self.end.len() as u64;
    let whole_line = self
      .end
      .find('\n')
      .filter(|nl| self.end[nl + 1..].bytes().any(|b| !b.is_ascii_whitespace()));
    match whole_line {
      Some(nl) if cut => self.end[nl + 1..].to_owned(),
      _ => self.end.clone(),
    }
  }

  /// (bytes, lines, tail) of everything pushed, the pending end flushed.
  fn finish(mut self) -> (u64, u64, String) {
    std::mem::take(&mut self.cleaner).finish(&mut self.scratch);
    self.count();
    let partial = u64::from(self.bytes > 0 && !self.ends_with_newline);
    (self.bytes, self.newlines + partial, self.tail())
  }
}

/// Appends `text` to `end` and keeps only its last `OUTPUT_TAIL_BYTES`, from a character boundary.
fn keep_end(end: &mut String, text: &str) {
  let from_text = text.len().saturating_sub(OUTPUT_TAIL_BYTES);
  end.push_str(&text[ceil_char_boundary(text, from_text)..]);
  let from_end = end.len().saturating_sub(OUTPUT_TAIL_BYTES);
  let from_end = ceil_char_boundary(end, from_end);
  end.drain(..from_end);
}

/// The first character boundary at or after `i`.
fn ceil_char_boundary(text: &str, mut i: usize) -> usize {
  while !text.is_char_boundary(i) {
    i += 1;
  }
  i
}

impl StdoutCollector {
  /// A collector within the contract's caps (`Caps::MAX`).
  pub fn new(target: Option<SpillTarget>) -> Self {
    Self::with_caps(target, Caps::MAX)
  }

  /// A collector within a command's own `caps` (at most `Caps::LARGEST`).
  pub fn with_caps(target: Option<SpillTarget>, caps: Caps) -> Self {
    Self {
      target,
      caps,
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
    let room = (self.caps.bytes + 3).saturating_sub(self.kept.len());
    let mut take = chunk.len().min(room);
    // Never store past the newline that ends line `caps.lines` + 1 worth of content.
    for (i, b) in chunk[..take].iter().enumerate() {
      if *b == b'\n' {
        self.kept_newlines += 1;
        if self.kept_newlines > self.caps.lines {
          take = i + 1;
          break;
        }
      }
    }
    self.kept.extend_from_slice(&chunk[..take]);
    if take < chunk.len()
      || self.kept.len() >= self.caps.bytes + 3
      || self.kept_newlines > self.caps.lines
    {
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
    let (text, _) = cut(&clean_text(&self.kept), self.caps.bytes, self.caps.lines);
    (text, self.totals.bytes, self.totals.newlines)
  }

  /// The end of everything printed so far, cleaned like the text, whatever the caps kept: at most
  /// `OUTPUT_TAIL_BYTES`, never a cut character; when the output is longer, from its first whole
  /// line where one starts within it. (A character or escape still pending in the cleaner shows
  /// once it completes.)
  pub fn tail(&self) -> String {
    self.totals.tail()
  }

  /// A run that failed keeps no full-output file, and starts none later; what was kept stays
  /// for `preview` (the JS runner's failure reports it after the spill is gone).
  pub fn discard_spill(&mut self) {
    self.spill = None;
    self.target = None;
  }

  /// True once the CLI has printed more than we are willing to drain.
  pub fn over_drain_limit(&self) -> bool {
    self.seen_bytes > DRAIN_LIMIT_BYTES
  }

  pub fn finish(mut self, totals_exact: bool) -> Bounded {
    let (total_bytes, total_lines, tail) = std::mem::take(&mut self.totals).finish();
    let decoded = clean_text(&self.kept);
    let whole = self.seen_bytes == self.kept.len() as u64 && totals_exact;
    let fits =
      whole && decoded.len() <= self.caps.bytes && count_lines(&decoded) <= self.caps.lines as u64;
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
        output_tail: None,
      };
    }
    // Truncated: every cut answer names its file, even one that never passed the storing cap.
    self.start_spill();
    let full_output = match self.spill.take() {
      Some(Ok(spill)) => Some(spill.finish(totals_exact)),
      Some(Err(reason)) => Some(FullOutput::NotKept { reason }),
      None => None,
    };
    // The marker counts against the caps: the glue words it and fits the text to the caps with
    // it (lib/api/answer.js); here the stored text goes out whole, with its own counts.
    Bounded {
      kept_bytes: decoded.len() as u64,
      kept_lines: count_lines(&decoded),
      text: decoded,
      truncated: true,
      // Provisional: the glue's fit says which cap cut the text it shows.
      truncated_by: Some(Cap::Bytes),
      total_bytes,
      total_lines,
      totals_exact,
      full_output,
      output_tail: Some(tail),
    }
  }
}
