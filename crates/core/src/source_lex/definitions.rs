//! A file's definitions from its tokens. Rust and JavaScript blocks end at their closing brace,
//! Python's where a logical line is indented no deeper than the definition's.

mod script;

use super::{Kind, Lang, Lexed, Token};

/// Past this many tokens, a definition's body is not looked for (its opening is not one).
const MAX_HEAD_TOKENS: usize = 512;
const MAX_NAME_CHARS: usize = 120;
/// What may stand before a Rust `impl` item (else it is `impl Trait` in a type).
const BEFORE_IMPL: [&str; 7] = ["{", "}", ";", "]", "*", "unsafe", "default"];

/// One definition: 1-based lines, the whole of it; `parent` indexes the same list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
  pub name: String,
  pub kind: &'static str,
  pub line: u64,
  pub end_line: u64,
  pub parent: Option<usize>,
  /// The `macro_rules!` whose template holds it.
  pub in_macro: Option<String>,
}

/// A body: its `{` (None for a head ended by `;`) and its `}` (or that `;`).
#[derive(Clone, Copy)]
struct Body {
  open: Option<usize>,
  close: usize,
}

struct Outliner<'a> {
  tokens: &'a [Token],
  text: &'a str,
  code: &'a str,
  lang: Lang,
  defs: Vec<Definition>,
  /// The definitions whose body holds the current token: (definition, its closing token).
  open: Vec<(usize, usize)>,
}

/// The whitespace a name's text is collapsed on.
fn collapse(text: &str) -> String {
  let words: Vec<&str> = text
    .split([' ', '\t', '\n', '\r', '\x0c'])
    .filter(|w| !w.is_empty())
    .collect();
  words.join(" ")
}

/// How wide a line's indentation is (a tab to the next multiple of 8).
pub fn indent_of(text: &str, from: usize) -> u64 {
  let mut width = 0;
  for b in &text.as_bytes()[from..] {
    match b {
      b' ' => width += 1,
      b'\t' => width += 8 - width % 8,
      _ => break,
    }
  }
  width
}

/// The definitions of the tokens of `lexed` (of `text`; `code`: `text` with its comments and
/// strings blanked), in source order.
pub fn definitions(lang: Lang, lexed: &Lexed, text: &str, code: &str) -> Vec<Definition> {
  let mut outliner = Outliner {
    tokens: &lexed.tokens,
    text,
    code,
    lang,
    defs: Vec::new(),
    open: Vec::new(),
  };
  if lang == Lang::Python {
    outliner.python();
  } else {
    for k in 0..lexed.tokens.len() {
      if lexed.tokens[k].kind != Kind::Id {
        continue;
      }
      if lang == Lang::Rust {
        outliner.rust(k);
      } else {
        outliner.script(k);
      }
    }
  }
  outliner.defs
}

impl Outliner<'_> {
  fn is(&self, k: usize, kind: Kind, text: Option<&str>) -> bool {
    self
      .tokens
      .get(k)
      .is_some_and(|t| t.kind == kind && text.is_none_or(|w| t.text == w))
  }
  fn is_p(&self, k: usize, text: &str) -> bool {
    self.is(k, Kind::Punct, Some(text))
  }
  fn is_id(&self, k: usize) -> bool {
    self.is(k, Kind::Id, None)
  }

  fn parent_at(&mut self, k: usize) -> Option<usize> {
    while self.open.last().is_some_and(|&(_, close)| close < k) {
      self.open.pop();
    }
    self.open.last().map(|&(def, _)| def)
  }

  fn add(
    &mut self,
    name: String,
    kind: &'static str,
    lines: (u64, u64),
    parent: Option<usize>,
    close: Option<usize>,
  ) {
    let in_macro = parent.and_then(|p| {
      let up = &self.defs[p];
      if up.kind == "macro" && self.lang == Lang::Rust {
        Some(up.name.clone())
      } else {
        up.in_macro.clone()
      }
    });
    self.defs.push(Definition {
      name,
      kind,
      line: lines.0,
      end_line: lines.1,
      parent,
      in_macro,
    });
    if let Some(close) = close {
      self.open.push((self.defs.len() - 1, close));
    }
  }

  /// From token `k`: the body, or the `;` that ends a head without one, or None. In a script,
  /// braces inside `<…>` or right after `:` are a type's (`<T extends { a: 1 }>`, `): { a: 1 } {`),
  /// passed.
  fn body(&self, k: usize) -> Option<Body> {
    let mut j = k;
    let mut angle = 0usize;
    while j < self.tokens.len() && j < k + MAX_HEAD_TOKENS {
      let t = &self.tokens[j];
      if t.kind == Kind::Punct {
        match t.text.as_str() {
          "<" if self.lang == Lang::Script => angle += 1,
          ">" if angle > 0 => angle -= 1,
          "{" if angle > 0 || (self.lang == Lang::Script && j > 0 && self.is_p(j - 1, ":")) => {
            j = t.pair?;
          }
          "{" => {
            return t.pair.map(|close| Body {
              open: Some(j),
              close,
            })
          }
          "(" | "[" => j = t.pair?,
          ";" => {
            return Some(Body {
              open: None,
              close: j,
            })
          }
          ")" | "]" | "}" => return None,
          _ => {}
        }
      }
      j += 1;
    }
    None
  }

  fn ends(&self, b: Body) -> u64 {
    self.tokens[b.close].line
  }

  /// The offset of the start of the line holding offset `at`.
  fn line_start(&self, at: usize) -> usize {
    self.text.as_bytes()[..at]
      .iter()
      .rposition(|b| *b == b'\n')
      .map_or(0, |p| p + 1)
  }
  fn indent_at(&self, k: usize) -> u64 {
    indent_of(self.text, self.line_start(self.tokens[k].from))
  }

  fn rust(&mut self, k: usize) {
    let tokens = self.tokens;
    let t = &tokens[k];
    if t.text == "macro_rules"
      && self.is_p(k + 1, "!")
      && self.is_id(k + 2)
      && self
        .tokens
        .get(k + 3)
        .and_then(|t| t.pair)
        .is_some_and(|m| m > k + 3)
    {
      let close = self.tokens[k + 3].pair.unwrap_or(k + 3);
      let parent = self.parent_at(k);
      let lines = (t.line, self.tokens[close].line);
      return self.add(
        self.tokens[k + 2].text.clone(),
        "macro",
        lines,
        parent,
        Some(close),
      );
    }
    if t.text == "impl" {
      return self.rust_impl(k);
    }
    let kind = match t.text.as_str() {
      "fn" => "function",
      "struct" => "struct",
      "enum" => "enum",
      "trait" => "trait",
      "mod" => "module",
      _ => return,
    };
    let mut next = k + 1;
    let name = if self.is_id(next) {
      self.tokens[next].text.clone()
    } else if self.is_p(next, "$") && self.is_id(next + 1) {
      next += 1;
      format!("${}", self.tokens[next].text)
    } else {
      return;
    };
    let Some(b) = self.body(next + 1) else {
      return;
    };
    let parent = self.parent_at(k);
    let in_impl = parent.is_some_and(|p| matches!(self.defs[p].kind, "impl" | "trait"));
    let kind = if kind == "function" && in_impl {
      "method"
    } else {
      kind
    };
    let lines = (t.line, self.ends(b));
    self.add(name, kind, lines, parent, b.open.map(|_| b.close));
  }

  fn rust_impl(&mut self, k: usize) {
    if k > 0 && !BEFORE_IMPL.contains(&self.tokens[k - 1].text.as_str()) {
      return;
    }
    let mut j = k + 1;
    if self.is_p(j, "<") {
      let mut depth = 0i64;
      while j < self.tokens.len() && j < k + MAX_HEAD_TOKENS {
        depth += match self.tokens[j].text.as_str() {
          "<" => 1,
          ">" => -1,
          _ => 0,
        };
        if depth == 0 {
          break;
        }
        j += 1;
      }
      j += 1;
    }
    let Some(b) = self.body(j) else {
      return;
    };
    let Some(open) = b.open else {
      return;
    };
    // The header ends before its `where` clause.
    let end = (j..open)
      .find(|&w| self.is(w, Kind::Id, Some("where")))
      .unwrap_or(open);
    if end <= j {
      return;
    }
    let span = &self.code[self.tokens[j].from..self.tokens[end - 1].to];
    let name: String = collapse(span).chars().take(MAX_NAME_CHARS).collect();
    let parent = self.parent_at(k);
    let lines = (self.tokens[k].line, self.ends(b));
    self.add(name, "impl", lines, parent, Some(b.close));
  }

  /// Python: a logical line opening `def`/`class`; a block ends before a line indented no deeper.
  fn python(&mut self) {
    let mut stack: Vec<(usize, u64)> = Vec::new();
    let mut last_end = 0;
    let tokens = self.tokens;
    for (k, t) in tokens.iter().enumerate() {
      if t.logical {
        let indent = indent_of(self.text, self.line_start(t.from));
        while let Some(&(def, _)) = stack.last().filter(|s| s.1 >= indent) {
          self.defs[def].end_line = last_end;
          stack.pop();
        }
        let head = if t.text == "async" && self.is(k + 1, Kind::Id, Some("def")) {
          k + 1
        } else {
          k
        };
        let word = self.tokens[head].text.as_str();
        if t.kind == Kind::Id && (word == "def" || word == "class") && self.is_id(head + 1) {
          let parent = stack.last().map(|s| s.0);
          let kind = if word == "class" {
            "class"
          } else if parent.is_some_and(|p| self.defs[p].kind == "class") {
            "method"
          } else {
            "function"
          };
          self.add(
            self.tokens[head + 1].text.clone(),
            kind,
            (t.line, t.line),
            parent,
            None,
          );
          stack.push((self.defs.len() - 1, indent));
        }
      }
      last_end = last_end.max(t.end);
    }
    for (def, _) in stack {
      self.defs[def].end_line = last_end;
    }
  }
}
