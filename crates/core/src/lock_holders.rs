//! Whether a process outside this pid namespace holds the index database open, asked of the file
//! system, which pid namespaces share. A CodeGraph writer in a dev container or a sandboxed shell
//! that shares the workspace writes a pid into `codegraph.lock` that this namespace may not have:
//! `kill(pid, 0)` then says "no such process" of a live writer. SQLite (CodeGraph's `node:sqlite`,
//! in WAL mode) holds POSIX record locks on `codegraph.db` and `codegraph.db-shm` for as long as a
//! connection is open, and `F_GETLK` reports a conflicting lock whoever holds it, with its pid as
//! this namespace sees it: 0 for a process it cannot see. (`/proc/locks` leaves those out.)
//!
//! One lock is reported per file (the kernel's first that conflicts): a reader of this namespace
//! that opened the database first (an MCP server) can hide a writer elsewhere.

#[cfg(not(target_family = "wasm"))]
use std::path::Path;

/// Who holds the index database open, besides this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// Outside Linux only `Nobody` is ever the answer (no pid namespaces).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub enum Holder {
  /// No process holds a lock on it.
  Nobody,
  /// A process of this pid namespace (its pid here).
  Here(u32),
  /// A process this namespace cannot see (`None`), or one in another pid namespace.
  Elsewhere(Option<u32>),
  /// None seen, where a process this namespace cannot see would not be seen (/proc/locks outside
  /// the initial pid namespace: the WebAssembly build's only way to ask).
  #[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
  Unseen,
}

/// The database files SQLite locks while a connection is open, the shared memory first.
const LOCKED_FILES: [&str; 2] = ["codegraph.db-shm", "codegraph.db"];

/// Who holds the database in `index_dir` open (see the module comment). Linux only: elsewhere a
/// pid names the same process for everyone, and this is always [`Holder::Nobody`].
#[cfg(not(target_family = "wasm"))]
pub fn database_holder(index_dir: &Path) -> Holder {
  #[cfg(target_os = "linux")]
  {
    let mut seen = Holder::Nobody;
    for name in LOCKED_FILES {
      match holder_of(&index_dir.join(name)) {
        Some(0) => return Holder::Elsewhere(None),
        Some(pid) if !same_pid_namespace(pid) => return Holder::Elsewhere(Some(pid)),
        Some(pid) => seen = Holder::Here(pid),
        None => {}
      }
    }
    seen
  }
  #[cfg(not(target_os = "linux"))]
  {
    let _ = (index_dir, LOCKED_FILES);
    Holder::Nobody
  }
}

/// The pid (as this namespace sees it) of a process holding a lock on `file` that a write lock of
/// the whole file would conflict with; None when none does or the file cannot be opened.
#[cfg(target_os = "linux")]
fn holder_of(file: &Path) -> Option<u32> {
  use std::os::fd::AsRawFd;
  let opened = crate::files::open_workspace_file(file).ok()?;
  // SAFETY: `flock` is plain data; all-zero is a valid value of it.
  let mut probe: libc::flock = unsafe { std::mem::zeroed() };
  probe.l_type = libc::F_WRLCK as libc::c_short;
  probe.l_whence = libc::SEEK_SET as libc::c_short;
  // SAFETY: the descriptor is open for as long as `opened` lives, and `probe` is a valid
  // `struct flock` that F_GETLK reads and overwrites in place.
  let asked = unsafe { libc::fcntl(opened.as_raw_fd(), libc::F_GETLK, &raw mut probe) };
  if asked != 0 || probe.l_type == libc::F_UNLCK as libc::c_short {
    return None;
  }
  // An open file description lock reports -1: its owner is no process; count it as unseen.
  Some(u32::try_from(probe.l_pid).unwrap_or(0))
}

/// Whether process `pid` lives in this process's pid namespace (an unreadable one counts as
/// this namespace's: it is a process this namespace sees).
#[cfg(any(target_os = "linux", target_family = "wasm"))]
fn same_pid_namespace(pid: u32) -> bool {
  let own = std::fs::read_link("/proc/self/ns/pid");
  let theirs = std::fs::read_link(format!("/proc/{pid}/ns/pid"));
  match (own, theirs) {
    (Ok(own), Ok(theirs)) => own == theirs,
    _ => true,
  }
}

#[cfg(target_family = "wasm")]
pub use by_proc_locks::database_holder;

/// The WebAssembly build has no `fcntl`: it reads /proc/locks, which lists each lock's holder by
/// the file's device and inode (asked of the host), and leaves out the locks of processes this pid
/// namespace cannot see. So where this is not the initial pid namespace, none seen is
/// [`Holder::Unseen`], never [`Holder::Nobody`].
#[cfg(target_family = "wasm")]
mod by_proc_locks {
  use std::collections::BTreeSet;
  use std::path::Path;

  use super::{same_pid_namespace, Holder, LOCKED_FILES};
  use crate::host;

  /// The initial pid namespace (`PROC_PID_INIT_INO`): from it, every process is visible.
  const INIT_PID_NAMESPACE: &str = "pid:[4026531836]";
  /// The most of /proc/locks read.
  const MAX_PROC_LOCKS_BYTES: u64 = 4 * 1024 * 1024;

  /// `maj:min:inode` as /proc/locks prints a file's (hex device numbers, Linux's encoding).
  fn lock_key(dev: u64, ino: u64) -> String {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    format!("{major:02x}:{minor:02x}:{ino}")
  }

  /// The pids /proc/locks lists as holding a lock on one of `keys` (waiters left out).
  fn holders(keys: &BTreeSet<String>) -> BTreeSet<u32> {
    let Ok((bytes, _)) = crate::files::open_regular(Path::new("/proc/locks"))
      .and_then(|f| crate::files::read_prefix(f, MAX_PROC_LOCKS_BYTES))
    else {
      return BTreeSet::new();
    };
    String::from_utf8_lossy(&bytes)
      .lines()
      .filter_map(|line| {
        // "1: POSIX  ADVISORY  READ 3734 fe:00:10011387 128 128"; a waiter's line has "->".
        let fields: Vec<&str> = line.split_whitespace().collect();
        (fields.len() >= 6 && fields[1] != "->" && keys.contains(fields[5]))
          .then(|| fields[4].parse().ok())
          .flatten()
      })
      .collect()
  }

  pub fn database_holder(index_dir: &Path) -> Holder {
    if !host::linux() {
      return Holder::Nobody;
    }
    let keys: BTreeSet<String> = LOCKED_FILES
      .iter()
      .filter(|name| std::fs::symlink_metadata(index_dir.join(name)).is_ok_and(|m| m.is_file()))
      .filter_map(|name| host::stat(&index_dir.join(name), false).ok())
      .map(|s| lock_key(s.dev, s.ino))
      .collect();
    if keys.is_empty() {
      return Holder::Nobody;
    }
    let own = host::pid();
    let mut seen = Holder::Nobody;
    for pid in holders(&keys) {
      if pid == own || pid == 0 {
        continue;
      }
      if !same_pid_namespace(pid) {
        return Holder::Elsewhere(Some(pid));
      }
      seen = Holder::Here(pid);
    }
    let initial =
      std::fs::read_link("/proc/self/ns/pid").is_ok_and(|ns| ns.as_os_str() == INIT_PID_NAMESPACE);
    if initial {
      seen
    } else {
      Holder::Unseen
    }
  }
}
