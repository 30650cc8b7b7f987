//! What a matching line sits in, read from its file once: each line's text, the definition a
//! line sits in (the nearest line above it, less indented, that opens a definition by the
//! caller's patterns; the line itself when it opens another name's), and, in a Rust file, the
//! macro invocation whose block holds it (`cfg_rt! { … }`). Facts for the api layer's call-site
//! and blind-spot notes, computed here so that no regular expression runs on repository text on
//! the host's thread: every pass is linear in the file (the `regex` crate's engines are), and a
//! definition is looked for at most `max_lines_up` lines up.
//!
//! The Node runner's twin is `lib/runners/node/source-context.js`.

use std::borrow::Cow;

use regex::Regex;

/// Lines longer than this are not read for a definition's opening (none is that long).
const MAX_OPENING_CHARS: usize = 1000;

/// A file's bytes split into lines (`\n`; a `\r` stays on its line, as JavaScript's split has it).
pub struct Lines<'a> {
  bytes: &'a [u8],
  starts: Vec<usize>,
}

impl<'a> Lines<'a> {
  pub fn new(bytes: &'a [u8]) -> Self {
    let mut starts = vec![0];
    starts.extend(
      bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1),
    );
    Lines { bytes, starts }
  }

  /// How many lines the file has: a last line without its newline counts, an empty end does not.
  pub fn count(&self) -> u64 {
    let n = self.starts.len() as u64;
    if self.bytes.is_empty() || self.bytes.ends_with(b"\n") {
      n - 1
    } else {
      n
    }
  }

  /// Line `index` (0-based) as text, without its newline; "" past the end. Borrowed unless the
  /// line is not UTF-8.
  pub fn text(&self, index: usize) -> Cow<'a, str> {
    let Some(&start) = self.starts.get(index) else {
      return Cow::Borrowed("");
    };
    let end = self
      .starts
      .get(index + 1)
      .map_or(self.bytes.len(), |next| next - 1);
    String::from_utf8_lossy(&self.bytes[start..end.max(start)])
  }
}

/// The first `max_chars` characters of `text`.
pub fn prefix(text: &str, max_chars: usize) -> &str {
  text
    .char_indices()
    .nth(max_chars)
    .map_or(text, |(i, _)| &text[..i])
}

fn leading_whitespace(text: &str) -> usize {
  text.chars().take_while(|c| c.is_whitespace()).count()
}

/// The definitions the lines of one file open, by `openings` (each capturing the name in its
/// first group; a name in `not_names` is none), looked up as the lines are asked for.
pub struct Definitions<'a> {
  lines: &'a Lines<'a>,
  openings: &'a [&'a Regex],
  not_names: &'a [String],
  /// Per line: not read yet, or the name it opens (if any).
  opened: Vec<Opened>,
}

#[derive(Clone)]
enum Opened {
  Unread,
  Read(Option<String>),
}

impl<'a> Definitions<'a> {
  pub fn new(lines: &'a Lines<'a>, openings: &'a [&'a Regex], not_names: &'a [String]) -> Self {
    Definitions {
      lines,
      openings,
      not_names,
      opened: vec![Opened::Unread; lines.starts.len()],
    }
  }

  /// The name line `index` opens a definition of, or None.
  fn opened(&mut self, index: usize, text: &str) -> Option<String> {
    if let Opened::Read(known) = &self.opened[index] {
      return known.clone();
    }
    let line = prefix(text, MAX_OPENING_CHARS);
    let name = self.openings.iter().find_map(|pattern| {
      let name = pattern.captures(line)?.get(1)?.as_str();
      (!self.not_names.iter().any(|n| n == name)).then(|| name.to_owned())
    });
    self.opened[index] = Opened::Read(name.clone());
    name
  }

  /// The definition line `index` sits in: the name it opens itself when that is not `own`,
  /// else the nearest line above, less indented, that opens one (at most `max_up` lines up).
  pub fn enclosing(&mut self, index: usize, own: Option<&str>, max_up: usize) -> Option<String> {
    let text = self.lines.text(index);
    if let Some(name) = self.opened(index, &text) {
      if Some(name.as_str()) != own {
        return Some(name);
      }
    }
    let indent = leading_whitespace(&text);
    for i in (index.saturating_sub(max_up)..index).rev() {
      let above = self.lines.text(i);
      if above.trim().is_empty() || leading_whitespace(&above) >= indent {
        continue;
      }
      if let Some(name) = self.opened(i, &above) {
        return Some(name);
      }
    }
    None
  }
}

/// The macro `name!` whose block (braces, brackets or parentheses opened right after it) holds
/// each line of a Rust file, innermost first. Comments, strings (raw ones too) and character
/// literals are skipped; one pass over the bytes.
pub struct MacroLines {
  names: Vec<String>,
  /// Per line (index 0: line 1), the innermost macro's index in `names`.
  lines: Vec<Option<usize>>,
}

impl MacroLines {
  pub fn new(bytes: &[u8]) -> Self {
    let n = bytes.len();
    let mut names: Vec<String> = Vec::new();
    // Per open bracket, the innermost macro block it is in (its own, or an outer one's).
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut lines: Vec<Option<usize>> = vec![None];
    let mut i = 0;
    while i < n {
      let c = bytes[i];
      let mut next = i + 1;
      if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
        next = memchr_from(bytes, i, b'\n').unwrap_or(n);
      } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
        next = find_from(bytes, i + 2, b"*/").map_or(n, |end| end + 2);
      } else if c == b'"' {
        next = string_end(bytes, i);
      } else if c == b'\'' {
        next = char_literal_end(bytes, i).unwrap_or(i + 1);
      } else if matches!(c, b'{' | b'(' | b'[') {
        let own = macro_before(bytes, i).map(|name| {
          names.push(name);
          names.len() - 1
        });
        stack.push(own.or_else(|| stack.last().copied().flatten()));
      } else if matches!(c, b'}' | b')' | b']') {
        stack.pop();
      }
      // Every line that begins inside what was just passed takes the state after it.
      let state = stack.last().copied().flatten();
      #[allow(clippy::naive_bytecount)] // most tokens are one byte long
      let newlines = bytes[i..next.min(n)]
        .iter()
        .filter(|b| **b == b'\n')
        .count();
      lines.extend(std::iter::repeat_n(state, newlines));
      i = next;
    }
    MacroLines { names, lines }
  }

  /// The macro whose block holds line `line` (1-based), if any.
  pub fn at(&self, line: u64) -> Option<&str> {
    let index = usize::try_from(line.checked_sub(1)?).ok()?;
    let state = self
      .lines
      .get(index)
      .or(self.lines.last())
      .copied()
      .flatten()?;
    Some(self.names[state].as_str())
  }
}

fn memchr_from(bytes: &[u8], from: usize, byte: u8) -> Option<usize> {
  bytes[from..]
    .iter()
    .position(|b| *b == byte)
    .map(|p| from + p)
}

fn find_from(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
  bytes
    .get(from..)?
    .windows(needle.len())
    .position(|w| w == needle)
    .map(|p| from + p)
}

/// Past the string opening at `i` (`"…"` with escapes, or raw `r#"…"#` when `r`, `r#`… precede it).
fn string_end(bytes: &[u8], i: usize) -> usize {
  let window = &bytes[i.saturating_sub(8)..i];
  let hashes = window.iter().rev().take_while(|b| **b == b'#').count();
  let raw = window.len() > hashes && window[window.len() - hashes - 1] == b'r';
  let n = bytes.len();
  if raw {
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    return find_from(bytes, i + 1, &close).map_or(n, |end| end + close.len());
  }
  let mut j = i + 1;
  while j < n && bytes[j] != b'"' {
    j += if bytes[j] == b'\\' { 2 } else { 1 };
  }
  j + 1
}

/// Past a character literal opening at `i` (`'a'`, `'\n'`), or None (a lifetime, `'a`).
fn char_literal_end(bytes: &[u8], i: usize) -> Option<usize> {
  let rest = &bytes[i + 1..];
  if rest.first() == Some(&b'\\') {
    // `'\x'`: the escaped character is one that is not a newline.
    let escaped = *rest.get(1)?;
    return (escaped != b'\n' && rest.get(2) == Some(&b'\'')).then_some(i + 4);
  }
  let first = *rest.first()?;
  if first == b'\'' || first == b'\\' {
    return None;
  }
  // One character, however many bytes it takes in UTF-8.
  let width = utf8_width(first);
  (rest.get(width) == Some(&b'\'')).then_some(i + 1 + width + 1)
}

fn utf8_width(first: u8) -> usize {
  match first {
    0xF0..=0xF7 => 4,
    0xE0..=0xEF => 3,
    0xC0..=0xDF => 2,
    _ => 1,
  }
}

/// The macro name right before an opening at `i` (`name!` and spaces), within 120 bytes.
fn macro_before(bytes: &[u8], i: usize) -> Option<String> {
  let window = &bytes[i.saturating_sub(120)..i];
  let end = window.len()
    - window
      .iter()
      .rev()
      .take_while(|b| b.is_ascii_whitespace())
      .count();
  if end == 0 || window[end - 1] != b'!' {
    return None;
  }
  let word_end = end - 1;
  let is_word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
  let word_start = word_end
    - window[..word_end]
      .iter()
      .rev()
      .take_while(|b| is_word(b))
      .count();
  // The name begins at its first letter or underscore.
  let word = &window[word_start..word_end];
  let first = word
    .iter()
    .position(|b| b.is_ascii_alphabetic() || *b == b'_')?;
  Some(String::from_utf8_lossy(&word[first..]).into_owned())
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn macro_blocks_hold_their_lines() {
    let source = b"cfg_rt! {\n    pub fn a() {\n        x();\n    }\n}\nfn b() {}\nquote!(\n  \"}\" // }\n  y\n)\n";
    let lines = MacroLines::new(source);
    assert_eq!(lines.at(1), None);
    assert_eq!(lines.at(2), Some("cfg_rt"));
    assert_eq!(lines.at(3), Some("cfg_rt"));
    assert_eq!(lines.at(6), None);
    assert_eq!(lines.at(8), Some("quote"));
    assert_eq!(lines.at(9), Some("quote"));
  }

  #[test]
  fn lines_count_as_the_file_has_them() {
    assert_eq!(Lines::new(b"a\nb\n").count(), 2);
    assert_eq!(Lines::new(b"a\nb").count(), 2);
    assert_eq!(Lines::new(b"").count(), 0);
    assert_eq!(Lines::new(b"a\r\nb").text(0), "a\r");
  }

  #[test]
  fn the_enclosing_definition_is_the_nearest_less_indented_opening() {
    let source = b"def outer():\n    def inner():\n        pass\n    target()\n";
    let lines = Lines::new(source);
    let opening = Regex::new(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_$][\w$]*)").unwrap();
    let openings = [&opening];
    let mut defs = Definitions::new(&lines, &openings, &[]);
    assert_eq!(
      defs.enclosing(3, Some("target"), 5000).as_deref(),
      Some("outer")
    );
    assert_eq!(
      defs.enclosing(2, Some("target"), 5000).as_deref(),
      Some("inner")
    );
    assert_eq!(
      defs.enclosing(1, Some("inner"), 5000).as_deref(),
      Some("outer")
    );
  }
}
