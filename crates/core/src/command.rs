//! A CodeGraph command as data: which subcommand, its options, the user's text, its caps, its
//! deadline, whether it may write the index and whether it reports progress. The runner
//! (`command_run::run_command`) gives every command the same guarantees; a new command is a new
//! description (built in JS by `lib/contract/commands.js`), not new runner code.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::caps::{Caps, MIN_CAP_BYTES, MIN_CAP_LINES};
use crate::errors::{CodegraphError, OptionsReason};

/// The default deadline of a command (explore's).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest deadline an index-writing command may have. `codegraph init` took 146 s on Home
/// Assistant and users report 23 minutes on larger code bases; an hour covers those with room,
/// while a write that never ends cannot hold the index lock (and every explore) forever.
pub const MAX_WRITE_TIMEOUT: Duration = Duration::from_hours(1);
/// Bounds on the argv a description may build.
const MAX_OPTIONS: usize = 32;
const MAX_OPTION_BYTES: usize = 1024;
const MAX_SUBCOMMAND_BYTES: usize = 32;

/// One CodeGraph command. `options` are `--name` or `--name=value`; `positional` is the user's
/// text, passed after `--` so that it never becomes an option.
// Each flag is one independent field of the JS description (writesIndex, needsIndex,
// allowInterrupted, progress): an enum would not read as the description does.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Command {
  pub subcommand: String,
  pub options: Vec<String>,
  pub positional: Option<String>,
  pub caps: Caps,
  pub timeout: Duration,
  /// A command that writes the index is refused at once while another writer is active; one
  /// that reads waits for the writer (`command_run::WRITER_WAIT`).
  pub writes_index: bool,
  /// Whether the workspace must already hold its own index (explore) or not (init).
  pub needs_index: bool,
  /// Whether it may run on an index whose last write never finished (CODEGRAPH_INDEX_INTERRUPTED
  /// otherwise, for a command that reads the index): `status`, which reports that state itself.
  pub allow_interrupted: bool,
  /// Whether partial stdout is reported while it arrives.
  pub progress: bool,
  /// Pi's workspace, when the command runs in another root (cwd) on its behalf: code inside it
  /// is kept from the child as code inside cwd is (PATH entries, the executable, NODE_OPTIONS).
  pub workspace: Option<PathBuf>,
  /// Answer through the workspace's long-lived CodeGraph when the command is one it answers
  /// (`warm::tool_call`): the glue asks for it while the user has auto sync on.
  pub warm: bool,
}

impl Command {
  /// `codegraph explore -- <request>`: the contract's caps and default deadline.
  pub fn explore(request: String) -> Self {
    Self {
      subcommand: "explore".into(),
      options: Vec::new(),
      positional: Some(request),
      caps: Caps::MAX,
      timeout: DEFAULT_TIMEOUT,
      writes_index: false,
      needs_index: true,
      allow_interrupted: false,
      progress: true,
      workspace: None,
      warm: false,
    }
  }

  /// The description's own rules (the positional text is checked by the preflight, as a
  /// request): a malformed description is CODEGRAPH_INVALID_OPTIONS and never runs.
  pub fn check(&self) -> Result<(), CodegraphError> {
    let bad = |reason: OptionsReason| Err(CodegraphError::InvalidOptions { reason });
    let sub = &self.subcommand;
    if sub.is_empty()
      || sub.len() > MAX_SUBCOMMAND_BYTES
      || !sub.starts_with(|c: char| c.is_ascii_lowercase())
      || !sub.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
    {
      return bad(OptionsReason::Subcommand {
        max_bytes: MAX_SUBCOMMAND_BYTES,
      });
    }
    if self.options.len() > MAX_OPTIONS {
      return bad(OptionsReason::TooManyOptions { max: MAX_OPTIONS });
    }
    if let Some(option) = self.options.iter().find(|o| !valid_option(o)) {
      return bad(OptionsReason::BadOption {
        shown: option.chars().take(40).collect(),
        max_bytes: MAX_OPTION_BYTES,
      });
    }
    let caps = self.caps;
    if !(MIN_CAP_BYTES..=Caps::LARGEST.bytes).contains(&caps.bytes)
      || !(MIN_CAP_LINES..=Caps::LARGEST.lines).contains(&caps.lines)
    {
      return bad(OptionsReason::Caps {
        min_bytes: MIN_CAP_BYTES,
        max_bytes: Caps::LARGEST.bytes,
        min_lines: MIN_CAP_LINES,
        max_lines: Caps::LARGEST.lines,
      });
    }
    if self
      .workspace
      .as_ref()
      .is_some_and(|w| !w.is_absolute() || w.as_os_str().to_string_lossy().contains('\0'))
    {
      return bad(OptionsReason::CommandField {
        field: "workspace",
        expected: "absolutePath",
      });
    }
    if self.writes_index && self.timeout > MAX_WRITE_TIMEOUT {
      return bad(OptionsReason::WriteTimeout {
        field: "command.timeoutMs",
        max_ms: MAX_WRITE_TIMEOUT.as_millis() as u64,
      });
    }
    Ok(())
  }

  /// Whether an index whose last write never finished is refused: a command that reads it.
  pub fn refuses_interrupted(&self) -> bool {
    self.needs_index && !self.writes_index && !self.allow_interrupted
  }

  /// The CLI's arguments: the subcommand, its options, and `--` before the user's text.
  pub fn argv(&self) -> Vec<OsString> {
    let mut argv: Vec<OsString> = Vec::with_capacity(self.options.len() + 3);
    argv.push(self.subcommand.clone().into());
    argv.extend(self.options.iter().map(OsString::from));
    if let Some(text) = &self.positional {
      argv.push("--".into());
      argv.push(text.clone().into());
    }
    argv
  }
}

/// `--name` or `--name=value`: a name of lowercase letters, digits and dashes (starting with a
/// letter or digit), a value without NUL or line breaks.
fn valid_option(option: &str) -> bool {
  let Some(rest) = option.strip_prefix("--") else {
    return false;
  };
  let (name, value) = rest.split_once('=').unwrap_or((rest, ""));
  option.len() <= MAX_OPTION_BYTES
    && name
      .bytes()
      .next()
      .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    && name
      .bytes()
      .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    && !value.contains(['\0', '\n', '\r'])
}

#[cfg(test)]
mod tests {
  use super::*;

  fn with(f: impl FnOnce(&mut Command)) -> Command {
    let mut c = Command::explore("q".into());
    f(&mut c);
    c
  }

  #[test]
  fn explore_is_the_request_after_double_dash() {
    let c = Command::explore("-p /etc".into());
    assert!(c.check().is_ok());
    assert_eq!(c.argv(), ["explore", "--", "-p /etc"]);
  }

  #[test]
  fn options_go_as_name_value_before_the_text() {
    let c = with(|c| {
      c.subcommand = "node".into();
      c.options = vec!["--file=src/a b.ts".into(), "--symbols-only".into()];
    });
    assert!(c.check().is_ok());
    assert_eq!(
      c.argv(),
      ["node", "--file=src/a b.ts", "--symbols-only", "--", "q"]
    );
    let none = with(|c| c.positional = None);
    assert_eq!(none.argv(), ["explore"]);
  }

  #[test]
  fn malformed_descriptions_are_invalid_options() {
    let cases = [
      with(|c| c.subcommand = String::new()),
      with(|c| c.subcommand = "-p".into()),
      with(|c| c.subcommand = "Explore".into()),
      with(|c| c.subcommand = "a b".into()),
      with(|c| c.options = vec!["-p".into()]),
      with(|c| c.options = vec!["--".into()]),
      with(|c| c.options = vec!["--Path=x".into()]),
      with(|c| c.options = vec!["--path=a\nb".into()]),
      with(|c| c.options = vec!["--path=a\0b".into()]),
      with(|c| c.options = vec![format!("--p={}", "x".repeat(MAX_OPTION_BYTES))]),
      with(|c| c.options = vec!["--x".into(); MAX_OPTIONS + 1]),
      with(|c| c.caps.bytes = MIN_CAP_BYTES - 1),
      with(|c| c.caps.bytes = Caps::LARGEST.bytes + 1),
      with(|c| c.caps.lines = MIN_CAP_LINES - 1),
      with(|c| c.caps.lines = Caps::LARGEST.lines + 1),
      with(|c| {
        c.writes_index = true;
        c.timeout = MAX_WRITE_TIMEOUT + Duration::from_millis(1);
      }),
    ];
    for c in cases {
      let err = c.check().expect_err(&format!("{c:?}"));
      assert!(
        matches!(err, CodegraphError::InvalidOptions { .. }),
        "{err:?}"
      );
    }
  }
}
