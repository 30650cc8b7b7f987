//! TypeScript and JavaScript definitions: functions, classes and their members, interfaces,
//! namespaces, enums, variables holding a function (and, at the top, any variable).

use super::{Kind, Outliner, MAX_HEAD_TOKENS};

/// A line that starts with, or follows a line that ends with, these goes on with the statement.
const GOES_ON: [&str; 26] = [
  ".", "?.", "=>", "?", ":", "&&", "||", "??", "+", "-", "*", "/", "|", "&", "=", ",", "<", ">",
  "==", "===", "!=", "!==", "<=", ">=", "%", "^",
];
const MODIFIERS: [&str; 14] = [
  "public",
  "private",
  "protected",
  "static",
  "async",
  "readonly",
  "override",
  "abstract",
  "declare",
  "get",
  "set",
  "*",
  "accessor",
  "#",
];

fn goes_on(text: &str) -> bool {
  GOES_ON.contains(&text)
}

/// A line ending with this goes on (a `>` there closes a type's arguments: it ends nothing open).
fn ends_going_on(text: &str) -> bool {
  text != ">" && goes_on(text)
}

fn item_kind(word: &str) -> Option<&'static str> {
  match word {
    "interface" => Some("interface"),
    "namespace" | "module" => Some("module"),
    "enum" => Some("enum"),
    _ => None,
  }
}

impl Outliner<'_> {
  fn jump(&self, j: usize) -> usize {
    let t = &self.tokens[j];
    if matches!(t.text.as_str(), "(" | "[" | "{") && t.kind == Kind::Punct {
      t.pair.unwrap_or(j)
    } else {
      j
    }
  }

  /// Past the type parameters `<…>` at token `j` (brackets in them passed whole); `j` when there are none.
  fn past_angles(&self, j: usize) -> usize {
    if !self.is_p(j, "<") {
      return j;
    }
    let mut depth = 0i64;
    let mut k = j;
    while k < self.tokens.len() && k < j + MAX_HEAD_TOKENS {
      let t = &self.tokens[k];
      if t.kind == Kind::Punct {
        match t.text.as_str() {
          "<" => depth += 1,
          ">" => depth -= 1,
          _ => k = self.jump(k),
        }
        if depth == 0 {
          return k + 1;
        }
      }
      k += 1;
    }
    j
  }

  /// Where a statement starting at token `k` ends: `;`, a closing bracket, or a line that does not
  /// go on (a `,` may be a type argument's).
  fn statement_end(&self, k: usize, indent: u64) -> usize {
    let mut j = k;
    while j < self.tokens.len() {
      let t = &self.tokens[j];
      if j > k
        && t.first
        && !goes_on(&t.text)
        && !ends_going_on(&self.tokens[j - 1].text)
        && self.indent_at(j) <= indent
      {
        return j - 1;
      }
      if t.kind == Kind::Punct {
        match t.text.as_str() {
          // `;`, or a `,` before another declarator (`a = 1, b = 2`; one in `<A, B>` is a type's).
          ";" => return j,
          "," if self.is_id(j + 1) && self.is_p(j + 2, "=") => return j,
          ")" | "]" | "}" => return j - 1,
          _ => j = self.jump(j),
        }
      }
      j += 1;
    }
    self.tokens.len() - 1
  }

  /// An arrow function or function expression from token `k` (its statement's line indented
  /// `indent`): the token it ends at, or None.
  fn function_value(&self, k: usize, indent: u64) -> Option<usize> {
    let mut j = if self.is(k, Kind::Id, Some("async")) {
      k + 1
    } else {
      k
    };
    if self.is(j, Kind::Id, Some("function")) {
      let b = self.body(j + 1)?;
      return b.open.map(|_| b.close);
    }
    j = self.past_angles(j);
    if self.is_p(j, "(") && self.tokens[j].pair.is_some() {
      j = self.tokens[j].pair.unwrap_or(j) + 1;
      if self.is_p(j, ":") {
        let limit = j + MAX_HEAD_TOKENS;
        let mut angle = 0usize;
        while j < self.tokens.len() && j < limit && !self.is_p(j, "=>") {
          let t = &self.tokens[j];
          if angle == 0 && (t.text == ";" || t.text == "=" || (t.first && !goes_on(&t.text))) {
            return None;
          }
          if t.text == "<" {
            angle += 1;
          } else if t.text == ">" && angle > 0 {
            angle -= 1;
          }
          j = self.jump(j) + 1;
        }
      }
    } else if self.is_id(j) {
      j += 1;
    }
    if !self.is_p(j, "=>") {
      return None;
    }
    if self.is_p(j + 1, "{") {
      if let Some(close) = self.tokens[j + 1].pair {
        return Some(close);
      }
    }
    Some(self.statement_end(j + 1, indent))
  }

  /// Whether token `k` begins a class member (after the class's `{`, a member, its modifiers or decorator).
  fn member_start(&self, k: usize) -> bool {
    let mut j = k;
    while j + 8 > k {
      let Some(prev) = j.checked_sub(1).map(|p| &self.tokens[p]) else {
        return true;
      };
      if matches!(prev.text.as_str(), "{" | ";" | "}") {
        return true;
      }
      if !MODIFIERS.contains(&prev.text.as_str()) {
        if prev.text == ")" && prev.pair.is_some_and(|m| m > 1 && self.is_p(m - 2, "@")) {
          return true;
        }
        if prev.kind == Kind::Id && j >= 2 && self.is_p(j - 2, "@") {
          return true;
        }
        return self.tokens[j].first && !ends_going_on(&prev.text);
      }
      if j == 0 {
        return false;
      }
      j -= 1;
    }
    false
  }

  pub(super) fn script(&mut self, k: usize) {
    let tokens = self.tokens;
    let t = &tokens[k];
    let parent = self.parent_at(k);
    let up_kind = parent.map(|p| self.defs[p].kind);
    let after_dot = k > 0 && self.is_p(k - 1, ".");
    if t.text == "function" && !after_dot {
      let at = if self.is_p(k + 1, "*") { k + 2 } else { k + 1 };
      if !self.is_id(at) {
        return;
      }
      if let Some(b) = self.body(at + 1).filter(|b| b.open.is_some()) {
        let lines = (t.line, self.ends(b));
        self.add(
          self.tokens[at].text.clone(),
          "function",
          lines,
          parent,
          Some(b.close),
        );
      }
      return;
    }
    if t.text == "class"
      && self.is_id(k + 1)
      && !matches!(self.tokens[k + 1].text.as_str(), "extends" | "implements")
    {
      if let Some(b) = self.body(k + 2).filter(|b| b.open.is_some()) {
        let lines = (t.line, self.ends(b));
        self.add(
          self.tokens[k + 1].text.clone(),
          "class",
          lines,
          parent,
          Some(b.close),
        );
      }
      return;
    }
    if let Some(kind) = item_kind(&t.text).filter(|_| self.is_id(k + 1) && !after_dot) {
      let mut j = k + 2;
      while self.is_p(j, ".") && self.is_id(j + 1) {
        j += 2;
      }
      if !self.is_p(j, "{") && t.text != "interface" && t.text != "enum" {
        return;
      }
      if let Some(b) = self.body(j).filter(|b| b.open.is_some()) {
        let lines = (t.line, self.ends(b));
        self.add(
          self.tokens[k + 1].text.clone(),
          kind,
          lines,
          parent,
          Some(b.close),
        );
      }
      return;
    }
    if matches!(t.text.as_str(), "const" | "let" | "var") && self.is_id(k + 1) {
      self.script_variable(k, parent, up_kind);
      return;
    }
    if up_kind == Some("class") {
      self.script_member(k, parent);
    }
  }

  /// `const name = …` at token `k`: a function when it holds one, a variable at the top.
  fn script_variable(&mut self, k: usize, parent: Option<usize>, up_kind: Option<&str>) {
    let line = self.tokens[k].line;
    let mut j = k + 2;
    if self.is_p(j, ":") {
      while j < self.tokens.len()
        && j < k + MAX_HEAD_TOKENS
        && !self.is_p(j, "=")
        && !self.is_p(j, ";")
      {
        j = self.jump(j) + 1;
      }
    }
    if !self.is_p(j, "=") {
      return;
    }
    let name = self.tokens[k + 1].text.clone();
    let indent = self.indent_at(k);
    if let Some(end) = self.function_value(j + 1, indent) {
      let lines = (line, self.tokens[end].end);
      self.add(name, "function", lines, parent, Some(end));
    } else if up_kind.is_none_or(|kind| kind == "module") {
      let last = self.statement_end(j + 1, indent);
      let lines = (line, self.tokens[last].end);
      self.add(name, "variable", lines, parent, Some(last));
    }
  }

  /// A class member: a name right inside the class's braces, then its parameters and body (a
  /// method) or `=` and a function (a property holding one).
  fn script_member(&mut self, k: usize, parent: Option<usize>) {
    let tokens = self.tokens;
    let t = &tokens[k];
    let Some(class_close) = self.open.last().map(|o| o.1) else {
      return;
    };
    if t.up.and_then(|u| self.tokens[u].pair) != Some(class_close) || !self.member_start(k) {
      return;
    }
    let mut j = if self.is_p(k + 1, "?") || self.is_p(k + 1, "!") {
      k + 2
    } else {
      k + 1
    };
    j = self.past_angles(j);
    let name = t.text.clone();
    let line = t.line;
    if self.is_p(j, "(") && self.tokens[j].pair.is_some() {
      let after = self.tokens[j].pair.unwrap_or(j) + 1;
      if let Some(b) = self.body(after).filter(|b| b.open.is_some()) {
        let lines = (line, self.ends(b));
        self.add(name, "method", lines, parent, Some(b.close));
      }
    } else if self.is_p(j, "=") {
      if let Some(end) = self.function_value(j + 1, self.indent_at(k)) {
        let lines = (line, self.tokens[end].end);
        self.add(name, "method", lines, parent, Some(end));
      }
    }
  }
}
