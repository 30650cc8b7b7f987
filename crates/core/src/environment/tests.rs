//! Unit tests of `environment` (they reach its private items).

use super::*;

#[test]
fn quiet_defaults_are_added_when_unset() {
  // An absolute PATH entry outside the workspace on each platform (`/bin` has no drive on Windows).
  let bin = if cfg!(windows) { r"C:\bin" } else { "/bin" };
  let env = ChildEnv::for_home(
    &EnvSnapshot::from_pairs(&[("PATH", bin)]),
    Path::new("/nonexistent-workspace"),
  )
  .vars;
  let has = |k: &str, v: &str| env.iter().any(|(a, b)| a == k && b == v);
  assert!(has("CODEGRAPH_TELEMETRY", "0"));
  assert!(has("CODEGRAPH_NO_DOWNLOAD", "1"));
  assert!(has("PATH", bin));
}

#[test]
fn an_explicit_user_setting_wins() {
  let env = ChildEnv::for_home(
    &EnvSnapshot::from_pairs(&[("CODEGRAPH_TELEMETRY", "1"), ("NO_COLOR", "")]),
    Path::new("/nonexistent-workspace"),
  )
  .vars;
  let values = |k: &str| {
    env
      .iter()
      .filter(|(a, _)| a == k)
      .map(|(_, b)| b.clone())
      .collect::<Vec<_>>()
  };
  assert_eq!(values("CODEGRAPH_TELEMETRY"), vec![OsString::from("1")]);
  assert_eq!(values("NO_COLOR"), vec![OsString::from("")]);
}

#[test]
fn do_not_track_counts_as_a_telemetry_choice() {
  let env = ChildEnv::for_home(
    &EnvSnapshot::from_pairs(&[("DO_NOT_TRACK", "1")]),
    Path::new("/nonexistent-workspace"),
  )
  .vars;
  assert!(!env.iter().any(|(a, _)| a == "CODEGRAPH_TELEMETRY"));
}

/// The inherited variables through which the workspace could choose code (`code_paths`).
#[cfg(unix)]
mod workspace_code {
  use super::*;
  use std::fs;
  use std::path::PathBuf;

  struct Setup {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    ws: PathBuf,
    out: PathBuf,
  }

  /// A workspace with `node_modules/.bin`, and a directory outside it.
  fn setup() -> Setup {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let ws = crate::files::canonical(a.path());
    let out = crate::files::canonical(b.path());
    fs::create_dir_all(ws.join("node_modules/.bin")).unwrap();
    fs::create_dir_all(out.join("bin")).unwrap();
    Setup {
      _dirs: (a, b),
      ws,
      out,
    }
  }

  fn child(s: &Setup, pairs: &[(&str, &str)]) -> ChildEnv {
    ChildEnv::for_home(&EnvSnapshot::from_pairs(pairs), &s.ws)
  }

  fn value(c: &ChildEnv, key: &str) -> Option<String> {
    c.vars
      .iter()
      .rfind(|(k, _)| k == key)
      .map(|(_, v)| v.to_string_lossy().into_owned())
  }

  fn dropped(c: &ChildEnv) -> Vec<(String, String)> {
    c.dropped
      .iter()
      .map(|d| (d.variable.clone(), d.entry.clone()))
      .collect()
  }

  #[test]
  fn path_keeps_only_absolute_entries_outside_the_workspace() {
    let s = setup();
    let (ws, out) = (s.ws.display(), s.out.display());
    fs::create_dir(s.ws.join("sub")).unwrap();
    std::os::unix::fs::symlink(s.ws.join("node_modules/.bin"), s.out.join("link")).unwrap();
    std::os::unix::fs::symlink(s.ws.join("later"), s.out.join("dangling")).unwrap();
    let entries = [
      format!("{ws}/node_modules/.bin"),
      ".".into(),
      String::new(),
      "node_modules/.bin".into(),
      format!("{out}/bin"),
      format!("{out}/link"), // a symlink into the workspace
      format!(
        "{out}/bin/../../{}",
        s.ws.file_name().unwrap().to_string_lossy()
      ), // .. lands inside
      format!("{ws}/node_modules/.bin/"), // trailing slash
      format!("{ws}"),       // the workspace itself
      format!("{ws}/node_modules/.bin"), // a duplicate
      format!("{ws}/not-yet/bin"), // does not exist, would be inside
      format!("{out}/dangling/bin"), // a dangling link whose target is inside
      format!(
        "{ws}/sub/../../{}/node_modules/.bin",
        s.ws.file_name().unwrap().to_string_lossy()
      ),
      "/proc/self/cwd".into(),  // the child's own cwd, the workspace
      format!("{out}/missing"), // does not exist, outside: harmless, kept
      format!("{out}/bin"),     // a duplicate outside: kept as the user wrote it
    ];
    let c = child(&s, &[("PATH", &entries.join(":"))]);
    assert_eq!(
      value(&c, "PATH").unwrap(),
      format!("{out}/bin:{out}/missing:{out}/bin")
    );
    let reasons: Vec<DropReason> = c.dropped.iter().map(|d| d.reason).collect();
    assert_eq!(c.dropped.len(), entries.len() - 3, "{:?}", dropped(&c));
    assert!(c.dropped.iter().all(|d| d.variable == "PATH"));
    assert!(reasons.contains(&DropReason::Inside));
    assert!(reasons.contains(&DropReason::Empty));
    assert!(reasons.contains(&DropReason::Relative));
  }

  #[test]
  fn a_call_in_another_root_keeps_code_inside_either_from_the_child() {
    // `out` plays the root the CLI runs in (a sub-project or an added directory), `ws` Pi's
    // workspace: an entry inside either is dropped, one outside both kept.
    let s = setup();
    let other = tempfile::tempdir().unwrap();
    let other = crate::files::canonical(other.path());
    let (ws, out, far) = (s.ws.display(), s.out.display(), other.display());
    let path = format!("{ws}/node_modules/.bin:{out}/bin:{far}");
    let vars = [
      ("PATH", path.as_str()),
      ("NODE_OPTIONS", &format!("--require {ws}/hook.cjs")),
    ];
    let alone = ChildEnv::for_home(&EnvSnapshot::from_pairs(&vars), &s.out);
    assert_eq!(
      value(&alone, "PATH").unwrap(),
      format!("{ws}/node_modules/.bin:{far}")
    );
    let both = ChildEnv::for_homes(
      &EnvSnapshot::from_pairs(&vars),
      &[s.out.clone(), s.ws.clone()],
    );
    assert_eq!(value(&both, "PATH").unwrap(), far.to_string());
    assert_eq!(value(&both, "NODE_OPTIONS"), None, "{:?}", dropped(&both));
    assert_eq!(
      dropped(&both),
      vec![
        ("PATH".to_string(), format!("{ws}/node_modules/.bin")),
        ("PATH".to_string(), format!("{out}/bin")),
        (
          "NODE_OPTIONS".to_string(),
          format!("--require {ws}/hook.cjs")
        ),
      ]
    );
  }

  #[test]
  fn a_list_with_nothing_left_is_removed_and_an_untouched_one_is_kept_byte_for_byte() {
    let s = setup();
    let c = child(&s, &[("PATH", "")]);
    assert_eq!(
      value(&c, "PATH"),
      None,
      "an empty PATH means the working directory"
    );
    assert_eq!(dropped(&c), vec![("PATH".into(), String::new())]);
    let c = child(
      &s,
      &[("PATH", &format!("{}/node_modules/.bin", s.ws.display()))],
    );
    assert_eq!(value(&c, "PATH"), None);
    let c = child(&s, &[]);
    assert_eq!(value(&c, "PATH"), None, "PATH unset stays unset");
    assert!(c.dropped.is_empty());
    let user = format!("{}/bin::", s.out.display());
    let c = child(&s, &[("PATH", &user), ("NODE_PATH", "/usr/lib/node")]);
    assert_eq!(
      value(&c, "PATH").unwrap(),
      format!("{}/bin", s.out.display())
    );
    assert_eq!(value(&c, "NODE_PATH").unwrap(), "/usr/lib/node");
  }

  #[test]
  fn the_opt_in_passes_the_environment_unfiltered() {
    let s = setup();
    let path = format!("{}/node_modules/.bin:.::/usr/bin", s.ws.display());
    let c = child(
      &s,
      &[
        ("PATH", &path),
        ("NODE_OPTIONS", "-r ./x.js"),
        ("PI_CODEGRAPH_ALLOW_WORKSPACE_BIN", "1"),
      ],
    );
    assert_eq!(value(&c, "PATH").unwrap(), path);
    assert_eq!(value(&c, "NODE_OPTIONS").unwrap(), "-r ./x.js");
    assert!(c.dropped.is_empty());
  }

  #[test]
  fn loader_and_library_lists_follow_the_path_rule() {
    let s = setup();
    let (ws, out) = (s.ws.display(), s.out.display());
    let c = child(
      &s,
      &[
        ("NODE_PATH", &format!("lib::{ws}/node_modules:{out}/bin")),
        (
          "LD_PRELOAD",
          &format!("./evil.so {out}/bin/ok.so {ws}/x.so"),
        ),
        ("LD_LIBRARY_PATH", &format!(":{out}/bin")),
        ("DYLD_INSERT_LIBRARIES", "evil.dylib"),
        ("NODE_COMPILE_CACHE", ".cache"),
        ("CODEGRAPH_KERNEL_PATH", &format!("{ws}/k.node")),
        ("BASH_ENV", &format!("{out}/bin/env.sh")),
        ("OPENSSL_CONF", "openssl.cnf"),
        ("GCONV_PATH", &format!("{ws}/gconv")),
        ("GIT_DIR", ".git"),
      ],
    );
    assert_eq!(value(&c, "OPENSSL_CONF"), None);
    assert_eq!(value(&c, "GCONV_PATH"), None);
    assert_eq!(value(&c, "NODE_PATH").unwrap(), format!("{out}/bin"));
    assert_eq!(value(&c, "LD_PRELOAD").unwrap(), format!("{out}/bin/ok.so"));
    assert_eq!(value(&c, "LD_LIBRARY_PATH").unwrap(), format!("{out}/bin"));
    assert_eq!(value(&c, "DYLD_INSERT_LIBRARIES"), None);
    assert_eq!(value(&c, "NODE_COMPILE_CACHE"), None);
    assert_eq!(value(&c, "CODEGRAPH_KERNEL_PATH"), None);
    assert_eq!(value(&c, "BASH_ENV").unwrap(), format!("{out}/bin/env.sh"));
    assert_eq!(
      value(&c, "GIT_DIR").unwrap(),
      ".git",
      "git variables choose no code: kept"
    );
  }

  #[test]
  fn node_options_is_kept_whole_or_dropped_whole() {
    let s = setup();
    let (ws, out) = (s.ws.display(), s.out.display());
    let kept = [
      "--max-old-space-size=4096 --enable-source-maps".to_owned(),
      format!("--require {out}/bin/hook.js --inspect"),
      format!("--import=\"{out}/bin/a b.mjs\""),
      "--title x".into(),
      String::new(),
    ];
    for v in &kept {
      let c = child(&s, &[("NODE_OPTIONS", v)]);
      assert_eq!(
        value(&c, "NODE_OPTIONS").as_deref(),
        Some(v.as_str()),
        "{v}"
      );
      assert!(c.dropped.is_empty(), "{v}");
    }
    let refused = [
      "--require ./x.js".to_owned(),
      "-r ./x.js".into(),
      "--max-old-space-size=4096 -r dotenv/config".into(),
      "--import=./x.mjs".into(),
      "--experimental_loader=./hooks.mjs".into(),
      "--loader \"./a b.mjs\"".into(),
      format!("--require {ws}/x.js"),
      format!(
        "--import {out}/../{}/x.mjs",
        s.ws.file_name().unwrap().to_string_lossy()
      ),
      "--openssl-config=openssl.cnf".into(),
      "--env-file=.env".into(),
      "--experimental-default-config-file".into(),
      "--require".into(),
      "--title \"unterminated".into(),
    ];
    for v in &refused {
      let c = child(&s, &[("NODE_OPTIONS", v)]);
      assert_eq!(value(&c, "NODE_OPTIONS"), None, "{v}");
      assert_eq!(c.dropped.len(), 1, "{v}");
      assert_eq!(c.dropped[0].variable, "NODE_OPTIONS");
    }
  }
}

#[cfg(windows)]
#[test]
fn windows_children_do_not_search_the_working_directory() {
  let c = ChildEnv::for_home(
    &EnvSnapshot::from_pairs(&[("Path", r"C:\Windows")]),
    Path::new(r"C:\ws"),
  );
  assert!(c
    .vars
    .iter()
    .any(|(k, v)| k == "NoDefaultCurrentDirectoryInExePath" && v == "1"));
  assert!(c
    .vars
    .iter()
    .any(|(k, v)| k == "Path" && v == r"C:\Windows"));
}

#[cfg(unix)]
#[test]
fn git_hooks_are_pinned_last_and_quoted() {
  let pinned = |pairs: &[(&str, &str)], own: Option<&Path>| {
    let mut env = ChildEnv::for_home(
      &EnvSnapshot::from_pairs(pairs),
      Path::new("/nonexistent-workspace"),
    );
    env.pin_git_hooks(own);
    env
      .vars
      .iter()
      .filter(|(k, _)| k == "GIT_CONFIG_PARAMETERS")
      .map(|(_, v)| v.clone())
      .collect::<Vec<_>>()
  };
  assert_eq!(
    pinned(&[], None),
    vec![OsString::from("'core.hookspath=/dev/null'")]
  );
  assert_eq!(
    pinned(
      &[("GIT_CONFIG_PARAMETERS", "'core.hooksPath'='/x'")],
      Some(Path::new("/w/it's/.git/hooks"))
    ),
    vec![OsString::from(
      r"'core.hooksPath'='/x' 'core.hookspath=/w/it'\''s/.git/hooks'"
    )]
  );
}
