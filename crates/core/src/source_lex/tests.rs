//! The lexer on the cases a pattern over raw lines gets wrong.

use super::definitions::definitions;
use super::{lex, masked, Kind, Lang};

/// `text` with its comments and strings blanked, lines trimmed at the end.
fn code(text: &str, lang: Lang) -> Vec<String> {
  let lexed = lex(text, lang);
  masked(text, &lexed.blanks)
    .lines()
    .map(|l| l.trim_end().to_owned())
    .collect()
}

#[test]
fn rust_comments_nest_and_raw_strings_hold_quotes_and_braces() {
  let text = "/* a /* b */ f() */ g();\nlet s = r#\"x \" f() }\"#; h();\nlet b = br##\"\"#\"##;";
  assert_eq!(
    code(text, Lang::Rust),
    vec![
      "                    g();",
      "let s =               ; h();",
      "let b =           ;"
    ]
  );
  assert!(!lex(text, Lang::Rust).unbalanced);
}

#[test]
fn rust_character_literals_are_told_from_lifetimes() {
  let text = "fn f<'a>(x: &'a str) -> char { let c = '{'; let e = '\\''; let u = 'é'; let b = b'}'; 'l: loop {} }";
  let lexed = lex(text, Lang::Rust);
  assert!(!lexed.unbalanced);
  let lifetimes: Vec<&str> = lexed
    .tokens
    .iter()
    .filter(|t| t.kind == Kind::Lifetime)
    .map(|t| t.text.as_str())
    .collect();
  assert_eq!(lifetimes, vec!["'a", "'a", "'l"]);
  assert_eq!(
    lexed.tokens.iter().filter(|t| t.kind == Kind::Str).count(),
    4
  );
}

#[test]
fn python_docstrings_and_f_strings() {
  let text = "def f():\n    \"\"\"Run g() first.\n    g()\n    \"\"\"\n    return f\"{g(1)} {{h()}}\" + rb'\\'k()'\n";
  assert_eq!(
    code(text, Lang::Python),
    vec!["def f():", "", "", "", "    return    g(1)           +"]
  );
  let lexed = lex(text, Lang::Python);
  let defs = definitions(Lang::Python, &lexed, text, &masked(text, &lexed.blanks));
  assert_eq!((defs[0].line, defs[0].end_line), (1, 5));
}

#[test]
fn script_templates_nest_and_regular_expressions_are_read_where_one_may_start() {
  let text = "const a = `x ${f(`y ${g()}`)} }`; const r = /[/]f()/g; const d = a / b / c;";
  assert_eq!(
    code(text, Lang::Script),
    vec!["const a =      f(     g()  )    ; const r =          ; const d = a / b / c;"]
  );
  assert!(!lex(text, Lang::Script).unbalanced);
}

#[test]
fn an_unclosed_string_or_bracket_says_so() {
  assert!(lex("fn f() { \"open", Lang::Rust).unbalanced);
  assert!(lex("def f(:\n  pass", Lang::Python).unbalanced);
  assert!(lex("}", Lang::Script).unbalanced);
}
