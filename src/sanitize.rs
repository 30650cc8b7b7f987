//! Clean text for the model: CLI bytes decoded, terminal escapes removed, secrets masked.

use std::sync::OnceLock;

use regex::Regex;
use vte::{Parser, Perform};

/// Decodes CLI output into plain text. A VT parser (vte) consumes escape sequences (colours,
/// cursor moves, OSC titles) however they are split; printable characters, newlines and tabs
/// are kept, other control bytes (NUL, CR, BEL, …) are dropped, invalid UTF-8 becomes U+FFFD.
pub fn clean_text(bytes: &[u8]) -> String {
  struct Keep(String);
  impl Perform for Keep {
    fn print(&mut self, c: char) {
      self.0.push(c);
    }
    fn execute(&mut self, byte: u8) {
      if byte == b'\n' || byte == b'\t' {
        self.0.push(byte as char);
      }
    }
  }
  let mut out = Keep(String::with_capacity(bytes.len()));
  Parser::new().advance(&mut out, bytes);
  out.0
}

/// Masks credentials a CLI might echo into its stderr: `*TOKEN=`, `*SECRET=`, `*PASSWORD=`,
/// `*API_KEY=` assignments (also with `:`) and `Bearer` tokens.
pub fn redact(text: &str) -> String {
  static PATTERNS: OnceLock<[Regex; 2]> = OnceLock::new();
  let [assign, bearer] = PATTERNS.get_or_init(|| {
    [
      Regex::new(r#"(?i)([A-Z0-9_.-]*(?:TOKEN|SECRET|PASSWORD|API_KEY)["']?\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;]+)"#)
        .expect("valid pattern"),
      Regex::new(r"(?i)(\bBearer\s+)[A-Za-z0-9._~+/=-]+").expect("valid pattern"),
    ]
  });
  let text = assign.replace_all(text, "${1}[REDACTED]");
  bearer.replace_all(&text, "${1}[REDACTED]").into_owned()
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn strips_escapes_keeps_structure() {
    let raw = b"\x1b[1;31merror\x1b[0m\tdetail\r\n\x1b]0;title\x07next\x00line\n";
    assert_eq!(clean_text(raw), "error\tdetail\nnextline\n");
  }

  #[test]
  fn invalid_utf8_becomes_replacement() {
    assert_eq!(clean_text(b"a\xffb\n"), "a\u{FFFD}b\n");
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
}
