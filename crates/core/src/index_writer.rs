//! Whether CodeGraph is writing the index right now, judged by CodeGraph's own rules.
//!
//! `codegraph init`, `index` and `sync` hold `.codegraph/codegraph.lock` (the writer's pid) while
//! they write, and `codegraph index` also holds `.codegraph/rebuild.pid` (JSON with the pid)
//! while it rebuilds the database from scratch. An explore meanwhile answers from a half-built
//! graph and says nothing (CodeGraph 1.6.1 during an `init`: 54 symbols in 2 files where the
//! finished index gives 73 in 3), so `explore` waits for the writer, bounded, and otherwise says
//! why it did not answer. Only these two files are read: regular files of a few bytes, opened
//! non-blocking. `writer.pid` is not a sign of writing: an MCP server holds it for as long as
//! it runs.
//!
//! Liveness is CodeGraph 1.6.1's (`dist/utils.js` `FileLock`, `dist/mcp/writer-lock.js`):
//! - `codegraph.lock`: the pid is `parseInt(text.trim(), 10)` (leading digits count); the
//!   writer lives when `kill(pid, 0)` succeeds. EPERM (another user's process: pid 1, a pid
//!   reused after a reboot) makes the lock stale, and CodeGraph itself writes over it.
//! - `rebuild.pid`: `{"pid": number, "mode": string, …}`; the writer lives when `kill(pid, 0)`
//!   succeeds or fails with EPERM.
//!
//! From the first moment of an `init`, before any lock: a database no longer than its first
//! page (see [`being_created`]) is a writer too, with no pid.
//!
//! One more rule than CodeGraph's: a pid that runs nowhere in this pid namespace may be a writer
//! in another (a dev container or a sandboxed shell sharing the workspace). Before such a lock is
//! called stale, the file system is asked whether a process outside this namespace holds the
//! index database open (`lock_holders`); if one does, the writer counts as live, `outside`.
//!
//! Two deliberate differences, both about values no CodeGraph writer produces: a pid of 0 or
//! below (which `kill` reads as a process group) is no writer, and an exited but unreaped
//! process (a zombie) is no writer either: it writes nothing more, so waiting cannot give a
//! more finished index.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::errors::{lossy, CodegraphError, Outside, Step, Writer};
use crate::files::open_workspace_file;
use crate::lock_holders::{database_holder, Holder};
use crate::resources::exhausted;

/// Held by `codegraph index` for a whole rebuild (JSON: `{"pid": …, "mode": "rebuild", …}`).
const REBUILD_FILE: &str = "rebuild.pid";
/// Held by every write of the index (`init`, `index`, `sync`): the writer's pid as text.
const LOCK_FILE: &str = "codegraph.lock";
/// The index database, for a database still being created (see [`being_created`]).
const DB_FILE: &str = "codegraph.db";
/// CodeGraph's lock files are a few dozen bytes; anything larger is not one.
const MAX_LOCK_BYTES: u64 = 4096;

/// The live writer of the index in `index_dir`, if any: a rebuild first (it says more). A lock
/// file that cannot be read for lack of resources (no file descriptor left) is an error, never
/// "no writer": the answer could come from a half-built index.
pub fn active_writer(index_dir: &Path) -> Result<Option<Writer>, CodegraphError> {
  let mut locked = false;
  // Asked once, whichever lock names a pid that runs nowhere here.
  let elsewhere = std::cell::OnceCell::new();
  for (name, rebuild) in [(REBUILD_FILE, true), (LOCK_FILE, false)] {
    let lock = index_dir.join(name);
    let Some(text) = read_lock(&lock)? else {
      continue;
    };
    let pid = if rebuild {
      rebuild_pid(&text)
    } else {
      lock_pid(&text)
    };
    let Some(pid) = pid else {
      if !rebuild && text.trim().is_empty() && just_written(&lock) {
        // CodeGraph creates its lock and writes its pid into it in two steps (`writeFileSync`
        // with `wx`): an empty lock that new is a writer taking it, asked again in a moment.
        return Ok(Some(Writer {
          lock,
          pid: 0,
          rebuild,
          outside: None,
        }));
      }
      continue;
    };
    if alive(pid, rebuild) {
      return Ok(Some(Writer {
        lock,
        pid,
        rebuild,
        outside: None,
      }));
    }
    if let Some(outside) = *elsewhere.get_or_init(|| writing_elsewhere(index_dir)) {
      return Ok(Some(Writer {
        lock,
        pid,
        rebuild,
        outside: Some(outside),
      }));
    }
    locked = true;
  }
  // A write that took its lock (an init's `codegraph.lock`, a rebuild's `rebuild.pid`, taken
  // before it recreates the database) is past creating the database: with its writer gone, the
  // write was interrupted ([`interrupted_write`]), however short the database it left.
  if locked {
    return Ok(None);
  }
  let db = index_dir.join(DB_FILE);
  Ok(being_created(&db)?.then_some(Writer {
    lock: db,
    pid: 0,
    rebuild: false,
    outside: None,
  }))
}

/// The last write of the index in `index_dir` never finished: `codegraph.lock` names a process
/// that is no longer a writer (CodeGraph was stopped mid-write: a cancelled or killed `init`,
/// `index` or `sync` leaves its lock behind, and CodeGraph 1.6.1's own `status` then says the
/// index run never finished). Call it when [`active_writer`] found none. A lock without a pid
/// (empty, or text CodeGraph never writes) is no sign (an empty one just created is a write
/// taking it: [`active_writer`]).
/// `rebuild` says a stale `rebuild.pid` is beside it. `codegraph unlock` (or the next write)
/// removes the lock: then the index is used as it is.
pub fn interrupted_write(index_dir: &Path) -> Result<Option<Interrupted>, CodegraphError> {
  let lock = index_dir.join(LOCK_FILE);
  let Some(pid) = read_lock(&lock)?.and_then(|t| lock_pid(&t)) else {
    return Ok(None);
  };
  if alive(pid, false) || writing_elsewhere(index_dir).is_some() {
    return Ok(None);
  }
  let rebuild_lock = index_dir.join(REBUILD_FILE);
  let rebuild = read_lock(&rebuild_lock)?
    .and_then(|t| rebuild_pid(&t))
    .is_some_and(|p| !alive(p, true));
  Ok(Some(Interrupted { lock, pid, rebuild }))
}

/// A write that never finished (as a fact: `{ lock, pid, rebuild }`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Interrupted {
  #[serde(serialize_with = "lossy")]
  pub lock: PathBuf,
  pub pid: u32,
  pub rebuild: bool,
}

impl Interrupted {
  pub fn error(self) -> CodegraphError {
    CodegraphError::IndexInterrupted {
      lock: self.lock,
      pid: self.pid,
      rebuild: self.rebuild,
    }
  }
}

/// `codegraph init` creates `codegraph.db` (schema in its write-ahead log, the main file one
/// page long) about 50–100 ms before it takes `codegraph.lock`; an index that ever finished has
/// dozens of pages in the main file (the schema alone is 42). So a database exactly one page
/// long whose valid SQLite header also counts one page (offset 28) is one still being created; a
/// shorter file, or one page of a header that counts more, is a damaged index, not an init.
fn being_created(db: &Path) -> Result<bool, CodegraphError> {
  let mut header = [0u8; 32];
  let read = open_workspace_file(db).and_then(|mut f| {
    let len = f.metadata()?.len();
    f.read_exact(&mut header).map(|()| len)
  });
  let len = match read {
    Ok(len) => len,
    Err(e) => return exhausted(Step::ReadIndexHeader, &e).map_or(Ok(false), Err),
  };
  if &header[..16] != b"SQLite format 3\0" {
    return Ok(false);
  }
  // The page size: a power of two from 512 to 32768, or 1 for 65536.
  let page = match u16::from_be_bytes([header[16], header[17]]) {
    1 => 65_536,
    p if p >= 512 && p.is_power_of_two() => u64::from(p),
    _ => return Ok(false),
  };
  let pages = u32::from_be_bytes([header[28], header[29], header[30], header[31]]);
  Ok(len == page && pages <= 1)
}

/// How long after its last write an empty lock may still be one CodeGraph is taking (it writes
/// its pid in the same call that creates the file); older, it is no sign of a writer.
const TAKING_LOCK: std::time::Duration = std::time::Duration::from_secs(2);

/// Whether `lock` was written within [`TAKING_LOCK`] (a clock that went back counts as just).
fn just_written(lock: &Path) -> bool {
  std::fs::metadata(lock)
    .and_then(|m| m.modified())
    .is_ok_and(|t| t.elapsed().map_or(true, |age| age < TAKING_LOCK))
}

/// A lock file's text, when it is a small regular file (absent, special or unreadable: none).
fn read_lock(path: &Path) -> Result<Option<String>, CodegraphError> {
  let mut bytes = Vec::new();
  let read =
    open_workspace_file(path).and_then(|f| f.take(MAX_LOCK_BYTES + 1).read_to_end(&mut bytes));
  match read {
    Ok(_) if bytes.len() as u64 <= MAX_LOCK_BYTES => {
      Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
    }
    Ok(_) => Ok(None),
    Err(e) => exhausted(Step::ReadLock, &e).map_or(Ok(None), Err),
  }
}

/// `parseInt(text.trim(), 10)`: optional sign, then the leading decimal digits.
fn lock_pid(text: &str) -> Option<u32> {
  let t = text.trim();
  let (negative, digits) = match t.as_bytes().first() {
    Some(b'-') => (true, &t[1..]),
    Some(b'+') => (false, &t[1..]),
    _ => (false, t),
  };
  let end = digits
    .bytes()
    .position(|b| !b.is_ascii_digit())
    .unwrap_or(digits.len());
  if negative || end == 0 {
    return None;
  }
  // Past an i32 `kill` throws in Node (CodeGraph then calls the lock stale).
  digits[..end]
    .parse::<u32>()
    .ok()
    .filter(|p| *p > 0 && i32::try_from(*p).is_ok())
}

/// `rebuild.pid`'s pid, when the JSON has CodeGraph's shape (`pid` a number, `mode` a string).
fn rebuild_pid(text: &str) -> Option<u32> {
  let v: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
  v.get("mode")?.as_str()?;
  // A fractional or out-of-range pid makes Node's `process.kill` throw: not alive.
  u32::try_from(v.get("pid")?.as_u64()?)
    .ok()
    .filter(|p| *p > 0 && i32::try_from(*p).is_ok())
}

/// Whether a writer whose pid this namespace lacks may live outside it (see the module comment).
fn writing_elsewhere(index_dir: &Path) -> Option<Outside> {
  match database_holder(index_dir) {
    Holder::Elsewhere(_) => Some(Outside::Holder),
    Holder::Unseen => Some(Outside::Unseen),
    Holder::Nobody | Holder::Here(_) => None,
  }
}

/// CodeGraph's liveness for each file (see the module comment).
#[cfg(any(unix, target_family = "wasm"))]
fn alive(pid: u32, rebuild: bool) -> bool {
  use crate::pid::{signal0, zombie, Signal0};
  let exists = match signal0(pid) {
    Signal0::Delivered => true,
    Signal0::NotPermitted => rebuild,
    Signal0::NoSuchProcess => false,
  };
  exists && !zombie(pid)
}

#[cfg(not(any(unix, target_family = "wasm")))]
fn alive(pid: u32, _rebuild: bool) -> bool {
  crate::pid::running(pid)
}

#[cfg(test)]
mod tests;
