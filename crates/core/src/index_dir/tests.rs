//! Unit tests of `index_dir`: CodeGraph 1.6.1's rule for the directory it opens.

use super::*;

fn env(pairs: &[(&str, &str)]) -> EnvSnapshot {
  EnvSnapshot::from_pairs(pairs)
}

#[test]
fn codegraph_dir_is_trimmed_as_javascript_trims() {
  assert_eq!(index_dir_name(&env(&[])), ".codegraph");
  assert_eq!(index_dir_name(&env(&[("CODEGRAPH_DIR", "  .cg  ")])), ".cg");
  assert_eq!(index_dir_name(&env(&[("CODEGRAPH_DIR", "\t.cg\n")])), ".cg");
  // JS trims U+FEFF and U+00A0 but not U+0085.
  assert_eq!(
    index_dir_name(&env(&[("CODEGRAPH_DIR", "\u{feff}.cg\u{a0}")])),
    ".cg"
  );
  assert_eq!(
    index_dir_name(&env(&[("CODEGRAPH_DIR", ".cg\u{85}")])),
    ".cg\u{85}"
  );
  assert_eq!(
    index_dir_name(&env(&[("CODEGRAPH_DIR", "   ")])),
    ".codegraph"
  );
  assert_eq!(index_dir_name(&env(&[("CODEGRAPH_DIR", "")])), ".codegraph");
}

#[test]
fn a_path_like_codegraph_dir_is_ignored() {
  for bad in [
    ".",
    " . ",
    "..",
    "a..b",
    "../elsewhere",
    "a/b",
    "a\\b",
    "/abs",
  ] {
    assert_eq!(
      index_dir_name(&env(&[("CODEGRAPH_DIR", bad)])),
      ".codegraph",
      "{bad:?}"
    );
  }
}

#[test]
fn windows_drives_are_one_letter_under_mnt() {
  for yes in [
    "/mnt/c",
    "/mnt/c/",
    "/mnt/q/work/x",
    "/MNT/D/x",
    "\\mnt\\c\\x",
  ] {
    assert!(is_windows_drive(Path::new(yes)), "{yes}");
  }
  for no in [
    "/mnt",
    "/mnt/",
    "/mnt/cd",
    "/mnt/1/x",
    "/home/mnt/c",
    "/mnt/sandboxing/x",
  ] {
    assert!(!is_windows_drive(Path::new(no)), "{no}");
  }
}

#[test]
fn the_wsl_choice_of_three() {
  let ws = tempfile::tempdir().unwrap();
  // Neither: a fresh index goes to .codegraph-wsl.
  assert_eq!(wsl_choice(ws.path()), ".codegraph-wsl");
  // An index built before WSL had its own is kept.
  std::fs::create_dir(ws.path().join(".codegraph")).unwrap();
  assert_eq!(
    wsl_choice(ws.path()),
    ".codegraph-wsl",
    "a .codegraph without a db"
  );
  std::fs::write(ws.path().join(".codegraph/codegraph.db"), b"x").unwrap();
  assert_eq!(wsl_choice(ws.path()), ".codegraph");
  // Once WSL has its own directory it keeps it.
  std::fs::create_dir(ws.path().join(".codegraph-wsl")).unwrap();
  assert_eq!(wsl_choice(ws.path()), ".codegraph-wsl");
}

#[cfg(target_os = "linux")]
#[test]
fn on_a_wsl_windows_drive_the_wsl_directory_unless_codegraph_dir_is_set() {
  let wsl = [("WSL_DISTRO_NAME", "Ubuntu")];
  let project = Path::new("/mnt/q/nowhere-pi-codegraph");
  assert_eq!(index_dir_name_for(project, &env(&wsl)), ".codegraph-wsl");
  let interop = [("WSL_INTEROP", "/run/WSL/1_interop")];
  assert_eq!(
    index_dir_name_for(project, &env(&interop)),
    ".codegraph-wsl"
  );
  // CODEGRAPH_DIR set, even to something ignored: its name (or the default), no WSL choice.
  let named = [("WSL_DISTRO_NAME", "Ubuntu"), ("CODEGRAPH_DIR", " .cg ")];
  assert_eq!(index_dir_name_for(project, &env(&named)), ".cg");
  let ignored = [("WSL_DISTRO_NAME", "Ubuntu"), ("CODEGRAPH_DIR", "a/b")];
  assert_eq!(index_dir_name_for(project, &env(&ignored)), ".codegraph");
  // Off a Windows drive: the plain name.
  assert_eq!(
    index_dir_name_for(Path::new("/home/u/p"), &env(&wsl)),
    ".codegraph"
  );
}
