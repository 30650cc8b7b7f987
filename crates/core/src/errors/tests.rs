//! Unit tests of `errors` (they reach its private items).

use super::*;

#[test]
fn shown_paths_are_escaped_and_bounded() {
  let p = PathBuf::from("/tmp/evil\nRemediation: rm -rf /\u{1b}]0;x");
  let s = shown(&p);
  assert!(!s.contains('\n') && !s.contains('\u{1b}'), "{s}");
  assert!(s.contains("\\n"));
  let long = PathBuf::from(format!("/{}", "a".repeat(200_000)));
  let s = shown(&long);
  assert!(s.chars().count() < MAX_SHOWN_PATH_CHARS + 40, "{}", s.len());
  assert!(s.contains("characters omitted"));
}

#[test]
fn every_message_has_code_and_remediation_and_stays_bounded() {
  let long = PathBuf::from(format!("/{}\n", "x".repeat(100_000)));
  let errors = [
    ExploreError::Workspace {
      path: long.clone(),
      reason: "it does not exist".into(),
      denied: true,
    },
    ExploreError::NoIndex {
      path: long.clone(),
      reason: "none".into(),
      kind: NoIndexKind::Missing {
        ancestor: Some(long.clone()),
      },
    },
    ExploreError::IndexReadOnly {
      dir: long.clone(),
      reason: "readonly".into(),
      cause: crate::errors::Access::Denied { path: long.clone() },
    },
    ExploreError::Cancelled {
      partial_bytes: 0,
      partial_text: String::new(),
    },
    ExploreError::Timeout {
      timeout_ms: 5,
      stderr_tail: String::new(),
      partial_bytes: 3,
      partial_text: "abc".into(),
    },
  ];
  for e in errors {
    let m = e.message();
    assert!(m.starts_with(e.code().as_str()), "{m}");
    assert!(m.contains("\nRemediation: "), "{m}");
    assert!(m.len() < 2_000, "{} bytes", m.len());
    assert_eq!(m.lines().count(), 2, "{m}");
  }
}
