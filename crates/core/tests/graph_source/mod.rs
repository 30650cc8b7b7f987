//! Reads a crate's `src/` into its module graph: which top-level module references which, through
//! `crate::…` paths (grouped ones too: `crate::{a, b::X}`) and `super::…` paths that climb out of
//! a module. Comments, strings, char literals and `$crate` (a macro's own crate) are not
//! references. A submodule file and an inline `mod x {}` count as their top-level module. Not
//! seen: a macro reached by textual scope (`#[macro_use]`; the core defines no macro) and a
//! `#[path]` file outside `src/`.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub struct Graph {
  /// The top-level modules (`src/x.rs` or `src/x/mod.rs` → `x`); `lib.rs` itself is not one.
  pub modules: BTreeSet<String>,
  /// from → to → the first `file:line` that makes the arrow.
  pub edges: BTreeMap<String, BTreeMap<String, String>>,
}

pub fn read_graph(src: &Path) -> Graph {
  let mut files = Vec::new();
  collect(src, &mut files);
  files.sort_by_key(|f| f.to_string_lossy().into_owned());
  let paths: Vec<(PathBuf, Vec<String>)> = files
    .into_iter()
    .map(|file| {
      let rel = file.strip_prefix(src).unwrap();
      let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
      let last = parts.pop().unwrap();
      let stem = last.trim_end_matches(".rs");
      if stem != "mod" && !(parts.is_empty() && (stem == "lib" || stem == "main")) {
        parts.push(stem.to_string());
      }
      (file, parts)
    })
    .collect();
  let modules: BTreeSet<String> = paths
    .iter()
    .filter_map(|(_, p)| p.first().cloned())
    .collect();
  let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
  for (file, module) in &paths {
    let Some(from) = module.first() else { continue };
    let text = std::fs::read_to_string(file).unwrap();
    let shown = file
      .strip_prefix(src.parent().unwrap_or(src))
      .unwrap_or(file)
      .display()
      .to_string();
    for (to, line) in references(&tokens(&text), module) {
      if &to != from && modules.contains(&to) {
        edges
          .entry(from.clone())
          .or_default()
          .entry(to)
          .or_insert_with(|| format!("{shown}:{line}"));
      }
    }
  }
  Graph { modules, edges }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
  for entry in std::fs::read_dir(dir).unwrap() {
    let path = entry.unwrap().path();
    if path.is_dir() {
      collect(&path, out);
    } else if path.extension().is_some_and(|e| e == "rs") {
      out.push(path);
    }
  }
}

/// Identifiers and the punctuation that matters (`::` as one token), with their lines.
fn tokens(text: &str) -> Vec<(String, usize)> {
  let chars: Vec<char> = text.chars().collect();
  let mut out = Vec::new();
  let (mut i, mut line) = (0, 1);
  let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
  while i < chars.len() {
    let c = chars[i];
    if c == '\n' {
      line += 1;
      i += 1;
    } else if c == '/' && at(i + 1) == '/' {
      while i < chars.len() && chars[i] != '\n' {
        i += 1;
      }
    } else if c == '/' && at(i + 1) == '*' {
      let mut depth = 0;
      loop {
        if at(i) == '/' && at(i + 1) == '*' {
          depth += 1;
          i += 2;
        } else if at(i) == '*' && at(i + 1) == '/' {
          depth -= 1;
          i += 2;
          if depth == 0 {
            break;
          }
        } else {
          line += usize::from(at(i) == '\n');
          i += 1;
        }
      }
    } else if c == 'r' && (at(i + 1) == '"' || (at(i + 1) == '#' && matches!(at(i + 2), '"' | '#')))
    {
      // A raw string: r"…", r#"…"#, …
      let mut j = i + 1;
      while at(j) == '#' {
        j += 1;
      }
      let hashes = j - i - 1;
      j += 1;
      while j < chars.len() && !(chars[j] == '"' && (1..=hashes).all(|k| at(j + k) == '#')) {
        line += usize::from(chars[j] == '\n');
        j += 1;
      }
      i = j + 1 + hashes;
    } else if c == '"' {
      i += 1;
      while i < chars.len() && chars[i] != '"' {
        line += usize::from(chars[i] == '\n');
        i += if chars[i] == '\\' { 2 } else { 1 };
      }
      i += 1;
    } else if c == '\'' {
      // A char literal ('x', '\n', '\u{1F600}'), else a lifetime or label ('a).
      if at(i + 1) == '\\' {
        i += 2;
        while at(i) != '\'' {
          i += 1;
        }
        i += 1;
      } else if at(i + 2) == '\'' {
        i += 3;
      } else {
        i += 1;
      }
    } else if c.is_alphanumeric() || c == '_' {
      let start = i;
      while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
        i += 1;
      }
      out.push((chars[start..i].iter().collect(), line));
    } else if c == ':' && at(i + 1) == ':' {
      out.push(("::".to_string(), line));
      i += 2;
    } else {
      if !c.is_whitespace() {
        out.push((c.to_string(), line));
      }
      i += 1;
    }
  }
  out
}

/// The top-level modules each path in `tokens` reaches, from a file whose module is `module`.
fn references(tokens: &[(String, usize)], module: &[String]) -> Vec<(String, usize)> {
  let tok = |i: usize| tokens.get(i).map_or("", |(t, _)| t.as_str());
  let mut out = Vec::new();
  // Inline modules open in this file: (name, the brace depth inside it).
  let mut inline: Vec<(String, usize)> = Vec::new();
  let mut depth = 0;
  let mut i = 0;
  while i < tokens.len() {
    let (t, line) = (tok(i), tokens[i].1);
    let starts_path = tok(i + 1) == "::" && !matches!(tok(i.wrapping_sub(1)), "::" | "$");
    if t == "{" {
      depth += 1;
      if tok(i.wrapping_sub(2)) == "mod" {
        inline.push((tok(i - 1).to_string(), depth));
      }
    } else if t == "}" {
      if inline.last().is_some_and(|(_, d)| *d == depth) {
        inline.pop();
      }
      depth -= 1;
    } else if starts_path && (t == "crate" || t == "super") {
      let mut base: Vec<String> = Vec::new();
      let mut j = i;
      if t == "super" {
        base = module
          .iter()
          .cloned()
          .chain(inline.iter().map(|(n, _)| n.clone()))
          .collect();
        while tok(j) == "super" && tok(j + 1) == "::" {
          base.pop();
          j += 2;
        }
      } else {
        j += 2;
      }
      if let Some(top) = base.first() {
        out.push((top.clone(), line));
      } else if tok(j) == "{" {
        // `crate::{a, b::X, c::{…}}`: the first name of each item at the group's own level.
        let mut level = 0;
        let mut expect_name = true;
        while j < tokens.len() {
          match tok(j) {
            "{" => {
              level += 1;
              expect_name = level == 1;
            }
            "}" => {
              level -= 1;
              if level == 0 {
                break;
              }
            }
            "," if level == 1 => expect_name = true,
            name if expect_name && level == 1 => {
              out.push((name.to_string(), line));
              expect_name = false;
            }
            _ => {}
          }
          j += 1;
        }
        j += 1;
      } else {
        out.push((tok(j).to_string(), line));
      }
      i = j;
      continue;
    }
    i += 1;
  }
  out
}

/// Every path written in `text` (`use` trees expanded: `std::{fs, io::Read}` is `std::fs` and
/// `std::io::Read`), each as its segments, with its line. A path is an identifier followed by
/// `::` that does not itself follow `::` (nor `$`).
pub fn paths(text: &str) -> Vec<(Vec<String>, usize)> {
  let tokens = tokens(text);
  let tok = |i: usize| tokens.get(i).map_or("", |(t, _)| t.as_str());
  let mut out = Vec::new();
  let mut i = 0;
  while i < tokens.len() {
    let t = tok(i);
    let is_name = t.starts_with(|c: char| c.is_alphabetic() || c == '_');
    if is_name && tok(i + 1) == "::" && !matches!(tok(i.wrapping_sub(1)), "::" | "$") {
      let (found, next) = expand(&tokens, i, Vec::new());
      out.extend(found.into_iter().map(|p| (p, tokens[i].1)));
      i = next;
    } else {
      i += 1;
    }
  }
  out
}

fn expand(
  tokens: &[(String, usize)],
  mut j: usize,
  mut prefix: Vec<String>,
) -> (Vec<Vec<String>>, usize) {
  let tok = |i: usize| tokens.get(i).map_or("", |(t, _)| t.as_str());
  loop {
    match tok(j) {
      "" => return (vec![prefix], j),
      "{" => {
        let mut out = Vec::new();
        j += 1;
        while !matches!(tok(j), "}" | "") {
          let (found, next) = expand(tokens, j, prefix.clone());
          out.extend(found);
          j = next;
          // `as name`, up to the next item.
          while !matches!(tok(j), "," | "}" | "") {
            j += 1;
          }
          if tok(j) == "," {
            j += 1;
          }
        }
        return (out, j + 1);
      }
      name => {
        prefix.push(name.to_string());
        if tok(j + 1) != "::" {
          return (vec![prefix], j + 1);
        }
        j += 2;
      }
    }
  }
}
