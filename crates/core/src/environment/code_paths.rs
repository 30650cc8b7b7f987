//! The inherited variables through which the workspace could choose code the child runs, and
//! the rule that keeps the workspace out of them.
//!
//! The child runs with cwd = workspace, so a relative or empty entry in a search list resolves
//! inside it, and a host started by `npm run`/`npx` has `<workspace>/node_modules/.bin` on PATH.
//! CodeGraph's `/bin/sh` launcher runs `dirname` (and `readlink`), and its CLI runs `git`, all
//! looked up on PATH. Each entry of these variables must be absolute and must not resolve inside
//! the workspace (`discovery::resolves_inside`, the rule discovery applies to `codegraph`);
//! other entries are dropped and reported. Kept on purpose (they choose no code): the `GIT_*`
//! variables (1.6.1's explore only runs `git rev-parse --show-toplevel`, which starts nothing
//! from its config), `TMPDIR`, `HOME`, `XDG_*`, and every other variable.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::discovery::resolves_inside_any;
use crate::files::{join_path_list, split_path_list};
use serde::Serialize;

/// Search lists whose entries name programs or libraries to load: PATH (every program the
/// launcher and the CLI start), Node's module path, the dynamic loaders' preload and library
/// paths (glibc and macOS dyld read an empty or relative entry against the cwd), glibc's iconv
/// modules.
const SEARCH_LISTS: &[&str] = &[
  "PATH",
  "NODE_PATH",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "GCONV_PATH",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "DYLD_FALLBACK_LIBRARY_PATH",
  "DYLD_FRAMEWORK_PATH",
  "DYLD_FALLBACK_FRAMEWORK_PATH",
  "DYLD_VERSIONED_LIBRARY_PATH",
  "DYLD_VERSIONED_FRAMEWORK_PATH",
  "DYLD_ROOT_PATH",
];
/// One file or directory that holds code: Node's compile cache (V8 code it loads), OpenSSL's
/// config (Node reads it at startup; it names provider modules to load) and module directories,
/// CodeGraph's native kernel override, the script bash reads before a non-interactive script.
const CODE_FILES: &[&str] = &[
  "NODE_COMPILE_CACHE",
  "OPENSSL_CONF",
  "OPENSSL_MODULES",
  "OPENSSL_ENGINES",
  "CODEGRAPH_KERNEL_PATH",
  "BASH_ENV",
];
/// Node options that load a module or a file (Node accepts `_` for `-` in option names).
const NODE_LOADING_OPTIONS: &[&str] = &[
  "--require",
  "-r",
  "--import",
  "--loader",
  "--experimental-loader",
  "--env-file",
  "--env-file-if-exists",
  "--openssl-config",
  "--experimental-config-file",
  "--experimental-policy",
  "--snapshot-blob",
];
/// Windows searches the working directory before PATH (cmd.exe, and libuv's spawn in the CLI)
/// unless this is set; it is, for the child, unless the user set it.
const NO_CWD_SEARCH: &str = "NoDefaultCurrentDirectoryInExePath";
/// Node options that read a file from the working directory by themselves.
const NODE_CWD_OPTIONS: &[&str] = &["--experimental-default-config-file"];

/// One entry kept from the child, for `details`, doctor and `/codegraph`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dropped {
  pub variable: String,
  /// The entry as it was (lossy UTF-8); lib/words/ shows it printable and bounded.
  pub entry: String,
  pub reason: DropReason,
}

/// Why an entry may not reach the child: a tag lib/words/environment.js words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DropReason {
  /// An empty entry means the working directory: the workspace.
  Empty,
  /// A relative entry resolves against the workspace.
  Relative,
  Inside,
  /// `/proc/self/...`: read by the child, its own files (its cwd is the workspace).
  PerProcess,
  /// NODE_OPTIONS Node itself could not read.
  NodeOptionsUnreadable,
  /// A NODE_OPTIONS option that reads a file from the working directory.
  ReadsWorkspaceFile,
  /// A NODE_OPTIONS loading option naming an absolute path inside the workspace.
  LoadsInside,
  /// A NODE_OPTIONS loading option naming a relative path or a bare module name.
  LoadsRelative,
}

impl DropReason {
  /// The tag as JS sees it (`"perProcess"`, …).
  pub fn tag(self) -> String {
    serde_json::to_value(self)
      .ok()
      .and_then(|v| v.as_str().map(str::to_owned))
      .unwrap_or_default()
  }
}

/// Why `entry` may not reach the child, if it may not.
fn refused(entry: &OsStr, homes: &[PathBuf]) -> Option<DropReason> {
  let path = Path::new(entry);
  if entry.is_empty() {
    Some(DropReason::Empty)
  } else if !path.is_absolute() {
    Some(DropReason::Relative)
  } else if path.starts_with("/proc/self") || path.starts_with("/proc/thread-self") {
    // Resolved here it would be the host's; read by the child, its own cwd: the workspace.
    Some(DropReason::PerProcess)
  } else if resolves_inside_any(path, homes) {
    Some(DropReason::Inside)
  } else {
    None
  }
}

/// `vars` without what would let the workspace choose the child's code (`homes`: the directories
/// counted as the workspace). A list left with no entries is removed (an empty PATH would mean
/// the working directory again).
pub fn filter(
  vars: &[(OsString, OsString)],
  homes: &[PathBuf],
  key_eq: fn(&OsStr, &str) -> bool,
) -> (Vec<(OsString, OsString)>, Vec<Dropped>) {
  let mut dropped = Vec::new();
  let mut kept = Vec::with_capacity(vars.len());
  for (key, value) in vars {
    let is = |names: &[&str]| names.iter().any(|n| key_eq(key, n));
    let name = key.to_string_lossy().into_owned();
    let mut drop = |entry: &OsStr, reason| {
      dropped.push(Dropped {
        variable: name.clone(),
        entry: entry.to_string_lossy().into_owned(),
        reason,
      });
    };
    if is(SEARCH_LISTS) {
      let entries = split_list(value, key_eq(key, "LD_PRELOAD"));
      let mut left = Vec::new();
      for entry in &entries {
        match refused(entry, homes) {
          Some(reason) => drop(entry, reason),
          None => left.push(PathBuf::from(entry)),
        }
      }
      if left.len() == entries.len() {
        kept.push((key.clone(), value.clone()));
      } else if let (false, Some(joined)) = (left.is_empty(), join_path_list(&left)) {
        // (join_paths refuses only a separator inside an entry, which split_paths never yields.)
        kept.push((key.clone(), joined));
      }
    } else if is(CODE_FILES) {
      match refused(value, homes) {
        Some(reason) => drop(value, reason),
        None => kept.push((key.clone(), value.clone())),
      }
    } else if key_eq(key, "NODE_OPTIONS") {
      match node_options_refused(value, homes) {
        Some((option, reason)) => drop(OsStr::new(&option), reason),
        None => kept.push((key.clone(), value.clone())),
      }
    } else {
      kept.push((key.clone(), value.clone()));
    }
  }
  if cfg!(windows) && !kept.iter().any(|(k, _)| key_eq(k, NO_CWD_SEARCH)) {
    kept.push((NO_CWD_SEARCH.into(), "1".into()));
  }
  (kept, dropped)
}

/// A list's entries, empty ones included (`split_paths` keeps them). glibc also separates
/// `LD_PRELOAD` entries with spaces.
fn split_list(value: &OsStr, spaces_too: bool) -> Vec<OsString> {
  let entries: Vec<OsString> = split_path_list(value)
    .into_iter()
    .map(PathBuf::into_os_string)
    .collect();
  if !spaces_too {
    return entries;
  }
  entries
    .iter()
    .flat_map(|e| {
      let text = e.to_string_lossy().into_owned();
      let words: Vec<OsString> = text
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(OsString::from)
        .collect();
      if words.is_empty() {
        vec![e.clone()]
      } else {
        words
      }
    })
    .collect()
}

/// NODE_OPTIONS reaches the child unchanged, or not at all: dropped whole when an option loads a
/// module or file that is not an absolute path outside the workspace (a bare name such as
/// `-r dotenv/config` is looked up in the workspace's `node_modules`), when an option reads a
/// file from the working directory, or when Node could not read it either. Returns the
/// offending option and why.
fn node_options_refused(value: &OsStr, homes: &[PathBuf]) -> Option<(String, DropReason)> {
  let Some(tokens) = value.to_str().and_then(node_options_tokens) else {
    return Some((
      value.to_string_lossy().into_owned(),
      DropReason::NodeOptionsUnreadable,
    ));
  };
  let mut tokens = tokens.into_iter();
  while let Some(token) = tokens.next() {
    let (raw_name, inline) = match token.split_once('=') {
      Some((n, v)) => (n, Some(v.to_owned())),
      None => (token.as_str(), None),
    };
    let name = match raw_name.strip_prefix("--") {
      Some(rest) => format!("--{}", rest.replace('_', "-")),
      None => raw_name.to_owned(),
    };
    if NODE_CWD_OPTIONS.contains(&name.as_str()) {
      return Some((token.clone(), DropReason::ReadsWorkspaceFile));
    }
    if !NODE_LOADING_OPTIONS.contains(&name.as_str()) {
      continue;
    }
    let file = inline.or_else(|| tokens.next()).unwrap_or_default();
    let shown_option = format!("{name} {file}");
    let reason = if Path::new(&file).is_absolute() {
      resolves_inside_any(Path::new(&file), homes).then_some(DropReason::LoadsInside)
    } else {
      Some(DropReason::LoadsRelative)
    };
    if let Some(reason) = reason {
      return Some((shown_option, reason));
    }
  }
  None
}

/// NODE_OPTIONS split as Node splits it: on spaces outside double quotes; a backslash inside
/// quotes escapes the next character. `None` where Node reports an error.
fn node_options_tokens(value: &str) -> Option<Vec<String>> {
  let mut tokens: Vec<String> = Vec::new();
  let (mut quoted, mut new_token) = (false, true);
  let mut chars = value.chars();
  while let Some(mut c) = chars.next() {
    if c == '\\' && quoted {
      c = chars.next()?;
    } else if c == ' ' && !quoted {
      new_token = true;
      continue;
    } else if c == '"' {
      quoted = !quoted;
      continue;
    }
    if new_token {
      tokens.push(String::new());
      new_token = false;
    }
    tokens.last_mut()?.push(c);
  }
  (!quoted).then_some(tokens)
}
