//! The end of stderr, kept for a failure's diagnosis: clean and bounded. The words module
//! (lib/words/redact.js) redacts it where it reaches a message.

use std::collections::VecDeque;

use crate::caps::STDERR_TAIL_BYTES;
use crate::sanitize::clean_text;

/// Keeps the final `STDERR_TAIL_BYTES` of stderr.
#[derive(Debug, Default, Clone)]
pub struct StderrTail {
  ring: VecDeque<u8>,
  seen_bytes: u64,
}

impl StderrTail {
  pub fn new() -> Self {
    Self::default()
  }

  pub fn push(&mut self, chunk: &[u8]) {
    self.seen_bytes += chunk.len() as u64;
    let chunk = &chunk[chunk.len().saturating_sub(STDERR_TAIL_BYTES)..];
    let overflow = (self.ring.len() + chunk.len()).saturating_sub(STDERR_TAIL_BYTES);
    self.ring.drain(..overflow);
    self.ring.extend(chunk);
  }

  /// The tail as clean text, starting on a character boundary, at most
  /// `STDERR_TAIL_BYTES` long.
  pub fn finish(self) -> String {
    let bytes: Vec<u8> = self.ring.into_iter().collect();
    let cut = self.seen_bytes > bytes.len() as u64;
    // When the ring dropped older bytes, its first line is a fragment: a secret's name may have
    // fallen off while its value stayed, and redaction (in JS) could not recognise it. Start at the first
    // whole line, unless nothing but blanks follows it: the tail is then one long line, shown cut.
    let whole_line = bytes
      .iter()
      .position(|b| *b == b'\n')
      .filter(|nl| bytes[nl + 1..].iter().any(|b| !b.is_ascii_whitespace()));
    let (start, fragment) = match whole_line {
      _ if !cut => (0, false),
      Some(nl) => (nl + 1, false),
      None => (fragment_start(&bytes), true),
    };
    let mut text = clean_text(&bytes[start..]);
    let room = STDERR_TAIL_BYTES - if fragment { CUT_MARK.len() } else { 0 };
    if text.len() > room {
      // Lossy replacement can grow invalid bytes; keep the end.
      let mut from = text.len() - room;
      while !text.is_char_boundary(from) {
        from += 1;
      }
      text = text[from..].to_owned();
    }
    if fragment {
      text.insert_str(0, CUT_MARK);
    }
    text
  }
}

/// Marks a tail that starts in the middle of a line longer than the tail itself.
pub const CUT_MARK: &str = "[cut]…";

/// A partial first word longer than this is text, not a secret's value, and is kept.
const MAX_PARTIAL_WORD: usize = 512;

/// Where a fragment of one long line starts: past its partial first word when that is short and
/// more follows (a secret's value whose name was cut off), else on the first character boundary.
fn fragment_start(bytes: &[u8]) -> usize {
  let head = &bytes[..bytes.len().min(MAX_PARTIAL_WORD)];
  match head.iter().position(u8::is_ascii_whitespace) {
    Some(ws) if bytes[ws..].iter().any(|b| !b.is_ascii_whitespace()) => ws + 1,
    _ => bytes
      .iter()
      .take(3)
      .take_while(|b| (**b & 0xC0) == 0x80)
      .count(),
  }
}
