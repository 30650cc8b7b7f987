//! What a matching line sits in, read from its file once by the lexer (`source_lex`) in a
//! language it knows: whether the match is code or only in a comment, docstring or string, the
//! innermost definition whose lines hold it (never one that ended before), the `macro_rules!`
//! whose template holds it, and, in a Rust file, the macro invocation whose block holds it
//! (`cfg_rt! { … }`). Facts for the api layer's call-site and blind-spot notes, computed here so
//! that nothing runs on repository text on the host's thread. In a language the lexer does not
//! know, or a file where something did not close, none of these is claimed.

use std::borrow::Cow;

use crate::source_lex::definitions::{definitions, Definition};
use crate::source_lex::{lex, masked, Kind, Lang, Token};

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

/// What the lexer says of one file's lines (a file of a language it knows, where everything closed).
pub struct FileFacts {
  tokens: Vec<Token>,
  code: String,
  starts: Vec<usize>,
  defs: Vec<Definition>,
  rust: bool,
}

/// Where a line sits (see [`FileFacts::place`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
  pub within: Option<String>,
  pub macro_rules: Option<String>,
  pub in_macro: Option<String>,
}

impl FileFacts {
  /// The facts of `text` read by `lang`; None where something did not close (nothing is sure).
  pub fn new(text: &str, lang: Lang) -> Option<Self> {
    let lexed = lex(text, lang);
    if lexed.unbalanced {
      return None;
    }
    let code = masked(text, &lexed.blanks);
    let defs = definitions(lang, &lexed, text, &code);
    let mut starts = vec![0];
    starts.extend(
      code
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'\n')
        .map(|(i, _)| i + 1),
    );
    Some(FileFacts {
      tokens: lexed.tokens,
      code,
      starts,
      defs,
      rust: lang == Lang::Rust,
    })
  }

  /// Line `line` (1-based) with its comments and strings blanked.
  pub fn code_line(&self, line: u64) -> &str {
    let index = usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX);
    let Some(&start) = self.starts.get(index) else {
      return "";
    };
    let end = self
      .starts
      .get(index + 1)
      .map_or(self.code.len(), |next| next - 1);
    self.code.get(start..end.max(start)).unwrap_or("")
  }

  /// Where line `line` sits: the innermost definition whose lines hold it (not `own`'s own
  /// opening line), or the `macro_rules!` whose template holds it; in Rust, the macro block.
  pub fn place(&self, line: u64, own: Option<&str>) -> Place {
    let innermost = self.defs.iter().rfind(|d| {
      d.line <= line && line <= d.end_line && !(d.line == line && Some(d.name.as_str()) == own)
    });
    let mut place = Place::default();
    match innermost {
      Some(d) if d.kind == "macro" => place.macro_rules = Some(d.name.clone()),
      Some(d) if d.in_macro.is_some() => place.macro_rules.clone_from(&d.in_macro),
      Some(d) if d.kind == "impl" => place.within = Some(format!("impl {}", d.name)),
      Some(d) => place.within = Some(d.name.clone()),
      None => {}
    }
    if self.rust {
      place.in_macro = self.macro_block(line);
    }
    place
  }

  /// The macro `name!` whose block (opened right after it) holds line `line`, innermost first.
  fn macro_block(&self, line: u64) -> Option<String> {
    let at = self.tokens.partition_point(|t| t.line < line);
    let token = if self.tokens.get(at).is_some_and(|t| t.line == line) {
      at
    } else {
      at.checked_sub(1)?
    };
    let mut open = self.tokens[token].up;
    while let Some(o) = open {
      let bang = o.checked_sub(1).map(|b| &self.tokens[b]);
      let name = o.checked_sub(2).map(|n| &self.tokens[n]);
      if let (Some(bang), Some(name)) = (bang, name) {
        if bang.kind == Kind::Punct
          && bang.text == "!"
          && name.kind == Kind::Id
          && name.text != "macro_rules"
        {
          return Some(name.text.clone());
        }
      }
      open = self.tokens[o].up;
    }
    None
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn lines_count_as_the_file_has_them() {
    assert_eq!(Lines::new(b"a\nb\n").count(), 2);
    assert_eq!(Lines::new(b"a\nb").count(), 2);
    assert_eq!(Lines::new(b"").count(), 0);
    assert_eq!(Lines::new(b"a\r\nb").text(0), "a\r");
  }

  #[test]
  fn a_line_sits_in_the_innermost_definition_that_holds_it() {
    let text = "fn outer() {\n    fn inner() {\n        x();\n    }\n    target();\n}\n";
    let facts = FileFacts::new(text, Lang::Rust).unwrap();
    assert_eq!(
      facts.place(5, Some("target")).within.as_deref(),
      Some("outer")
    );
    assert_eq!(
      facts.place(3, Some("target")).within.as_deref(),
      Some("inner")
    );
    assert_eq!(
      facts.place(2, Some("inner")).within.as_deref(),
      Some("outer")
    );
  }

  #[test]
  fn macro_templates_and_macro_blocks_hold_their_lines() {
    let text = "macro_rules! make {\n    ($n:ident) => { fn $n() { go() } };\n}\ncfg_rt! {\n    pub fn a() {\n        x();\n    }\n}\n";
    let facts = FileFacts::new(text, Lang::Rust).unwrap();
    let template = facts.place(2, None);
    assert_eq!(
      (template.within, template.macro_rules.as_deref()),
      (None, Some("make"))
    );
    let block = facts.place(6, None);
    assert_eq!(
      (block.within.as_deref(), block.in_macro.as_deref()),
      (Some("a"), Some("cfg_rt"))
    );
    assert_eq!(facts.place(9, None), Place::default());
  }

  #[test]
  fn comments_and_docstrings_are_not_code() {
    let text = "def f():\n    \"\"\"Call g() like\n    g(1)\n    \"\"\"\n    g(2)  # g(3)\n";
    let facts = FileFacts::new(text, Lang::Python).unwrap();
    assert_eq!(facts.code_line(3).trim(), "");
    assert_eq!(facts.code_line(5).trim(), "g(2)");
    assert!(FileFacts::new("fn f() {", Lang::Rust).is_none());
  }
}
