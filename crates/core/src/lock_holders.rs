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
}

/// The database files SQLite locks while a connection is open, the shared memory first.
const LOCKED_FILES: [&str; 2] = ["codegraph.db-shm", "codegraph.db"];

/// Who holds the database in `index_dir` open (see the module comment). Linux only: elsewhere a
/// pid names the same process for everyone, and this is always [`Holder::Nobody`].
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
#[cfg(target_os = "linux")]
fn same_pid_namespace(pid: u32) -> bool {
  let own = std::fs::read_link("/proc/self/ns/pid");
  let theirs = std::fs::read_link(format!("/proc/{pid}/ns/pid"));
  match (own, theirs) {
    (Ok(own), Ok(theirs)) => own == theirs,
    _ => true,
  }
}
