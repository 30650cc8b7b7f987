//! A git description (`lib/contract/git.js` builds them) read out of whatever JS passed, for both
//! builds: field by field, each wrong type CODEGRAPH_GIT `invalid` with the description's problem,
//! then the core's own rules (`GitCommand::check`). Nothing reads napi's typed conversion.

use std::time::Duration;

use napi::bindgen_prelude::{FromNapiValue, JsObjectValue, Object, Unknown};
use napi::ValueType;
use pi_codegraph_core::caps::Caps;
use pi_codegraph_core::errors::{CodegraphError, GitProblem, GitReason};
use pi_codegraph_core::git_command::{invalid_git, GitCommand};

use super::{clear_pending_exception, string_arg, strings, whole_number};

/// How many arguments are read at most (the core allows far fewer: `GitCommand::check`).
const ARGS_READ_AT_MOST: u32 = 64;

/// The description `command`, read and checked; a JS exception a getter left pending is cleared.
pub fn read_git(env: &napi::Env, command: &Unknown) -> Result<GitCommand, CodegraphError> {
  let read = read(command);
  clear_pending_exception(env);
  read
}

fn read(command: &Unknown) -> Result<GitCommand, CodegraphError> {
  let bad = |subcommand: &str, problem| invalid_git(subcommand, GitReason::Invalid { problem });
  let d = match command.get_type() {
    Ok(ValueType::Object) => Object::from_unknown(*command).ok(),
    _ => None,
  }
  .ok_or_else(|| bad("", GitProblem::GitProgram))?;
  let field = |name: &str| d.get_named_property::<Unknown>(name).ok();
  if field("program").and_then(|p| string_arg(&p)).as_deref() != Some("git") {
    return Err(bad("", GitProblem::GitProgram));
  }
  let subcommand = field("subcommand")
    .and_then(|s| string_arg(&s))
    .ok_or_else(|| bad("", GitProblem::GitSubcommand))?;
  let args = field("args")
    .and_then(|a| strings(&a, ARGS_READ_AT_MOST))
    .ok_or_else(|| bad(&subcommand, GitProblem::GitArgs))?;
  let whole = |name: &str| field(name).and_then(|n| whole_number(&n));
  let (Some(bytes), Some(lines)) = (whole("maxBytes"), whole("maxLines")) else {
    return Err(bad(&subcommand, GitProblem::Caps));
  };
  let timeout = whole("timeoutMs").ok_or_else(|| bad(&subcommand, GitProblem::TimeoutMs))?;
  let command = GitCommand {
    subcommand,
    args,
    caps: Caps {
      bytes: bytes as usize,
      lines: lines as usize,
    },
    timeout: Duration::from_millis(u64::from(timeout)),
  };
  command.check()?;
  Ok(command)
}
