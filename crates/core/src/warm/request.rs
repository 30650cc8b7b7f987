//! Which commands the long-lived CodeGraph answers, and as which of its tools: `explore` and
//! `node`, whose CLI faces call CodeGraph's own `ToolHandler.execute("codegraph_explore" |
//! "codegraph_node", args)` and print its first text (`bin/codegraph.js`), so the server's reply
//! to the same arguments is the CLI's answer. The arguments are built here exactly as the CLI
//! builds them from its argv; anything else (another subcommand, an option the CLI maps
//! differently or that is not a plain number) is `None` and runs as a process.

use serde_json::{Map, Value};

use crate::command::Command;

/// The MCP tool and its arguments that answer `command` as its CLI run would, or `None`.
pub fn tool_call(command: &Command) -> Option<(&'static str, Value)> {
  let options = Options::read(&command.options)?;
  match command.subcommand.as_str() {
    "explore" => explore(command.positional.as_deref()?, &options),
    "node" => node(command.positional.as_deref(), &options),
    _ => None,
  }
}

/// `codegraph explore [--max-files=N] -- <query>`.
fn explore(query: &str, options: &Options) -> Option<(&'static str, Value)> {
  let mut args = Map::new();
  args.insert("query".into(), query.into());
  if let Some(n) = options.number("max-files").ok()? {
    args.insert("maxFiles".into(), n.into());
  }
  options.only(&["max-files"])?;
  Some(("codegraph_explore", Value::Object(args)))
}

/// `codegraph node [--file=F] [--offset=N] [--limit=N] [--symbols-only] [-- <name>]`, mapped as
/// the CLI's action maps it: a file pins a symbol (then its body is asked); a name with a path
/// separator is a file read; a bare name is a symbol with its body.
fn node(name: Option<&str>, options: &Options) -> Option<(&'static str, Value)> {
  options.only(&["file", "offset", "limit", "symbols-only"])?;
  let mut args = Map::new();
  let name = name.filter(|n| !n.is_empty());
  match (options.text("file"), name) {
    (Some(file), name) => {
      args.insert("file".into(), file.into());
      if let Some(name) = name.filter(|n| *n != file) {
        args.insert("symbol".into(), name.into());
        args.insert("includeCode".into(), true.into());
      }
    }
    (None, Some(name)) if name.contains(['/', '\\']) => {
      args.insert("file".into(), name.replace('\\', "/").into());
    }
    (None, Some(name)) => {
      args.insert("symbol".into(), name.into());
      args.insert("includeCode".into(), true.into());
    }
    // The CLI refuses this itself, in its own words: a process says them.
    (None, None) => return None,
  }
  for (option, field) in [("offset", "offset"), ("limit", "limit")] {
    if let Some(n) = options.number(option).ok()? {
      args.insert(field.into(), n.into());
    }
  }
  if options.flag("symbols-only") {
    args.insert("symbolsOnly".into(), true.into());
  }
  Some(("codegraph_node", Value::Object(args)))
}

/// A command's `--name` and `--name=value` options, by name (a name given twice: not served).
struct Options<'a>(Vec<(&'a str, Option<&'a str>)>);

impl<'a> Options<'a> {
  fn read(options: &'a [String]) -> Option<Self> {
    let mut read: Vec<(&str, Option<&str>)> = Vec::with_capacity(options.len());
    for option in options {
      let rest = option.strip_prefix("--")?;
      let (name, value) = match rest.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (rest, None),
      };
      if read.iter().any(|(n, _)| *n == name) {
        return None;
      }
      read.push((name, value));
    }
    Some(Self(read))
  }

  /// `None` when an option outside `known` was given.
  fn only(&self, known: &[&str]) -> Option<()> {
    self.0.iter().all(|(n, _)| known.contains(n)).then_some(())
  }

  fn text(&self, name: &str) -> Option<&'a str> {
    self
      .0
      .iter()
      .find(|(n, _)| *n == name)
      .and_then(|(_, v)| *v)
  }

  fn flag(&self, name: &str) -> bool {
    self.0.iter().any(|(n, v)| *n == name && v.is_none())
  }

  /// `Ok(None)` when absent, `Ok(Some(n))` for a plain decimal number, `Err` for anything else
  /// (the CLI's `parseInt` would read it its own way: a process does).
  fn number(&self, name: &str) -> Result<Option<u64>, ()> {
    match self.0.iter().find(|(n, _)| *n == name) {
      None => Ok(None),
      Some((_, Some(v)))
        if !v.is_empty() && v.len() <= 9 && v.bytes().all(|b| b.is_ascii_digit()) =>
      {
        v.parse().map(Some).map_err(|_| ())
      }
      Some(_) => Err(()),
    }
  }
}

#[cfg(test)]
mod tests {
  use serde_json::json;

  use super::*;

  fn command(subcommand: &str, options: &[&str], positional: Option<&str>) -> Command {
    let mut c = Command::explore(String::new());
    c.subcommand = subcommand.into();
    c.options = options.iter().map(|o| (*o).to_string()).collect();
    c.positional = positional.map(str::to_string);
    c
  }

  #[test]
  fn explore_and_node_map_as_the_cli_maps_its_argv() {
    let cases = [
      (
        command("explore", &[], Some("how -p /etc")),
        json!({"query": "how -p /etc"}),
      ),
      (
        command("explore", &["--max-files=3"], Some("q")),
        json!({"query": "q", "maxFiles": 3}),
      ),
      (
        command("node", &[], Some("parse")),
        json!({"symbol": "parse", "includeCode": true}),
      ),
      (
        command("node", &[], Some("src\\a.ts")),
        json!({"file": "src/a.ts"}),
      ),
      (
        command("node", &["--file=src/a b.ts"], Some("parse")),
        json!({"file": "src/a b.ts", "symbol": "parse", "includeCode": true}),
      ),
      (
        command("node", &["--file=src/a.ts"], Some("src/a.ts")),
        json!({"file": "src/a.ts"}),
      ),
      (
        command(
          "node",
          &["--file=a.ts", "--offset=10", "--limit=40", "--symbols-only"],
          None,
        ),
        json!({"file": "a.ts", "offset": 10, "limit": 40, "symbolsOnly": true}),
      ),
    ];
    for (c, want) in cases {
      let (_, args) = tool_call(&c).unwrap_or_else(|| panic!("{c:?}"));
      assert_eq!(args, want, "{c:?}");
    }
    assert_eq!(
      tool_call(&command("node", &[], Some("x"))).unwrap().0,
      "codegraph_node"
    );
  }

  #[test]
  fn what_the_cli_reads_its_own_way_runs_as_a_process() {
    let cases = [
      command("query", &[], Some("x")),
      command("callers", &[], Some("x")),
      command("explore", &[], None),
      command("explore", &["--json"], Some("q")),
      command("explore", &["--max-files=3x"], Some("q")),
      command("explore", &["--max-files=1", "--max-files=2"], Some("q")),
      command("node", &[], None),
      command("node", &["--offset=-1"], Some("a/b.ts")),
      command("node", &["--path=/etc"], Some("x")),
    ];
    for c in cases {
      assert!(tool_call(&c).is_none(), "{c:?}");
    }
  }
}
