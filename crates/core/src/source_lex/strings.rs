//! The lexer's literals: quoted strings, template literals and the code in them, Python's
//! strings, Rust's raw strings, character literals and lifetimes, regular expressions.

use super::{is_id_char, is_id_start, Kind, Lexer, MAX_NESTING};

/// Python's string prefixes, lowercased.
pub(super) const PY_PREFIXES: [&str; 11] =
  ["r", "u", "b", "f", "br", "rb", "fr", "rf", "t", "tr", "rt"];
/// After these words a `/` opens a regular expression.
const REGEX_AFTER: [&str; 14] = [
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
];

impl Lexer<'_> {
  fn string_token(&mut self, from: usize) -> usize {
    self.token(Kind::Str, String::new(), from, self.line)
  }

  /// A string's `\` at `i`: it and the character it escapes (a line break counted).
  fn escape(&mut self) {
    if self.at(self.i + 1) == Some(b'\n') {
      self.line += 1;
    }
    self.i += 2;
  }

  /// One character `c` of a string's body, at `i` (a line break counted).
  fn step(&mut self, c: u8) {
    if c == b'\n' {
      self.line += 1;
    }
    self.i += 1;
  }

  /// The string token `t` the text ended in: never closed.
  fn unclosed(&mut self, t: usize, part: usize) {
    self.i = self.text.len();
    self.out.unbalanced = true;
    self.ended(t, part);
  }

  /// A quoted string whose body starts at `i`: escapes skip a character; `one_line` ends it at a newline.
  pub(super) fn quoted(&mut self, from: usize, quote: u8, one_line: bool) {
    let t = self.string_token(from);
    while self.i < self.text.len() {
      let c = self.text[self.i];
      if c == b'\\' {
        self.escape();
        continue;
      }
      if c == quote {
        self.i += 1;
        return self.ended(t, from);
      }
      if c == b'\n' && one_line {
        return self.ended(t, from);
      }
      self.step(c);
    }
    self.unclosed(t, from);
  }

  /// Code inside a string (`${…}`, an f-string's `{…}`), from the `{` at `i` past its `}`.
  fn inner(&mut self) {
    self.i += 1;
    self.in_string += 1;
    if self.in_string > MAX_NESTING {
      self.out.unbalanced = true;
      self.i = self.text.len();
    } else {
      self.code(true);
    }
    if self.at(self.i) == Some(b'}') {
      self.i += 1;
    } else {
      self.out.unbalanced = true;
    }
    self.in_string -= 1;
  }

  /// A string's code part at the `{` at `brace`: the string's text since `part` blanked up to it,
  /// the code read past its `}`; where the string's next part begins (that `}`).
  fn code_part(&mut self, part: usize, brace: usize) -> usize {
    self.blank(part, brace + 1);
    self.i = brace;
    self.inner();
    self.i - 1
  }

  pub(super) fn template(&mut self, from: usize) {
    let t = self.string_token(from);
    self.i += 1;
    let mut part = from;
    while self.i < self.text.len() {
      let c = self.text[self.i];
      if c == b'\\' {
        self.escape();
      } else if c == b'`' {
        self.i += 1;
        return self.ended(t, part);
      } else if c == b'$' && self.at(self.i + 1) == Some(b'{') {
        part = self.code_part(part, self.i + 1);
      } else {
        self.step(c);
      }
    }
    self.unclosed(t, part);
  }

  pub(super) fn python_string(&mut self, from: usize, q: usize, f: bool) {
    let quote = self.text[q];
    let triple = self.at(q + 1) == Some(quote) && self.at(q + 2) == Some(quote);
    let t = self.string_token(from);
    self.i = q + if triple { 3 } else { 1 };
    let mut part = from;
    while self.i < self.text.len() {
      let c = self.text[self.i];
      let next = self.at(self.i + 1);
      if c == b'\\' {
        self.escape();
      } else if c == quote
        && (!triple || (next == Some(quote) && self.at(self.i + 2) == Some(quote)))
      {
        self.i += if triple { 3 } else { 1 };
        return self.ended(t, part);
      } else if c == b'\n' && !triple {
        return self.ended(t, part);
      } else if f && (c == b'{' || c == b'}') && next == Some(c) {
        self.i += 2;
      } else if f && c == b'{' {
        part = self.code_part(part, self.i);
      } else {
        self.step(c);
      }
    }
    self.unclosed(t, part);
  }

  /// Rust's raw string at `q` (`#`… then `"`), or false.
  fn raw_string(&mut self, from: usize, q: usize) -> bool {
    let hashes = self.text[q..].iter().take_while(|b| **b == b'#').count();
    if self.at(q + hashes) != Some(b'"') {
      return false;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let start = q + hashes + 1;
    let end = self.text[start.min(self.text.len())..]
      .windows(close.len())
      .position(|w| w == close.as_slice())
      .map(|p| start + p);
    let t = self.string_token(from);
    let to = end.map_or(self.text.len(), |e| e + close.len());
    if end.is_none() {
      self.out.unbalanced = true;
    }
    #[allow(clippy::naive_bytecount)] // a raw string is short
    let newlines = self.text[self.i..to]
      .iter()
      .filter(|b| **b == b'\n')
      .count();
    self.line += newlines as u64;
    self.i = to;
    self.ended(t, from);
    true
  }

  /// A `kind` token started at `from` whose text runs from `text_from` to the end of the word's
  /// characters at `start`.
  fn word_token(&mut self, kind: Kind, from: usize, text_from: usize, start: usize) {
    let mut k = start;
    while is_id_char(self.at(k), false) {
      k += 1;
    }
    self.i = k;
    let text = String::from_utf8_lossy(&self.text[text_from..k]).into_owned();
    self.token(kind, text, from, self.line);
  }

  /// Rust's `'`: a character literal (`'a'`, `'\n'`, `b'x'`) or a lifetime (`'a`).
  pub(super) fn rust_quote(&mut self, from: usize, q: usize) {
    let n = self.text.len();
    if self.at(q + 1) == Some(b'\\') {
      let mut k = q + 3;
      while k < n.min(q + 14) && self.at(k) != Some(b'\n') {
        if self.at(k) == Some(b'\'') {
          self.i = k + 1;
          let t = self.string_token(from);
          return self.ended(t, from);
        }
        k += 1;
      }
    } else {
      let c = self.at(q + 1);
      let width = match c {
        Some(0xF0..=0xF7) => 4,
        Some(0xE0..=0xEF) => 3,
        Some(0xC0..=0xDF) => 2,
        _ => 1,
      };
      if c.is_some_and(|c| c != b'\n' && c != b'\'') && self.at(q + 1 + width) == Some(b'\'') {
        self.i = q + 2 + width;
        let t = self.string_token(from);
        return self.ended(t, from);
      }
      if is_id_start(c, false) {
        self.word_token(Kind::Lifetime, from, q, q + 2);
        return;
      }
    }
    self.i = q + 1;
    self.token(Kind::Punct, "'".into(), from, self.line);
  }

  /// A word that opens a Rust literal (`r"…"`, `br#"…"#`, `b'x'`, `c"…"`) or raw identifier; false else.
  pub(super) fn rust_prefixed(&mut self, word: &str, j: usize) -> bool {
    let from = self.i;
    let next = self.at(j);
    if matches!(word, "r" | "br" | "cr") && matches!(next, Some(b'"' | b'#')) {
      self.i = j;
      if self.raw_string(from, j) {
        return true;
      }
      self.i = from;
      if word == "r" && next == Some(b'#') && is_id_start(self.at(j + 1), false) {
        self.word_token(Kind::Id, from, from, j + 1);
        return true;
      }
      return false;
    }
    if matches!(word, "b" | "c") && next == Some(b'"') {
      self.i = j + 1;
      self.quoted(from, b'"', false);
      return true;
    }
    if word == "b" && next == Some(b'\'') {
      self.rust_quote(from, j);
      return true;
    }
    false
  }

  pub(super) fn regex_allowed(&self) -> bool {
    match self.out.tokens.last() {
      None => true,
      Some(prev) if prev.kind == Kind::Punct => !matches!(prev.text.as_str(), ")" | "]" | "}"),
      Some(prev) => prev.kind == Kind::Id && REGEX_AFTER.contains(&prev.text.as_str()),
    }
  }

  /// A regular expression literal at `i` (on one line), or false.
  pub(super) fn regex(&mut self) -> bool {
    let n = self.text.len();
    let mut k = self.i + 1;
    let mut class = false;
    while k < n {
      let c = self.text[k];
      if c == b'\n' {
        return false;
      }
      if c == b'\\' {
        if self.at(k + 1) == Some(b'\n') {
          return false;
        }
        k += 2;
        continue;
      }
      if c == b'[' {
        class = true;
      } else if c == b']' {
        class = false;
      } else if c == b'/' && !class {
        break;
      }
      k += 1;
    }
    if k >= n {
      return false;
    }
    k += 1;
    while is_id_char(self.at(k), false) {
      k += 1;
    }
    let from = self.i;
    self.i = k;
    let t = self.string_token(from);
    self.ended(t, from);
    true
  }
}
