//! Clean text for the model: CLI bytes decoded, terminal escapes removed, secrets masked.

use std::sync::OnceLock;

use regex::Regex;

/// Payload bytes (UTF-8) a string sequence (OSC, DCS, SOS, PM, APC) may hide before it is
/// given up on. Past the bound the sequence ends and the rest of its line is shown as text.
const STRING_PAYLOAD_MAX: usize = 4096;
/// Parameter and intermediate characters a CSI may hold before it is given up on.
const CSI_PARAMS_MAX: usize = 256;

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

/// A value after a key: double-quoted (backslash escapes; unterminated runs to the end of the
/// line), single-quoted (likewise), or unquoted up to whitespace — `;`, `,` and the like are
/// part of it.
macro_rules! value {
  () => {
    r#"(?:"(?:[^"\\\n]|\\.)*"?|'[^'\n]*'?|\S+)"#
  };
}

/// Key names that hold a secret when a value is assigned to them (`=`, `:`, `:=`, `=>`). The
/// key is a whole word (not after `/`) and must END with the word (`GITHUB_TOKEN`, `clientSecret`, `x-api-key`), so `token_count`,
/// `PASSWORD_FILE` or `tokens` are not keys; `pwd` and `auth` need a separator before them
/// (`DB_PWD`, `basic_auth`; the shell's `PWD`/`OLDPWD` are directories) or stand alone
/// (`auth`).
macro_rules! secret_key {
  () => {
    concat!(
      r"(?:[A-Za-z0-9_.-]*(?:token|secret|passw(?:or)?d|passphrase|api[ _.-]?key|",
      r"access[_.-]?key|private[_.-]?key|secret[_.-]?key|credentials?|session[_.-]?id)",
      r"|[A-Za-z0-9_.-]*[_.-](?:pwd|auth)|\bauth)"
    )
  };
}

/// The redaction rules, applied in order: (name, pattern, replacement). The approach is the one
/// of gitleaks and detect-secrets: known token formats by their prefix (kept visible, so one
/// can tell which credential it was), and values after key names that mean a secret (the key
/// kept visible). Specific rules come first; a masked value reads `[REDACTED]`, which later
/// rules leave as it is.
const RULES: &[(&str, &str, &str)] = &[
  // Before everything else, as it spans lines; unterminated (text cut) masks to the end.
  (
    "pem-private-key",
    r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
    "${1}[REDACTED]${2}",
  ),
  // scheme://user:password@host — the password is everything up to the last `@` before the
  // path, so an unencoded `@` in it does not leak the rest.
  (
    "url-credentials",
    r"\b([A-Za-z][A-Za-z0-9+.-]*://)([^\s:/?#@]*):[^\s/?#]+@",
    "${1}${2}:[REDACTED]@",
  ),
  (
    "authorization-header",
    r#"(?i)\b((?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|basic|token|digest|negotiate|ntlm|bot|apikey)[ \t]+)?)[^\s"']+"#,
    "${1}[REDACTED]",
  ),
  // Cookies carry sessions; the whole header value goes.
  (
    "cookie-header",
    r#"(?i)\b((?:set-)?cookie["']?[ \t]*:[ \t]*)[^\r\n]+"#,
    "${1}[REDACTED]",
  ),
  // --password value, --password=value, -token value (after a word start, so `my-token` is
  // not a flag); `-p` is too generic.
  (
    "cli-flag",
    concat!(
      r"(?im)(^|[\s'(=\[])(--?(?:[a-z0-9]+[-_])*(?:password|passwd|pass|token|secret|",
      r"api[-_]?key|access[-_]?key|private[-_]?key|secret[-_]?key|credentials?|auth)(?:=|[ \t]+))",
      value!()
    ),
    "${1}${2}[REDACTED]",
  ),
  (
    "key-assignment",
    concat!(
      // The key is a whole word, not after `/`: not a path (`src/auth/token:12`), not a URL's
      // user (`https://x-access-token:…@host`, handled above).
      r#"(?im)((?:^|[^/A-Za-z0-9_.-])"#,
      secret_key!(),
      r#"["']?[ \t]*(?::=|=>|[=:])[ \t]*)"#,
      value!()
    ),
    "${1}[REDACTED]",
  ),
  // A bare bearer token; at least 8 token characters so prose ("bearer tokens") stays.
  (
    "bearer",
    r"(?i)\b(bearer[ \t]+)[A-Za-z0-9._~+/=-]{8,}",
    "${1}[REDACTED]",
  ),
  (
    "github",
    r"\b(gh[pousr]_)[A-Za-z0-9]{20,}",
    "${1}[REDACTED]",
  ),
  (
    "github-fine-grained",
    r"\b(github_pat_)[A-Za-z0-9_]{20,}",
    "${1}[REDACTED]",
  ),
  // OpenAI (sk-, sk-proj-, …) and Anthropic (sk-ant-…); 20+ characters, so `sk-learn` stays.
  (
    "sk-api-key",
    r"\b(sk-(?:[a-z]+-)?)[A-Za-z0-9_-]{20,}",
    "${1}[REDACTED]",
  ),
  (
    "aws-access-key-id",
    r"\b(AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
    "${1}[REDACTED]",
  ),
  (
    "slack",
    r"\b(xox[abposre]-|xapp-)[A-Za-z0-9-]{10,}",
    "${1}[REDACTED]",
  ),
  (
    "google-api-key",
    r"\b(AIza)[0-9A-Za-z_-]{35}",
    "${1}[REDACTED]",
  ),
  (
    "stripe",
    r"\b((?:sk|rk|pk)_(?:live|test)_)[0-9A-Za-z]{10,}",
    "${1}[REDACTED]",
  ),
  ("npm", r"\b(npm_)[A-Za-z0-9]{36}", "${1}[REDACTED]"),
  (
    "gitlab",
    r"\b(gl(?:pat|dt|rt|ptt|cbt|soat)-)[0-9A-Za-z_-]{20,}",
    "${1}[REDACTED]",
  ),
  ("huggingface", r"\b(hf_)[A-Za-z0-9]{30,}", "${1}[REDACTED]"),
  (
    "jwt",
    r"\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*",
    "[REDACTED]",
  ),
];

/// Masks credentials a CLI might echo into its stderr (or the start of its stdout on a failed
/// run) with `[REDACTED]`, keeping key names and token prefixes visible. See [`RULES`].
///
/// Applied to error output, not to the answer: it errs towards masking (`password =
/// getPassword();` loses its right-hand side), while paths, identifiers and prose stay.
pub fn redact(text: &str) -> String {
  struct Compiled {
    rules: Vec<(Regex, &'static str)>,
    pem_begin: Regex,
    pem_end: Regex,
  }
  static COMPILED: OnceLock<Compiled> = OnceLock::new();
  let compiled = COMPILED.get_or_init(|| Compiled {
    rules: RULES
      .iter()
      .map(|(name, pattern, replacement)| {
        let re = Regex::new(pattern).unwrap_or_else(|e| panic!("redaction rule {name}: {e}"));
        (re, *replacement)
      })
      .collect(),
    pem_begin: Regex::new(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----").expect("valid"),
    pem_end: Regex::new(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----").expect("valid"),
  });
  let mut text = text.to_owned();
  // A tail that starts inside a key block (its BEGIN cut off): mask from the start to its END.
  if let Some(end) = compiled.pem_end.find(&text) {
    if compiled
      .pem_begin
      .find(&text)
      .is_none_or(|begin| begin.start() > end.start())
    {
      text.replace_range(..end.start(), "[REDACTED]");
    }
  }
  for (re, replacement) in &compiled.rules {
    if let std::borrow::Cow::Owned(replaced) = re.replace_all(&text, *replacement) {
      text = replaced;
    }
  }
  text
}

#[cfg(test)]
mod tests {
  use super::*;

  /// Cleans `input` in every two-chunk split, in three chunks at every pair of split points
  /// (short inputs) and byte by byte; each must give what `clean_text` gives.
  fn assert_split_invariant(input: &[u8]) {
    let whole = clean_text(input);
    let run = |chunks: &[&[u8]]| {
      let mut out = String::new();
      let mut cleaner = Cleaner::new();
      for chunk in chunks {
        cleaner.push(chunk, &mut out);
      }
      cleaner.finish(&mut out);
      out
    };
    for i in 0..=input.len() {
      let (a, b) = input.split_at(i);
      assert_eq!(run(&[a, b]), whole, "split at {i} of {input:?}");
      if input.len() <= 64 {
        for j in i..=input.len() {
          let (b, c) = input[i..].split_at(j - i);
          assert_eq!(run(&[a, b, c]), whole, "split at {i},{j} of {input:?}");
        }
      }
    }
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(run(&bytes), whole, "byte by byte: {input:?}");
  }

  #[test]
  fn strips_escapes_keeps_structure() {
    let raw = b"\x1b[1;31merror\x1b[0m\tdetail\r\n\x1b]0;title\x07next\x00line\n";
    assert_eq!(clean_text(raw), "error\tdetail\nnextline\n");
  }

  #[test]
  fn invalid_utf8_becomes_replacement() {
    assert_eq!(clean_text(b"a\xffb\n"), "a\u{FFFD}b\n");
    assert_eq!(
      clean_text(b"before\xff\xfe middle"),
      "before\u{FFFD}\u{FFFD} middle"
    );
    assert_eq!(clean_text(b"\xc3\x28"), "\u{FFFD}(");
    // Maximal invalid subsequences: a truncated 3-byte sequence is one U+FFFD.
    assert_eq!(clean_text(b"\xe2\x82x"), "\u{FFFD}x");
    assert_eq!(clean_text("é€😀".as_bytes()), "é€😀");
  }

  #[test]
  fn utf8_decoding_matches_from_utf8_lossy() {
    // Bytes that exercise every lead/continuation range; no controls, so nothing is removed.
    const ALPHABET: &[u8] = &[
      b'a', 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC3, 0xDF, 0xE0, 0xE1, 0xED, 0xEE,
      0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ];
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      seed
    };
    for _ in 0..5000 {
      let len = (next() % 10) as usize;
      let input: Vec<u8> = (0..len)
        .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
        .collect();
      assert_eq!(
        clean_text(&input),
        String::from_utf8_lossy(&input),
        "{input:x?}"
      );
    }
  }

  #[test]
  fn unterminated_osc_ends_at_newline() {
    // The newline that ends the sequence is kept, so the title line becomes an empty line.
    assert_eq!(
      clean_text(b"line1\n\x1b]0;title\nline2\n"),
      "line1\n\nline2\n"
    );
    assert_eq!(clean_text(b"a\x1b]0;title\r\nb"), "a\nb");
    assert_eq!(clean_text(b"a\x1b]0;title"), "a");
  }

  #[test]
  fn every_string_sequence_ends_at_newline() {
    for intro in [&b"\x1b]"[..], b"\x1bP", b"\x1b_", b"\x1b^", b"\x1bX"] {
      let input = [&b"one"[..], intro, b"payload\ntwo\n"].concat();
      assert_eq!(clean_text(&input), "one\ntwo\n", "{input:?}");
    }
    for intro in ['\u{9D}', '\u{90}', '\u{9F}', '\u{9E}', '\u{98}'] {
      let input = format!("one{intro}payload\ntwo\n");
      assert_eq!(clean_text(input.as_bytes()), "one\ntwo\n", "{input:?}");
    }
  }

  #[test]
  fn string_sequences_end_at_their_terminators() {
    assert_eq!(clean_text(b"a\x1b]52;c;ZZZZ\x07b"), "ab");
    assert_eq!(
      clean_text(b"a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b"),
      "alinkb"
    );
    assert_eq!(clean_text("a\x1bPq#0;1\u{9C}b".as_bytes()), "ab");
    assert_eq!(clean_text("a\u{9D}0;t\u{9C}b".as_bytes()), "ab");
    // CAN cancels; an ESC that is not ST starts a new escape.
    assert_eq!(clean_text(b"a\x1b]0;t\x18b"), "ab");
    assert_eq!(clean_text(b"a\x1b]0;t\x1b[1mb"), "ab");
    assert_eq!(clean_text(b"a\x1b]0;t\x1b5b"), "a5b");
  }

  #[test]
  fn string_sequence_payload_is_bounded() {
    // The first 4 KB of payload are dropped; the rest of the line shows as text again.
    let payload = "x".repeat(10 * 1024);
    let input = format!("\x1b]{payload}\nafter");
    let expected = format!("{}\nafter", "x".repeat(10 * 1024 - STRING_PAYLOAD_MAX));
    assert_eq!(clean_text(input.as_bytes()), expected);
    let input = format!("\x1b]{}\x07after", "x".repeat(STRING_PAYLOAD_MAX));
    assert_eq!(clean_text(input.as_bytes()), "after");
  }

  #[test]
  fn lone_escape_keeps_the_next_character() {
    assert_eq!(clean_text(b"price \x1b5 dollars"), "price 5 dollars");
    assert_eq!(clean_text(b"a\x1b\nb"), "a\nb");
    assert_eq!(clean_text(b"a\x1b\x1b[0mb"), "ab");
    assert_eq!(clean_text("a\x1bé".as_bytes()), "aé");
    assert_eq!(clean_text(b"end\x1b"), "end");
  }

  #[test]
  fn known_escapes_are_dropped_whole() {
    assert_eq!(
      clean_text(b"\x1b7a\x1b8b\x1b=c\x1b>d\x1bMe\x1b\\f"),
      "abcdef"
    );
    assert_eq!(clean_text(b"\x1b(Ba\x1b)0b\x1b#8c"), "abc");
    // A charset select cut short strips only itself.
    assert_eq!(clean_text(b"a\x1b(\nb"), "a\nb");
  }

  #[test]
  fn csi_is_removed_and_unterminated_csi_strips_only_itself() {
    assert_eq!(clean_text(b"a\x1b[1;31mb\x1b[2Kc\x1b[?25hd"), "abcd");
    assert_eq!(clean_text(b"a\x1b[12\nb"), "a\nb");
    assert_eq!(clean_text("a\x1b[12é".as_bytes()), "aé");
    assert_eq!(clean_text(b"a\x1b["), "a");
    // Over-long parameters: the CSI ends at the bound and the rest shows.
    let input = format!("a\x1b[{}m", "1".repeat(CSI_PARAMS_MAX + 3));
    assert_eq!(clean_text(input.as_bytes()), "a111m");
  }

  #[test]
  fn c1_controls() {
    assert_eq!(clean_text("a\u{9B}1;31mb".as_bytes()), "ab");
    assert_eq!(clean_text("a\u{85}b\u{9C}c\u{80}d".as_bytes()), "abcd");
    // Raw 8-bit C1 bytes are not UTF-8: they are shown as U+FFFD, not interpreted.
    assert_eq!(clean_text(b"a\x9b31mb"), "a\u{FFFD}31mb");
  }

  #[test]
  fn carriage_returns_become_newlines() {
    assert_eq!(clean_text(b"a\rb"), "a\nb");
    assert_eq!(clean_text(b"a\r\nb"), "a\nb");
    assert_eq!(clean_text(b"a\r\r\nb"), "a\n\nb");
    assert_eq!(clean_text(b"a\r"), "a\n");
    assert_eq!(clean_text(b"a\n\rb"), "a\n\nb");
    assert_eq!(clean_text(b"50%\r100%\n"), "50%\n100%\n");
  }

  #[test]
  fn other_controls_are_dropped() {
    assert_eq!(clean_text(b"a\x00b\x07c\x08d\x7fe\tf\x0cg"), "abcde\tfg");
  }

  #[test]
  fn streaming_matches_whole_input_for_any_split() {
    let cases: &[&[u8]] = &[
      b"\x1b[1;31merror\x1b[0m\tdetail\r\n\x1b]0;title\x07next\x00line\n",
      b"line1\n\x1b]0;title\nline2\n",
      b"a\x1b]52;c;ZZZZ\x1b\\b\r\r\nc\r",
      b"price \x1b5 dollars\x1b",
      b"a\x1b[12\nb\x1b(\nc\x1b(Bd",
      b"before\xff\xfe middle \xc3\x28 \xe2\x82 \xf0\x9f\x98\x80 \xe2\x82",
      "\u{9B}31m\u{9D}t\u{9C}é€😀\r".as_bytes(),
      b"x\x1b]0;t\x1b[1my\x1bP\xe2\x82\xac\n\xf4\x90",
    ];
    for input in cases {
      assert_split_invariant(input);
    }
    let long = [
      &b"\x1b]"[..],
      &[b'x'; 5000],
      b"\r\nafter\x1b[",
      &[b'1'; 300],
      b"m",
    ]
    .concat();
    assert_split_invariant(&long);
  }

  #[test]
  fn finish_flushes_pending_state() {
    let mut out = String::new();
    let mut cleaner = Cleaner::new();
    cleaner.push(b"a\r", &mut out);
    assert_eq!(out, "a\n");
    cleaner.push(b"\n\xe2\x82", &mut out);
    assert_eq!(out, "a\n");
    cleaner.finish(&mut out);
    assert_eq!(out, "a\n\u{FFFD}");

    let mut out = String::new();
    let mut cleaner = Cleaner::new();
    cleaner.push(b"b\x1b[1;3", &mut out);
    cleaner.finish(&mut out);
    assert_eq!(out, "b");
  }

  /// Redacts `text`; asserts each secret is gone, each kept string survives; returns the text.
  fn assert_redacted(text: &str, secrets: &[&str], kept: &[&str]) -> String {
    let out = redact(text);
    for secret in secrets {
      assert!(!out.contains(secret), "{secret:?} leaked: {out}");
    }
    for keep in kept {
      assert!(out.contains(keep), "{keep:?} lost: {out}");
    }
    out
  }

  #[test]
  fn redacts_assignments_and_bearer_tokens() {
    let text = "GITHUB_TOKEN=ghp_abc123 password: hunter2 API_KEY=\"sk live\" Authorization: Bearer eyJ.a-b_c ok=1";
    let out = redact(text);
    for secret in ["ghp_abc123", "hunter2", "sk live", "eyJ.a-b_c"] {
      assert!(!out.contains(secret), "{out}");
    }
    assert!(
      out.contains("GITHUB_TOKEN=[REDACTED]")
        && out.contains("Bearer [REDACTED]")
        && out.contains("ok=1")
    );
  }

  #[test]
  fn redacts_env_style_assignments_by_key_name() {
    let out = assert_redacted(
      "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG SECRET_KEY=s3cr3t PRIVATE_KEY=pk1 \
       passwd=pw1 DB_PASSWORD=pw2 DB_PWD=pw3 my_apikey=k1 X_API-KEY = k2 ACCESS_KEY: k3 \
       basic_auth=u:p CREDENTIALS=c1 SESSION_ID=sid1 CLIENT_SECRET='cs1' ok=1",
      &[
        "wJalrXUtnFEMI",
        "s3cr3t",
        "pk1",
        "pw1",
        "pw2",
        "pw3",
        "k1",
        "k2",
        "k3",
        "u:p",
        "c1",
        "sid1",
        "cs1",
      ],
      &[
        "AWS_SECRET_ACCESS_KEY=",
        "DB_PWD=",
        "CLIENT_SECRET=",
        "ok=1",
      ],
    );
    assert!(out.contains("DB_PASSWORD=[REDACTED] "), "{out}");
  }

  #[test]
  fn key_names_are_case_insensitive_and_quoted() {
    assert_redacted(
      r#"{"apiKey": "k-1", "api_key":"k-2", "password" : "p-3", "clientSecret": "c-4", "accessToken":"t-5", "ok": 1}"#,
      &["k-1", "k-2", "p-3", "c-4", "t-5"],
      &[r#""apiKey": [REDACTED]"#, r#""ok": 1"#],
    );
    assert_redacted(
      "token: abc123\nname: demo\nPassword: 'x y'\n",
      &["abc123", "x y"],
      &["token: [REDACTED]\n", "name: demo\n"],
    );
  }

  #[test]
  fn http_headers_are_masked() {
    assert_redacted(
      "x-api-key: key-1\nAuthorization: Basic dXNlcjpwYXNz\nauthorization: token tok-2\n\
       Authorization: Bearer tok-3\nProxy-Authorization: raw-4\ncurl -H 'Bearer tok-5-abcdef'\n\
       Cookie: sid=s-6; theme=dark\n< Set-Cookie: session=s-7; Path=/; HttpOnly\nAccept: */*\n",
      &[
        "key-1",
        "dXNlcjpwYXNz",
        "tok-2",
        "tok-3",
        "raw-4",
        "tok-5",
        "s-6",
        "s-7",
        "dark",
      ],
      &[
        "Authorization: Basic [REDACTED]",
        "authorization: token [REDACTED]",
        "Set-Cookie: [REDACTED]",
        "Accept: */*",
      ],
    );
  }

  #[test]
  fn url_credentials_are_masked() {
    assert_redacted(
      "fetch https://bob:hunter2@example.com/repo.git failed; \
       https://x-access-token:ghs_0123456789abcdefghijABCDEF@github.com/o/r.git \
       postgres://app:p%40ss@db:5432/x redis://:redispass@cache:6379 mongodb://u:a@b@h/x \
       see http://example.com:8080/path",
      &["hunter2", "ghs_0123", "p%40ss", "redispass", "a@b"],
      &[
        "https://bob:[REDACTED]@example.com/repo.git",
        "https://x-access-token:[REDACTED]@github.com/o/r.git",
        "postgres://app:[REDACTED]@db:5432/x",
        "redis://:[REDACTED]@cache:6379",
        "@h/x",
        "http://example.com:8080/path",
      ],
    );
  }

  #[test]
  fn cli_flags_are_masked() {
    assert_redacted(
      "run --password hunter2 --password=pw2 --token tok3 --api-key=key4 -token tok5 \
       --token-file /tmp/t --verbose",
      &["hunter2", "pw2", "tok3", "key4", "tok5"],
      &[
        "--password [REDACTED]",
        "--api-key=[REDACTED]",
        "--token-file /tmp/t --verbose",
      ],
    );
  }

  #[test]
  fn well_known_tokens_are_masked_anywhere() {
    let tokens = [
      "ghp_0123456789abcdefghijABCDEFGHIJ012345",
      "gho_0123456789abcdefghijABCDEFGHIJ012345",
      "ghu_0123456789abcdefghijABCDEFGHIJ012345",
      "ghs_0123456789abcdefghijABCDEFGHIJ012345",
      "ghr_0123456789abcdefghijABCDEFGHIJ012345",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
      "sk-proj-AbCdEf0123456789GhIjKlMnOp",
      "sk-ant-api03-AbCdEf0123456789GhIjKlMnOp-xyz",
      "sk-AbCdEf0123456789GhIjKlMnOpQrSt",
      "AKIAIOSFODNN7EXAMPLE",
      "ASIAIOSFODNN7EXAMPLE",
      "xoxb-123456789012-abcdefABCDEF",
      "xoxp-123456789012-abcdefABCDEF",
      "AIzaSyA0123456789abcdefghijklmnopqrstuv",
      "sk_live_0123456789abcdefABCDEF",
      "rk_live_0123456789abcdefABCDEF",
      "pk_live_0123456789abcdefABCDEF",
      "npm_0123456789abcdefghijABCDEFGHIJ012345",
      "glpat-0123456789abcdefABCD",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ];
    for token in tokens {
      let text = format!("error: request with {token} failed (see src/client.ts:4)");
      let out = assert_redacted(
        &text,
        &[&token[token.len() - 12..]],
        &["error: request with ", " failed (see src/client.ts:4)"],
      );
      assert!(out.contains("[REDACTED]"), "{out}");
    }
    assert!(redact("ghp_0123456789abcdefghijABCDEFGHIJ012345").starts_with("ghp_[REDACTED]"));
  }

  #[test]
  fn short_look_alikes_in_prose_stay() {
    let text = "uses sk-learn and task-runner; the bearer tokens were counted; AKIA is a prefix";
    assert_eq!(redact(text), text);
  }

  #[test]
  fn pem_private_key_blocks_are_masked() {
    let text = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAbCd==\n-----END RSA PRIVATE KEY-----\nafter\n";
    assert_eq!(
      redact(text),
      "before\n-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nafter\n"
    );
    assert_redacted(
      "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAA",
      &["b3BlbnNzaC1rZXk", "AAAA"],
      &["x\n-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]"],
    );
    // The BEGIN line cut off the tail: everything up to the END goes.
    assert_redacted(
      "b3BlbnNzaC1rZXk\nAAAA\n-----END PRIVATE KEY-----\nerror: bad key\n",
      &["b3BlbnNzaC1rZXk", "AAAA"],
      &["[REDACTED]-----END PRIVATE KEY-----\nerror: bad key\n"],
    );
    let public = "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----";
    assert_eq!(redact(public), public);
  }

  #[test]
  fn unterminated_quotes_and_punctuated_values_are_masked_whole() {
    assert_redacted(
      "API_KEY=\"unterminated rest of line\nnext line ok=1",
      &["unterminated", "rest of line"],
      &["API_KEY=[REDACTED]\nnext line ok=1"],
    );
    assert_redacted(
      "PASSWORD=abc;def,ghi ok=1\nTOKEN='a;b c\nSECRET=\"x\\\"y\" ok=2",
      &["abc", "def", "ghi", "a;b c", "y\""],
      &["PASSWORD=[REDACTED] ok=1", "ok=2"],
    );
  }

  #[test]
  fn tokens_survive_a_cut_first_line() {
    // The tail began mid-assignment: the key is gone, the token prefix still gives it away.
    assert_redacted(
      "EN=ghp_0123456789abcdefghijABCDEFGHIJ012345\nerror: auth failed\n",
      &["0123456789abcdefghij"],
      &["EN=ghp_[REDACTED]\nerror: auth failed\n"],
    );
  }

  #[test]
  fn ordinary_codegraph_output_survives() {
    let text = "Found 3 references to refreshToken:\n\
      src/auth/token.ts:12  export function refreshToken() {\n\
      src/auth/session.ts:40  const next = await refreshToken();\n\
      lib/auth/token:7 (no extension), see https://example.com/docs/auth?lang=en\n\
      The tokens are cached in src/cache/tokens.ts (token_count: 4, PASSWORD_FILE unset).\n\
      PWD=/home/me/project OLDPWD=/home/me\n";
    assert_eq!(redact(text), text);
  }

  #[test]
  fn code_assignments_to_secret_names_are_masked() {
    assert_redacted(
      "const password = getPassword();\nlet x = 1;",
      &["getPassword"],
      &["const password = [REDACTED]\nlet x = 1;"],
    );
  }
}
