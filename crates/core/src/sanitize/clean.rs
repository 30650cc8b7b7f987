//! The streaming cleaner: CLI bytes decoded into plain text, terminal escapes removed.

/// Payload bytes (UTF-8) a string sequence (OSC, DCS, SOS, PM, APC) may hide before it is
/// given up on. Past the bound the sequence ends and the rest of its line is shown as text.
pub const STRING_PAYLOAD_MAX: usize = 4096;
/// Parameter and intermediate characters a CSI may hold before it is given up on.
pub const CSI_PARAMS_MAX: usize = 256;

/// Decodes CLI output into plain text; the whole input in one go. Same result as a [`Cleaner`]
/// fed the bytes in any split.
pub fn clean_text(bytes: &[u8]) -> String {
  let mut out = String::with_capacity(bytes.len());
  let mut cleaner = Cleaner::new();
  cleaner.push(bytes, &mut out);
  cleaner.finish(&mut out);
  out
}

/// Streaming decoder of CLI output into plain text for the model. O(n), constant memory.
///
/// A small hand-written state machine, not a VT emulator: a terminal parser such as `vte`
/// follows the terminal's rules (an unterminated OSC swallows everything up to its terminator,
/// ESC + any final byte is a sequence), which hides text. Here a sequence may strip at most
/// itself:
///
/// - Bytes are decoded as UTF-8; each maximal invalid subsequence becomes one U+FFFD, exactly
///   as `String::from_utf8_lossy` does.
/// - Kept: printable characters, `\n`, `\t`. CR becomes LF, CRLF one LF. Other C0 controls,
///   DEL and C1 controls (U+0080–U+009F) are dropped.
/// - CSI (ESC `[` or U+009B), parameters/intermediates (0x20–0x3F, at most
///   [`CSI_PARAMS_MAX`]) and a final byte (0x40–0x7E): dropped. Any other character ends an
///   unfinished CSI, which is dropped, and is then handled as text (so a newline survives).
/// - String sequences OSC (ESC `]`, U+009D), DCS (ESC `P`, U+0090), SOS (ESC `X`, U+0098),
///   PM (ESC `^`, U+009E), APC (ESC `_`, U+009F): dropped up to BEL, ESC `\`, U+009C (or
///   CAN/SUB, which cancel). A newline or CR ends one too and is kept; so does the payload
///   reaching [`STRING_PAYLOAD_MAX`] bytes, after which the rest is shown as text. An ESC
///   inside starts a new escape, as in a terminal.
/// - ESC + one of `( ) * + - . / # %` or space (charset and similar selects) + one final
///   byte (0x30–0x7E): dropped.
/// - ESC + one of `7 8 = > c D E H M N O Z \` (save/restore cursor, keypad modes, reset,
///   index, next line, tab set, reverse index, single shifts, identify, string terminator):
///   dropped as a two-character escape.
/// - ESC + anything else: only the ESC is dropped; what follows is handled as text.
///
/// A pending incomplete UTF-8 sequence becomes U+FFFD at [`Cleaner::finish`]; a pending
/// unfinished escape is dropped.
#[derive(Debug, Default)]
pub struct Cleaner {
  state: State,
  /// The previous character was a CR (already written as LF): a following LF is its pair.
  after_cr: bool,
  /// UTF-8 decoding: the lead byte, the code point so far and continuation bytes still due.
  lead: u8,
  code: u32,
  need: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
  #[default]
  Ground,
  /// After ESC.
  Esc,
  /// After ESC and an intermediate such as `(`: one final byte follows.
  EscIntermediate,
  /// Inside a CSI, with this many parameter/intermediate characters so far.
  Csi(u16),
  /// Inside a string sequence, with this many payload bytes so far.
  Str(u16),
  /// Inside a string sequence, after ESC (`\` terminates; anything else starts a new escape).
  StrEsc,
}

impl Cleaner {
  pub fn new() -> Self {
    Self::default()
  }

  /// Appends the cleaned text of `chunk` to `out`.
  pub fn push(&mut self, chunk: &[u8], out: &mut String) {
    out.reserve(chunk.len());
    let mut i = 0;
    while i < chunk.len() {
      // Fast path: a run of printable ASCII, tabs and newlines in plain text is kept as it is
      // (what `byte` would do one at a time; a CR's pending pair goes the slow way).
      if self.state == State::Ground && self.need == 0 && !self.after_cr {
        let run = chunk[i..]
          .iter()
          .position(|&b| b.wrapping_sub(0x20) > 0x5E && b != b'\n' && b != b'\t')
          .unwrap_or(chunk.len() - i);
        if run > 0 {
          // SAFETY: every byte of the run is ASCII (0x20–0x7E, tab or newline), so valid UTF-8.
          out.push_str(unsafe { std::str::from_utf8_unchecked(&chunk[i..i + run]) });
          i += run;
          continue;
        }
      }
      self.byte(chunk[i], out);
      i += 1;
    }
  }

  /// Flushes what is pending: an incomplete UTF-8 sequence becomes U+FFFD, an unfinished
  /// escape is dropped. (A trailing CR has already been written as LF.)
  pub fn finish(mut self, out: &mut String) {
    if self.need > 0 {
      self.need = 0;
      self.char('\u{FFFD}', out);
    }
  }

  fn byte(&mut self, byte: u8, out: &mut String) {
    if self.need > 0 {
      // The first continuation byte has a narrower range after some lead bytes (no overlong
      // forms, no surrogates, nothing above U+10FFFF); the same rules as `str::from_utf8`.
      let first = self.code == u32::from(self.lead) & lead_mask(self.lead);
      let (lo, hi) = match (first, self.lead) {
        (true, 0xE0) => (0xA0, 0xBF),
        (true, 0xED) => (0x80, 0x9F),
        (true, 0xF0) => (0x90, 0xBF),
        (true, 0xF4) => (0x80, 0x8F),
        _ => (0x80, 0xBF),
      };
      if (lo..=hi).contains(&byte) {
        self.code = (self.code << 6) | u32::from(byte & 0x3F);
        self.need -= 1;
        if self.need == 0 {
          let c = char::from_u32(self.code).unwrap_or('\u{FFFD}');
          self.char(c, out);
        }
        return;
      }
      // The sequence so far is a maximal invalid subsequence; this byte starts afresh.
      self.need = 0;
      self.char('\u{FFFD}', out);
    }
    match byte {
      0x00..=0x7F => self.char(char::from(byte), out),
      0xC2..=0xDF => self.start(byte, 1),
      0xE0..=0xEF => self.start(byte, 2),
      0xF0..=0xF4 => self.start(byte, 3),
      _ => self.char('\u{FFFD}', out),
    }
  }

  fn start(&mut self, lead: u8, need: u8) {
    self.lead = lead;
    self.code = u32::from(lead) & lead_mask(lead);
    self.need = need;
  }

  fn char(&mut self, c: char, out: &mut String) {
    let after_cr = std::mem::take(&mut self.after_cr);
    // A character that ends a sequence without belonging to it is handled again in the new
    // state (at most three rounds: string-ESC, ESC, ground).
    loop {
      let (next, consumed) = match self.state {
        State::Ground => (self.ground(c, after_cr, out), true),
        State::Esc => match c {
          '[' => (State::Csi(0), true),
          ']' | 'P' | 'X' | '^' | '_' => (State::Str(0), true),
          '(' | ')' | '*' | '+' | '-' | '.' | '/' | '#' | '%' | ' ' => {
            (State::EscIntermediate, true)
          }
          '7' | '8' | '=' | '>' | 'c' | 'D' | 'E' | 'H' | 'M' | 'N' | 'O' | 'Z' | '\\' => {
            (State::Ground, true)
          }
          _ => (State::Ground, false),
        },
        State::EscIntermediate => (State::Ground, matches!(c, '0'..='~')),
        State::Csi(n) => match c {
          '@'..='~' => (State::Ground, true),
          ' '..='?' if usize::from(n) < CSI_PARAMS_MAX => (State::Csi(n + 1), true),
          _ => (State::Ground, false),
        },
        State::Str(n) => match c {
          '\x07' | '\u{9C}' | '\x18' | '\x1A' => (State::Ground, true),
          '\x1B' => (State::StrEsc, true),
          '\n' | '\r' => (State::Ground, false),
          _ => {
            let n = usize::from(n) + c.len_utf8();
            match u16::try_from(n) {
              Ok(n) if usize::from(n) <= STRING_PAYLOAD_MAX => (State::Str(n), true),
              _ => (State::Ground, false),
            }
          }
        },
        State::StrEsc if c == '\\' => (State::Ground, true),
        State::StrEsc => (State::Esc, false),
      };
      self.state = next;
      if consumed {
        return;
      }
    }
  }

  fn ground(&mut self, c: char, after_cr: bool, out: &mut String) -> State {
    match c {
      '\n' if after_cr => {}
      '\n' | '\t' => out.push(c),
      '\r' => {
        out.push('\n');
        self.after_cr = true;
      }
      '\x1B' => return State::Esc,
      '\u{9B}' => return State::Csi(0),
      '\u{90}' | '\u{98}' | '\u{9D}' | '\u{9E}' | '\u{9F}' => return State::Str(0),
      c if c.is_control() => {}
      c => out.push(c),
    }
    State::Ground
  }
}

/// The payload bits of a UTF-8 lead byte.
fn lead_mask(lead: u8) -> u32 {
  match lead {
    0xC0..=0xDF => 0x1F,
    0xE0..=0xEF => 0x0F,
    _ => 0x07,
  }
}
