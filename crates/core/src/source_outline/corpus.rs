//! The outline against the shared corpus (`__test__/corpora/outline.json`, which the JS suite
//! runs through both runners): each case's text, outlined as `outline_source` outlines a file,
//! must give the corpus's line count, definitions and unclosed flag.

use serde_json::Value;

use super::{language_of, line_count, outline_text};
use crate::source_lex::definitions::Definition;

const CORPUS: &str = include_str!("../../../../__test__/corpora/outline.json");

/// A definition as the corpus writes it.
fn shown(d: &Definition) -> String {
  let parent = d.parent.map(|p| format!(" in {p}")).unwrap_or_default();
  let in_macro = d
    .in_macro
    .as_ref()
    .map(|m| format!(" macro:{m}"))
    .unwrap_or_default();
  format!(
    "{} {} {}-{}{parent}{in_macro}",
    d.kind, d.name, d.line, d.end_line
  )
}

/// A corpus array of strings.
fn strings(v: &Value) -> Vec<&str> {
  v.as_array()
    .unwrap()
    .iter()
    .map(|s| s.as_str().unwrap())
    .collect()
}

#[test]
fn every_case_outlines_as_the_corpus_says() {
  let corpus: Value = serde_json::from_str(CORPUS).unwrap();
  for case in corpus["cases"].as_array().unwrap() {
    let name = case["name"].as_str().unwrap();
    let text = strings(&case["text"]).join("\n");
    let (definitions, unbalanced) = language_of(case["path"].as_str().unwrap())
      .map_or((Vec::new(), false), |(_, lang)| outline_text(&text, lang));
    assert_eq!(line_count(&text), case["lines"].as_u64().unwrap(), "{name}");
    let expected = strings(&case["definitions"]);
    assert_eq!(
      definitions.iter().map(shown).collect::<Vec<_>>(),
      expected,
      "{name}"
    );
    assert_eq!(
      unbalanced,
      case["unbalanced"].as_bool().unwrap_or(false),
      "{name}"
    );
  }
}
