//! The bounded source search: what it skips (as CodeGraph's indexer does), its order, its
//! bounds. The Node runner's twin is held to the same tree by `__test__/answers/source-scan.test.mjs`.

use std::fs;
use std::path::Path;
use std::time::Duration;

use pi_codegraph_core::source_scan::{scan, ScanRule, ScanStop, SourceScan};
use pi_codegraph_core::source_walk::SkippedDirs;

fn write(root: &Path, rel: &str, text: &[u8]) {
  let path = root.join(rel);
  fs::create_dir_all(path.parent().unwrap()).unwrap();
  fs::write(path, text).unwrap();
}

fn request(pattern: &str) -> SourceScan {
  SourceScan {
    rules: vec![ScanRule {
      extensions: vec!["rs".into(), "ts".into()],
      pattern: pattern.into(),
    }],
    skip: SkippedDirs {
      exact: vec![".git".into()],
      globs: vec!["node_modules".into(), "target".into(), "*.egg-info".into()],
    },
    max_files: 1000,
    max_file_bytes: 1 << 20,
    max_total_bytes: 1 << 30,
    max_matches: 100,
    deadline: Duration::from_secs(10),
    context: None,
  }
}

fn tree() -> tempfile::TempDir {
  let dir = tempfile::tempdir().unwrap();
  let root = dir.path();
  write(root, "b.rs", b"fn other() {}\nfn spawn_inner() {}\n");
  write(root, "a/x.TS", b"export function spawn_inner() {}\n");
  write(root, "a/notes.md", b"fn spawn_inner\n");
  write(
    root,
    "node_modules/m/index.ts",
    b"function spawn_inner() {}\n",
  );
  write(root, "target/debug/gen.rs", b"fn spawn_inner() {}\n");
  write(root, "pkg.egg-info/x.rs", b"fn spawn_inner() {}\n");
  write(root, ".git/x.rs", b"fn spawn_inner() {}\n");
  write(root, "sub/.gitignore", b"gen/\n");
  write(root, "sub/gen/y.rs", b"fn spawn_inner() {}\n");
  write(root, "sub/kept.rs", b"\n\nfn spawn_inner() {}\n");
  write(root, ".gitignore", b"*.log.rs\n");
  write(root, "c.log.rs", b"fn spawn_inner() {}\n");
  write(root, "bin.rs", b"fn spawn_inner() {}\n\0\x01");
  let mut big = b"fn spawn_inner() {}\n".to_vec();
  big.resize((1 << 20) + 1, b' ');
  write(root, "big.rs", &big);
  dir
}

#[test]
fn finds_lines_in_what_codegraph_indexes_in_name_order() {
  let dir = tree();
  let found = scan(
    dir.path(),
    &request(r"\bfn\s+spawn_inner\b|\bfunction\s+spawn_inner\b"),
  )
  .unwrap();
  let at: Vec<(String, u64)> = found
    .matches
    .iter()
    .map(|m| (m.path.clone(), m.line))
    .collect();
  assert_eq!(
    at,
    vec![
      ("a/x.TS".into(), 1),
      ("b.rs".into(), 2),
      ("sub/kept.rs".into(), 3)
    ]
  );
  assert_eq!(found.matches[1].file_bytes, 34);
  assert_eq!(
    found.files_too_large, 1,
    "big.rs is over max_file_bytes: counted, not read"
  );
  assert_eq!(found.stopped, None);
  // a/x.TS, b.rs, bin.rs, sub/kept.rs (read; bin.rs has a NUL and reports nothing).
  assert_eq!(found.files_scanned, 4);
}

#[test]
fn each_bound_stops_the_scan_and_says_which() {
  let dir = tree();
  let pattern = r"spawn_inner";
  let mut few_matches = request(pattern);
  few_matches.max_matches = 1;
  let found = scan(dir.path(), &few_matches).unwrap();
  assert_eq!(
    (found.matches.len(), found.stopped),
    (1, Some(ScanStop::Matches))
  );

  let mut few_files = request(pattern);
  few_files.max_files = 2;
  let found = scan(dir.path(), &few_files).unwrap();
  assert_eq!(
    (found.files_scanned, found.stopped),
    (2, Some(ScanStop::Files))
  );

  let mut few_bytes = request(pattern);
  few_bytes.max_total_bytes = 40;
  let found = scan(dir.path(), &few_bytes).unwrap();
  assert_eq!(
    (found.files_scanned, found.stopped),
    (1, Some(ScanStop::Bytes))
  );

  let mut no_time = request(pattern);
  no_time.deadline = Duration::ZERO;
  let found = scan(dir.path(), &no_time).unwrap();
  assert_eq!(
    (found.files_scanned, found.stopped),
    (0, Some(ScanStop::Deadline))
  );
}

#[test]
fn a_pattern_that_does_not_compile_is_the_one_error() {
  let dir = tree();
  let err = scan(dir.path(), &request("fn (")).unwrap_err();
  assert_eq!(err.pattern, "fn (");
  // A missing directory is no error: nothing is there to find.
  let gone = scan(&dir.path().join("nope"), &request("x")).unwrap();
  assert_eq!((gone.files_scanned, gone.matches.len()), (0, 0));
}
