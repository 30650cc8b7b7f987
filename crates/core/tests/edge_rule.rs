//! The napi edge (the workspace root's `src/`, the crate `pi-codegraph`) only converts between JS
//! values and this core's: it uses `pi_codegraph_core`, never the other way, and it does no work
//! of its own (no process, no filesystem access: those are the core's, under its rules). A path
//! that breaks the rule is printed with its file and line.

mod graph_source;

use std::path::{Path, PathBuf};

use graph_source::paths;

/// What the core must never name: the napi crates and the edge itself.
const NOT_IN_CORE: &[&[&str]] = &[
  &["napi"],
  &["napi_derive"],
  &["napi_build"],
  &["pi_codegraph"],
];

/// What the edge must leave to the core: starting processes, the filesystem, OS calls.
const NOT_IN_EDGE: &[&[&str]] = &[
  &["std", "process"],
  &["std", "fs"],
  &["std", "os"],
  &["tokio", "process"],
  &["tokio", "fs"],
  &["tokio", "net"],
  &["process_wrap"],
  &["libc"],
  &["which"],
  &["tempfile"],
];

fn core_dir() -> PathBuf {
  PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
  for entry in std::fs::read_dir(dir).unwrap() {
    let path = entry.unwrap().path();
    if path.is_dir() {
      rust_files(&path, out);
    } else if path.extension().is_some_and(|e| e == "rs") {
      out.push(path);
    }
  }
}

/// Each path under `dir` that starts with one of `banned`, as `file:line: a::b`.
fn banned_paths(dir: &Path, banned: &[&[&str]]) -> Vec<String> {
  let mut files = Vec::new();
  rust_files(dir, &mut files);
  files.sort();
  assert!(!files.is_empty(), "no Rust file under {}", dir.display());
  let mut found = Vec::new();
  for file in files {
    let text = std::fs::read_to_string(&file).unwrap();
    for (path, line) in paths(&text) {
      if banned
        .iter()
        .any(|b| path.len() >= b.len() && path[..b.len()] == **b)
      {
        let shown = file
          .strip_prefix(dir.parent().unwrap_or(dir))
          .unwrap_or(&file);
        found.push(format!("{}:{line}: {}", shown.display(), path.join("::")));
      }
    }
  }
  found
}

/// The names in a Cargo.toml's `[dependencies]` table.
fn dependencies(manifest: &Path) -> Vec<String> {
  let text = std::fs::read_to_string(manifest).unwrap();
  text
    .lines()
    .skip_while(|l| l.trim() != "[dependencies]")
    .skip(1)
    .take_while(|l| !l.trim_start().starts_with('['))
    .filter_map(|l| {
      l.split_once('=')
        .map(|(name, _)| name.split('.').next().unwrap_or("").trim().to_string())
    })
    .filter(|name| !name.starts_with('#') && !name.is_empty())
    .collect()
}

#[test]
fn the_core_never_names_the_napi_edge() {
  let found = banned_paths(&core_dir().join("src"), NOT_IN_CORE);
  assert!(
    found.is_empty(),
    "the core names napi or the edge:\n{}",
    found.join("\n")
  );
  let deps = dependencies(&core_dir().join("Cargo.toml"));
  assert!(
    deps.iter().any(|d| d == "serde"),
    "read the core's dependencies: {deps:?}"
  );
  let napi: Vec<&String> = deps
    .iter()
    .filter(|d| d.starts_with("napi") || *d == "pi-codegraph")
    .collect();
  assert!(napi.is_empty(), "the core depends on {napi:?}");
}

#[test]
fn the_napi_edge_only_converts() {
  let root = core_dir().join("../..");
  let found = banned_paths(&root.join("src"), NOT_IN_EDGE);
  assert!(
    found.is_empty(),
    "the napi edge (src/) does work that is the core's; move it into crates/core:\n{}",
    found.join("\n")
  );
  let deps = dependencies(&root.join("Cargo.toml"));
  assert!(
    deps.iter().any(|d| d == "pi-codegraph-core"),
    "read the edge's dependencies: {deps:?}"
  );
  let doing: Vec<&String> = deps
    .iter()
    .filter(|d| ["process-wrap", "libc", "which", "tempfile"].contains(&d.as_str()))
    .collect();
  assert!(
    doing.is_empty(),
    "the napi edge depends on {doing:?}, which is the core's to use"
  );
}

#[test]
fn paths_are_read_through_use_trees_and_past_comments() {
  let text = "use std::{fs, io::{self, Read as R}};\n// std::process::Command\nfn f() { tokio::process::Command::new(\"std::os\"); }\n";
  let found: Vec<String> = paths(text)
    .into_iter()
    .map(|(p, line)| format!("{line}:{}", p.join("::")))
    .collect();
  assert_eq!(
    found,
    [
      "1:std::fs",
      "1:std::io::self",
      "1:std::io::Read",
      "3:tokio::process::Command::new"
    ]
  );
}
