//! Whether CodeGraph is writing the index right now.
//!
//! `codegraph init`, `index` and `sync` hold `.codegraph/codegraph.lock` (the writer's pid) while
//! they write, and `codegraph index` also holds `.codegraph/rebuild.pid` (JSON with the pid)
//! while it rebuilds the database from scratch. An explore meanwhile answers from a half-built
//! graph and says nothing (CodeGraph 1.6.1 during an `init`: 54 symbols in 2 files where the
//! finished index gives 73 in 3), so `explore` waits for the writer, bounded, and otherwise says
//! why it did not answer. Only these two files are read: regular files of a few bytes, opened
//! non-blocking. A lock whose pid no longer runs is stale and ignored, as CodeGraph itself does.
//! `writer.pid` is not a sign of writing: an MCP server holds it for as long as it runs.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::pid::running;
use crate::preflight::open_regular;

/// Held by `codegraph index` for a whole rebuild (JSON: `{"pid": …, "mode": "rebuild", …}`).
const REBUILD_FILE: &str = "rebuild.pid";
/// Held by every write of the index (`init`, `index`, `sync`): the writer's pid as text.
const LOCK_FILE: &str = "codegraph.lock";
/// CodeGraph's lock files are a few dozen bytes; anything larger is not one.
const MAX_LOCK_BYTES: u64 = 4096;

/// A live process writing the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
  /// The lock file that names it.
  pub lock: PathBuf,
  pub pid: u32,
  /// True for `rebuild.pid` (a full rebuild), false for `codegraph.lock` (any write).
  pub rebuild: bool,
}

/// The live writer of the index in `index_dir`, if any: a rebuild first (it says more).
pub fn active_writer(index_dir: &Path) -> Option<Writer> {
  [(REBUILD_FILE, true), (LOCK_FILE, false)]
    .into_iter()
    .find_map(|(name, rebuild)| {
      let lock = index_dir.join(name);
      let pid = read_pid(&lock, rebuild)?;
      running(pid).then_some(Writer { lock, pid, rebuild })
    })
}

/// The pid a lock file names, when it is a small regular file in CodeGraph's format.
fn read_pid(path: &Path, json: bool) -> Option<u32> {
  let mut text = String::new();
  open_regular(path)
    .ok()?
    .take(MAX_LOCK_BYTES)
    .read_to_string(&mut text)
    .ok()?;
  let pid = if json {
    serde_json::from_str::<serde_json::Value>(&text)
      .ok()?
      .get("pid")?
      .as_u64()?
  } else {
    let digits = text.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
      return None;
    }
    digits.parse::<u64>().ok()?
  };
  // 0 (and anything past an i32) would address a process group or nothing at all.
  u32::try_from(pid)
    .ok()
    .filter(|p| *p > 0 && i32::try_from(*p).is_ok())
}

#[cfg(test)]
mod tests;
