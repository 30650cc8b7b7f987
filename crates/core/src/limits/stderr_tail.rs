//! The end of stderr, kept for a failure's diagnosis: clean, redacted, bounded.

use std::collections::VecDeque;

use super::STDERR_TAIL_BYTES;
use crate::sanitize::{clean_text, redact};

/// Keeps the final `STDERR_TAIL_BYTES` of stderr.
#[derive(Debug, Default)]
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

  /// The tail as clean, redacted text, starting on a character boundary, at most
  /// `STDERR_TAIL_BYTES` long.
  pub fn finish(self) -> String {
    let bytes: Vec<u8> = self.ring.into_iter().collect();
    // When the ring dropped older bytes, its first line is a fragment: a secret's name may have
    // fallen off while its value stayed, and redaction could not recognise it. Start at the first
    // whole line (or, with no newline at all, on a character boundary).
    let start = if self.seen_bytes > bytes.len() as u64 {
      match bytes.iter().position(|b| *b == b'\n') {
        Some(nl) => nl + 1,
        None => bytes
          .iter()
          .take(3)
          .take_while(|b| (**b & 0xC0) == 0x80)
          .count(),
      }
    } else {
      0
    };
    let mut text = redact(&clean_text(&bytes[start..]));
    if text.len() > STDERR_TAIL_BYTES {
      // Lossy replacement can grow invalid bytes; keep the end.
      let mut from = text.len() - STDERR_TAIL_BYTES;
      while !text.is_char_boundary(from) {
        from += 1;
      }
      text = text[from..].to_owned();
    }
    text
  }
}
