//! A scan pattern as the contract writes it (JavaScript's regular expressions, which the Node
//! runner runs as they are) made ready for the `regex` crate with JavaScript's meaning: `\b` and
//! `\B` are ASCII word boundaries in JavaScript (`[A-Za-z0-9_]`), and Unicode ones in `regex`
//! unless written `(?-u:\b)`. Besides agreeing with the Node runner, the ASCII boundary keeps the
//! lazy DFA on: a Unicode boundary makes it give up on any non-ASCII byte, and a definition scan
//! of a tree with non-ASCII comments took 7 times as long (750 ms against 105 ms on effect's
//! 39 MB of TypeScript).

use std::borrow::Cow;

use grep_regex::RegexMatcher;
use regex::Regex;

/// A pattern that does not compile: the pattern and the regex engine's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid scan pattern {pattern:?}: {text}")]
pub struct ScanPatternError {
  pub pattern: String,
  pub text: String,
}

fn invalid(pattern: &str, e: &impl ToString) -> ScanPatternError {
  ScanPatternError {
    pattern: pattern.to_owned(),
    text: e.to_string(),
  }
}

/// `pattern` compiled to match a line's text.
pub fn compiled(pattern: &str) -> Result<Regex, ScanPatternError> {
  Regex::new(&with_js_boundaries(pattern)).map_err(|e| invalid(pattern, &e))
}

/// `pattern` compiled to find the matching lines of a file's bytes.
pub fn line_matcher(pattern: &str) -> Result<RegexMatcher, ScanPatternError> {
  RegexMatcher::new_line_matcher(&with_js_boundaries(pattern)).map_err(|e| invalid(pattern, &e))
}

/// `pattern` with every `\b` and `\B` outside a character class an ASCII boundary.
pub fn with_js_boundaries(pattern: &str) -> Cow<'_, str> {
  if !pattern.contains("\\b") && !pattern.contains("\\B") {
    return Cow::Borrowed(pattern);
  }
  let mut out = String::with_capacity(pattern.len() + 16);
  let mut chars = pattern.chars();
  let mut in_class = false;
  while let Some(c) = chars.next() {
    match c {
      '\\' => match chars.next() {
        Some(b @ ('b' | 'B')) if !in_class => {
          out.push_str("(?-u:\\");
          out.push(b);
          out.push(')');
        }
        Some(next) => {
          out.push('\\');
          out.push(next);
        }
        None => out.push('\\'),
      },
      '[' if !in_class => {
        in_class = true;
        out.push(c);
        // A `]` (or `^]`) right after the opening bracket is the class's own character.
        let rest = chars.as_str();
        let own = if rest.starts_with("^]") {
          2
        } else {
          usize::from(rest.starts_with(']'))
        };
        for _ in 0..own {
          out.extend(chars.next());
        }
      }
      ']' if in_class => {
        in_class = false;
        out.push(c);
      }
      _ => out.push(c),
    }
  }
  Cow::Owned(out)
}

#[cfg(test)]
mod tests {
  use super::with_js_boundaries;

  #[test]
  fn word_boundaries_become_ascii_ones_outside_classes_only() {
    assert_eq!(with_js_boundaries(r"(?:^|[^\w$])x"), r"(?:^|[^\w$])x");
    assert_eq!(
      with_js_boundaries(r"\b(?:fn|mod)\s+(?:a)\b|\Bx"),
      r"(?-u:\b)(?:fn|mod)\s+(?:a)(?-u:\b)|(?-u:\B)x"
    );
    assert_eq!(
      with_js_boundaries(r"\\b"),
      r"\\b",
      "an escaped backslash before b"
    );
    assert_eq!(with_js_boundaries(r"[\b]\b"), r"[\b](?-u:\b)");
    assert_eq!(with_js_boundaries(r"[]\b]\b"), r"[]\b](?-u:\b)");
  }

  #[test]
  fn the_boundary_is_javascripts_around_non_ascii_letters() {
    let re = regex::Regex::new(&with_js_boundaries(r"\bname\b")).unwrap();
    // JavaScript: `é` is no word character, so `énameé` has a boundary on both sides of name.
    assert!(re.is_match("énameé"));
    assert!(!re.is_match("a_name"));
    assert!(re.is_match("const name = 1 // — ü"));
  }
}
