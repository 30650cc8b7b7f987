//! A source file's tokens, for its outline and for telling code from text. It knows, per
//! language, what is not code: line and block comments (nested in Rust), strings (Rust's raw
//! `r#"…"#`, byte and character literals told from lifetimes; Python's prefixed and
//! triple-quoted ones, the code in an f-string's braces; JavaScript's template literals with
//! `${}` nested, regular expression literals where the previous token says one may start).
//! Linear in the file: one pass; strings in code in strings nested deeper than [`MAX_NESTING`]
//! give up (`unbalanced`). Definitions are read from the tokens by [`definitions`].
//!
//! The shared corpus `__test__/corpora/outline.json` holds both builds (native, WebAssembly) to
//! the same answers.

pub mod definitions;
mod strings;

/// Code in strings in code nested deeper than this gives up.
const MAX_NESTING: usize = 64;

/// Which lexer a file is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
  Rust,
  Python,
  /// TypeScript and JavaScript.
  Script,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
  Id,
  Punct,
  /// A string, character or regular expression literal (its text is not kept).
  Str,
  Num,
  Lifetime,
}

/// One token: its text (none for a literal), the lines it starts and ends on, its byte offsets,
/// whether it is the first of its line outside any string (`first`; Python: `logical`, it opens
/// a logical line), the innermost open bracket around it (`up`), a bracket's match (`pair`).
#[derive(Debug, Clone)]
pub struct Token {
  pub kind: Kind,
  pub text: String,
  pub line: u64,
  pub end: u64,
  pub from: usize,
  pub to: usize,
  pub first: bool,
  pub logical: bool,
  pub up: Option<usize>,
  pub pair: Option<usize>,
}

/// The tokens, the byte ranges that are comment or string, whether something did not close.
#[derive(Debug, Clone, Default)]
pub struct Lexed {
  pub tokens: Vec<Token>,
  pub blanks: Vec<(usize, usize)>,
  pub unbalanced: bool,
}

/// The language a file's extension (without the dot, any case) names, and the lexer that reads it.
pub fn language_of_extension(extension: &str) -> Option<(&'static str, Lang)> {
  match extension.to_ascii_lowercase().as_str() {
    "rs" => Some(("rust", Lang::Rust)),
    "py" | "pyw" | "pyi" => Some(("python", Lang::Python)),
    "ts" | "tsx" | "mts" | "cts" => Some(("typescript", Lang::Script)),
    "js" | "jsx" | "mjs" | "cjs" => Some(("javascript", Lang::Script)),
    _ => None,
  }
}

/// Longest first: the punctuation read as one token.
fn punctuation(lang: Lang) -> &'static [&'static str] {
  match lang {
    Lang::Rust => &["->", "=>", "::"],
    Lang::Python => &["->", "**", "//", "==", "!=", "<=", ">=", ":="],
    Lang::Script => &[
      "===", "!==", "...", "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "+=", "-=", "++",
      "--",
    ],
  }
}

fn is_digit(c: Option<u8>) -> bool {
  c.is_some_and(|c| c.is_ascii_digit())
}
fn is_id_start(c: Option<u8>, dollar: bool) -> bool {
  c.is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 || (dollar && c == b'$'))
}
fn is_id_char(c: Option<u8>, dollar: bool) -> bool {
  is_id_start(c, dollar) || is_digit(c)
}
fn is_space(c: u8) -> bool {
  matches!(c, b' ' | b'\t' | b'\r' | 0x0c)
}

struct Lexer<'a> {
  text: &'a [u8],
  lang: Lang,
  dollar: bool,
  out: Lexed,
  brackets: Vec<usize>,
  i: usize,
  line: u64,
  last_line: u64,
  in_string: usize,
  continued: u64,
  /// The brackets a string's code may close: those opened inside it.
  floor: usize,
}

/// The tokens of `text` in `lang`.
pub fn lex(text: &str, lang: Lang) -> Lexed {
  let mut lexer = Lexer {
    text: text.as_bytes(),
    lang,
    dollar: lang == Lang::Script,
    out: Lexed::default(),
    brackets: Vec::new(),
    i: 0,
    line: 1,
    last_line: 0,
    in_string: 0,
    continued: 0,
    floor: 0,
  };
  lexer.code(false);
  if !lexer.brackets.is_empty() {
    lexer.out.unbalanced = true;
  }
  lexer.out
}

/// `text` with its comments and strings as spaces (newlines kept): what is code, where it is.
pub fn masked(text: &str, blanks: &[(usize, usize)]) -> String {
  let mut bytes = text.as_bytes().to_vec();
  for &(from, to) in blanks {
    for b in &mut bytes[from..to] {
      if *b != b'\n' {
        *b = b' ';
      }
    }
  }
  String::from_utf8_lossy(&bytes).into_owned()
}

impl Lexer<'_> {
  fn at(&self, k: usize) -> Option<u8> {
    self.text.get(k).copied()
  }

  fn blank(&mut self, from: usize, to: usize) {
    if to > from {
      self.out.blanks.push((from, to));
    }
  }

  fn token(&mut self, kind: Kind, text: String, from: usize, start_line: u64) -> usize {
    let first = self.in_string == 0 && start_line != self.last_line;
    let up = self.brackets.last().copied();
    let logical = first && self.brackets.is_empty() && self.continued != start_line;
    self.out.tokens.push(Token {
      kind,
      text,
      line: start_line,
      end: self.line,
      from,
      to: self.i,
      first,
      logical,
      up,
      pair: None,
    });
    self.last_line = self.line;
    self.out.tokens.len() - 1
  }

  /// A string token whose text has been passed: blanked, its end line set.
  fn ended(&mut self, token: usize, from: usize) {
    self.blank(from, self.i);
    let (line, i) = (self.line, self.i);
    let t = &mut self.out.tokens[token];
    t.end = line;
    t.to = i;
    self.last_line = line;
  }

  fn line_comment(&mut self) {
    let to = self.text[self.i..]
      .iter()
      .position(|b| *b == b'\n')
      .map_or(self.text.len(), |p| self.i + p);
    self.blank(self.i, to);
    self.i = to;
  }

  fn block_comment(&mut self, nested: bool) {
    let from = self.i;
    let mut depth = 0usize;
    let mut open = true;
    while self.i < self.text.len() {
      let (c, next) = (self.at(self.i), self.at(self.i + 1));
      if c == Some(b'/') && next == Some(b'*') && (nested || depth == 0) {
        depth += 1;
        self.i += 2;
      } else if c == Some(b'*') && next == Some(b'/') {
        depth = depth.saturating_sub(1);
        self.i += 2;
        if depth == 0 {
          open = false;
          break;
        }
      } else {
        if c == Some(b'\n') {
          self.line += 1;
        }
        self.i += 1;
      }
    }
    if open {
      self.out.unbalanced = true;
    }
    self.blank(from, self.i);
  }

  fn bracket(&mut self, p: u8, from: usize) {
    if matches!(p, b'(' | b'[' | b'{') {
      let t = self.token(Kind::Punct, (p as char).to_string(), from, self.line);
      self.brackets.push(t);
      return;
    }
    let want = match p {
      b')' => "(",
      b']' => "[",
      _ => "{",
    };
    let open = (self.floor..self.brackets.len())
      .rev()
      .find(|&k| self.out.tokens[self.brackets[k]].text == want);
    if open.is_none() || open != self.brackets.len().checked_sub(1) {
      self.out.unbalanced = true;
    }
    let pair = open.map(|k| self.brackets[k]);
    if let Some(k) = open {
      self.brackets.truncate(k);
    }
    let t = self.token(Kind::Punct, (p as char).to_string(), from, self.line);
    // A closing bracket is inside what it closes: it opens no logical line.
    self.out.tokens[t].logical = false;
    if let Some(pair) = pair {
      self.out.tokens[t].pair = Some(pair);
      self.out.tokens[pair].pair = Some(t);
    }
  }

  /// Code from `i`: to the end, or (`until_brace`) to the `}` that closes the string's code.
  fn code(&mut self, until_brace: bool) {
    let base = self.brackets.len();
    let outer = self.floor;
    self.floor = base;
    let (lang, dollar) = (self.lang, self.dollar);
    while self.i < self.text.len() {
      let from = self.i;
      let c = self.text[from];
      let next = self.at(from + 1);
      if c == b'\n' {
        self.line += 1;
        self.i += 1;
      } else if is_space(c) {
        self.i += 1;
      } else if lang == Lang::Python
        && c == b'\\'
        && (next == Some(b'\n') || (next == Some(b'\r') && self.at(from + 2) == Some(b'\n')))
      {
        self.continued = self.line + 1;
        self.i += 1;
      } else if (lang == Lang::Python && c == b'#')
        || (lang != Lang::Python && c == b'/' && next == Some(b'/'))
      {
        self.line_comment();
      } else if lang != Lang::Python && c == b'/' && next == Some(b'*') {
        self.block_comment(lang == Lang::Rust);
      } else if until_brace && c == b'}' && self.brackets.len() <= base {
        break;
      } else if is_id_start(Some(c), dollar) {
        let mut j = from + 1;
        while is_id_char(self.at(j), dollar) {
          j += 1;
        }
        let word = String::from_utf8_lossy(&self.text[from..j]).into_owned();
        if lang == Lang::Rust && self.rust_prefixed(&word, j) {
          continue;
        }
        let lower = word.to_ascii_lowercase();
        if lang == Lang::Python
          && matches!(self.at(j), Some(b'"' | b'\''))
          && strings::PY_PREFIXES.contains(&lower.as_str())
        {
          self.python_string(from, j, lower.contains('f'));
          continue;
        }
        self.i = j;
        self.token(Kind::Id, word, from, self.line);
      } else if c.is_ascii_digit() {
        let mut j = from + 1;
        while is_id_char(self.at(j), false)
          || (self.at(j) == Some(b'.') && is_digit(self.at(j + 1)))
        {
          j += 1;
        }
        self.i = j;
        let text = String::from_utf8_lossy(&self.text[from..j]).into_owned();
        self.token(Kind::Num, text, from, self.line);
      } else if c == b'"' && lang != Lang::Python {
        self.i += 1;
        self.quoted(from, b'"', lang == Lang::Script);
      } else if c == b'\'' && lang == Lang::Script {
        self.i += 1;
        self.quoted(from, b'\'', true);
      } else if c == b'\'' && lang == Lang::Rust {
        self.rust_quote(from, from);
      } else if (c == b'"' || c == b'\'') && lang == Lang::Python {
        self.python_string(from, from, false);
      } else if c == b'`' && lang == Lang::Script {
        self.template(from);
      } else if c == b'/' && lang == Lang::Script && self.regex_allowed() && self.regex() {
        // a regular expression literal, passed
      } else {
        let p = punctuation(lang)
          .iter()
          .find(|p| self.text[from..].starts_with(p.as_bytes()))
          .map_or_else(|| (c as char).to_string(), |p| (*p).to_owned());
        self.i += p.len();
        if p.len() == 1 && matches!(c, b'(' | b'[' | b'{' | b')' | b']' | b'}') {
          self.bracket(c, from);
        } else {
          self.token(Kind::Punct, p, from, self.line);
        }
      }
    }
    self.floor = outer;
  }
}

#[cfg(test)]
mod tests;
