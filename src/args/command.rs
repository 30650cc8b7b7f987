//! A command description (`lib/contract/commands.js` builds them) read out of whatever JS passed, field
//! by field with a coded error for each wrong type, then checked by the core's own rules
//! (`Command::check`). Nothing reads napi's typed conversion: a wrong type never reaches napi's
//! untyped error.

use std::path::PathBuf;
use std::time::Duration;

use napi::bindgen_prelude::{FromNapiValue, JsObjectValue, Object, Unknown};
use napi::ValueType;
use pi_codegraph_core::caps::Caps;
use pi_codegraph_core::command::Command;
use pi_codegraph_core::errors::{CodegraphError, OptionsReason, RequestReason};

use super::{invalid_options, string_arg, strings, timeout_ms, whole_number};

/// The description object itself, or CODEGRAPH_INVALID_OPTIONS.
pub fn description<'env>(command: &Unknown<'env>) -> Result<Object<'env>, CodegraphError> {
  let not_one = || invalid_options(OptionsReason::NotCommand);
  match command.get_type() {
    Ok(ValueType::Object) => Object::from_unknown(*command).map_err(|_| not_one()),
    _ => Err(not_one()),
  }
}

fn field<'env>(d: &Object<'env>, name: &'static str) -> Result<Unknown<'env>, CodegraphError> {
  d.get_named_property::<Unknown>(name)
    .map_err(|_| invalid_options(OptionsReason::CommandUnreadable { field: name }))
}

/// The user's text: absent when the description has no `positional` key; present, it must be a
/// string (checked first, as explore's request is: CODEGRAPH_INVALID_REQUEST).
pub fn positional(d: &Object) -> Result<Option<String>, CodegraphError> {
  let present = d.has_named_property("positional").map_err(|_| {
    invalid_options(OptionsReason::CommandUnreadable {
      field: "positional",
    })
  })?;
  if !present {
    return Ok(None);
  }
  string_arg(&field(d, "positional")?)
    .map(Some)
    .ok_or(CodegraphError::InvalidRequest {
      reason: RequestReason::NotString,
    })
}

/// The rest of the description, checked by the core.
pub fn rest(d: &Object, positional: Option<String>) -> Result<Command, CodegraphError> {
  let subcommand =
    string_arg(&field(d, "subcommand")?).ok_or_else(|| expected("subcommand", "string"))?;
  let options = string_list(&field(d, "options")?)?;
  let number = |name: &'static str| -> Result<usize, CodegraphError> {
    whole_number(&field(d, name)?)
      .map(|n| n as usize)
      .ok_or_else(|| expected(name, "wholeNumber"))
  };
  let caps = Caps {
    bytes: number("maxBytes")?,
    lines: number("maxLines")?,
  };
  let timeout: Duration =
    timeout_ms(&field(d, "timeoutMs")?, "command.timeoutMs")?.ok_or_else(|| {
      invalid_options(OptionsReason::TimeoutMs {
        field: "command.timeoutMs",
      })
    })?;
  let flag = |name: &'static str| -> Result<bool, CodegraphError> {
    let value = field(d, name)?;
    match value.get_type() {
      Ok(ValueType::Boolean) => bool::from_unknown(value).ok(),
      _ => None,
    }
    .ok_or_else(|| expected(name, "boolean"))
  };
  let progress = match string_arg(&field(d, "progress")?).as_deref() {
    Some("stdout") => true,
    Some("none") => false,
    _ => return Err(expected("progress", "progress")),
  };
  let command = Command {
    subcommand,
    options,
    positional,
    caps,
    timeout,
    writes_index: flag("writesIndex")?,
    needs_index: flag("needsIndex")?,
    allow_interrupted: optional_flag(d, "allowInterrupted")?,
    progress,
    workspace: workspace(d)?,
    warm: optional_flag(d, "warm")?,
  };
  command.check()?;
  Ok(command)
}

/// An optional boolean: absent, undefined or null is false; anything else must be a boolean.
fn optional_flag(d: &Object, name: &'static str) -> Result<bool, CodegraphError> {
  let value = field(d, name)?;
  match value.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => Ok(false),
    Ok(ValueType::Boolean) => bool::from_unknown(value).map_err(|_| expected(name, "boolean")),
    _ => Err(expected(name, "boolean")),
  }
}

/// The optional `workspace` (Pi's, when cwd is another root): absent, undefined or null is none;
/// anything else must be a string (the core checks that it is absolute).
fn workspace(d: &Object) -> Result<Option<PathBuf>, CodegraphError> {
  let value = field(d, "workspace")?;
  match value.get_type() {
    Ok(ValueType::Undefined | ValueType::Null) => Ok(None),
    _ => string_arg(&value)
      .map(|s| Some(PathBuf::from(s)))
      .ok_or_else(|| expected("workspace", "absolutePath")),
  }
}

/// An array of strings (the options), bounded before reading (the core allows far fewer:
/// `Command::check`).
fn string_list(value: &Unknown) -> Result<Vec<String>, CodegraphError> {
  strings(value, 1024).ok_or_else(|| expected("options", "stringList"))
}

/// `command.<field>` is not what it must be.
fn expected(field: &'static str, expected: &'static str) -> CodegraphError {
  invalid_options(OptionsReason::CommandField { field, expected })
}
