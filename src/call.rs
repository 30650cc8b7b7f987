//! A call as the WebAssembly build's host (the Node runner, lib/runners/node/command-run.js and
//! git-run.js) gives it to the core, on the host's thread: its arguments read as the addon reads
//! them (src/args.rs), and what a run that exited non-zero meant (crates/core/src/exit_verdict.rs,
//! git_command.rs).

// napi hands the arguments over by value.
#![allow(clippy::needless_pass_by_value)]

use std::path::Path;

use napi::bindgen_prelude::{Buffer, Unknown};
use napi::Env;
use napi_derive::napi;
use pi_codegraph_core::exit_verdict::{self, Exited};

use crate::args;
use crate::types::Problem;

/// How a run ended, as the Node runner saw it (crates/core/src/exit_verdict.rs `Exited`).
#[napi(object)]
pub struct ExitedRun {
  pub exit_code: Option<i32>,
  /// The signal's number on this host, and the name Node gives it.
  pub signal: Option<i32>,
  pub signal_name: Option<String>,
  pub stderr_tail: String,
  pub stdout_text: String,
}

/// Whether the CLI said it could not open (or find, or write) its database: the index paths'
/// access is then worth checking, not only the workspace's.
#[napi(js_name = "saysCannotOpen")]
pub fn says_cannot_open(stderr_tail: String) -> bool {
  exit_verdict::says_cannot_open(&stderr_tail)
}

/// What a run that exited non-zero means, once the filesystem found nothing blocked: an index
/// the CLI cannot use, a read-only one, or CODEGRAPH_EXIT with its stderr tail.
#[napi(js_name = "exitProblem")]
pub fn exit_problem(run: ExitedRun, workspace: String, index_dir: String) -> Problem {
  let exited = Exited {
    code: run.exit_code,
    signal: run.signal,
    signal_name: run.signal_name.as_deref(),
    stderr_tail: &run.stderr_tail,
    stdout_text: &run.stdout_text,
  };
  let err =
    exit_verdict::classify_exit(&exited, Path::new(&workspace), Path::new(&index_dir), None);
  Problem::of(&err)
}

/// A command as the core read and checked it (crates/core/src/command.rs), for the Node runner.
/// Its strings go back as UTF-8 bytes: emnapi decodes a string of over 16 bytes with a
/// `TextDecoder` that drops a leading U+FEFF, and the CLI must get the caller's text as it was.
#[napi(object)]
#[allow(clippy::struct_excessive_bools)] // the command's own flags, as the core has them
pub struct CheckedCommand {
  pub subcommand: String,
  /// What the CLI is given, each as UTF-8: the subcommand, its options, and `--` before the
  /// user's text.
  pub argv: Vec<Buffer>,
  /// The user's text, as UTF-8.
  pub positional: Option<Buffer>,
  pub max_bytes: u32,
  pub max_lines: u32,
  pub writes_index: bool,
  pub needs_index: bool,
  /// A command that reads the index is refused while its last write never finished.
  pub refuses_interrupted: bool,
  pub progress: bool,
  /// Pi's workspace, when the command runs in another root on its behalf, as UTF-8.
  pub workspace: Option<Buffer>,
}

/// `run()`'s arguments as the core reads them (src/args.rs, the addon's own reading): the checked
/// command, the timeout (the caller's, else the command's) and whether a progress callback was
/// given; or the first problem. (The workspace is the caller's string, once the core found it one.)
#[napi(object, object_from_js = false)]
pub struct ReadCall {
  pub problem: Option<Problem>,
  pub command: Option<CheckedCommand>,
  pub timeout_ms: Option<f64>,
  pub on_progress: bool,
}

/// UTF-8 bytes for JS.
fn utf8(text: impl Into<Vec<u8>>) -> Buffer {
  Buffer::from(text.into())
}

/// Reads `run()`'s command, workspace and options as the addon does (the signal is the caller's).
#[napi(js_name = "readCall")]
pub fn read_call<'env>(
  env: &Env,
  command: Unknown<'env>,
  cwd: Unknown<'env>,
  options: Option<Unknown<'env>>,
) -> ReadCall {
  match args::read_call(env, &command, &cwd, options) {
    Ok(call) => {
      let c = call.command;
      let checked = CheckedCommand {
        argv: c
          .argv()
          .into_iter()
          .map(|a| utf8(a.to_string_lossy().into_owned()))
          .collect(),
        refuses_interrupted: c.refuses_interrupted(),
        subcommand: c.subcommand,
        positional: c.positional.map(utf8),
        max_bytes: u32::try_from(c.caps.bytes).unwrap_or(u32::MAX),
        max_lines: u32::try_from(c.caps.lines).unwrap_or(u32::MAX),
        writes_index: c.writes_index,
        needs_index: c.needs_index,
        progress: c.progress,
        workspace: c.workspace.map(|w| utf8(w.to_string_lossy().into_owned())),
      };
      ReadCall {
        problem: None,
        command: Some(checked),
        timeout_ms: Some(call.timeout.as_millis() as f64),
        on_progress: call.on_progress.is_some(),
      }
    }
    Err(err) => ReadCall {
      problem: Some(Problem::of(&err)),
      command: None,
      timeout_ms: None,
      on_progress: false,
    },
  }
}

/// The CLI `root`'s live descendants that left its process group (Linux's `/proc`, read through
/// the host's root): the Node runner SIGKILLs them before the group (crates/core/src/pid.rs).
#[napi(js_name = "straysOf")]
pub fn strays_of(root: u32) -> Vec<u32> {
  pi_codegraph_core::pid::descendants_outside_group(root)
}
