use super::*;

fn diff(args: &[&str]) -> GitCommand {
  GitCommand {
    subcommand: "diff".into(),
    args: args.iter().map(|a| (*a).to_owned()).collect(),
    caps: Caps::MAX,
    timeout: Duration::from_secs(10),
  }
}

#[test]
fn argv_puts_the_safety_settings_first_and_the_diff_safety_after_the_subcommand() {
  let argv = diff(&["HEAD", "--unified=0"]).argv();
  let at = argv.iter().position(|a| a == "diff").unwrap();
  assert_eq!(at, GIT_SAFETY.len());
  assert!(argv[..at].iter().any(|a| a == "core.fsmonitor=false"));
  assert!(argv[..at].iter().any(|a| a == NO_HOOKS));
  assert_eq!(argv[at + 1], "--no-ext-diff");
  assert_eq!(argv.last().unwrap(), "--unified=0");
}

#[test]
fn only_read_only_subcommands_and_option_arguments_run() {
  assert!(diff(&["HEAD"]).check().is_ok());
  let worktree = |args: &[&str]| GitCommand {
    subcommand: "worktree".into(),
    ..diff(args)
  };
  assert!(worktree(&["list", "--porcelain"]).check().is_ok());
  for bad in [
    worktree(&["add", "x"]),
    worktree(&["remove", "--force"]),
    worktree(&["list"]),
    worktree(&["list", "--porcelain", "-z"]),
    GitCommand {
      subcommand: "commit".into(),
      ..diff(&[])
    },
    diff(&["src/a.rs"]),
    diff(&["-c", "x"]),
    diff(&["---x"]),
    diff(&["--output=a\nb"]),
    GitCommand {
      timeout: Duration::ZERO,
      ..diff(&[])
    },
  ] {
    let err = bad.check().expect_err(&format!("{bad:?}"));
    assert!(matches!(
      err,
      CodegraphError::Git {
        reason: GitReason::Invalid { .. },
        ..
      }
    ));
  }
}

#[test]
fn stderr_names_the_reason() {
  let r = |s: &str| exit_reason(128, s.to_owned());
  assert_eq!(
    r("fatal: not a git repository (or any of the parent directories): .git"),
    GitReason::NotRepository
  );
  assert_eq!(
    r("fatal: ambiguous argument 'HEAD': unknown revision"),
    GitReason::NoHead
  );
  assert!(matches!(r("fatal: other"), GitReason::Exit { .. }));
}
