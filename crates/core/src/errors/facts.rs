//! Facts an error carries that are not a reason tag: the resource that ran out and the
//! CodeGraph process writing the index. Plain data, named here so that the modules that find
//! them (`resources`, `index_writer`) sit above `errors`, not beside it.

use std::path::PathBuf;

use serde::Serialize;

use super::lossy;

/// A resource the host process (or the system) ran out of, named (as a fact) by the errno that
/// says so on Unix; the words module names it and says what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Resource {
  /// EMFILE: this process's open-file limit (`ulimit -n`).
  #[serde(rename = "EMFILE")]
  ProcessFiles,
  /// ENFILE: the system's open-file table.
  #[serde(rename = "ENFILE")]
  SystemFiles,
  /// EAGAIN from fork/clone or thread creation: the user's process limit (`ulimit -u`) or the
  /// system's.
  #[serde(rename = "EAGAIN")]
  Processes,
  /// ENOMEM.
  #[serde(rename = "ENOMEM")]
  Memory,
}

impl Resource {
  /// The resource an OS error reports running out of, if any.
  pub fn of(e: &std::io::Error) -> Option<Self> {
    #[cfg(unix)]
    {
      match e.raw_os_error()? {
        libc::EMFILE => Some(Self::ProcessFiles),
        libc::ENFILE => Some(Self::SystemFiles),
        libc::EAGAIN => Some(Self::Processes),
        libc::ENOMEM => Some(Self::Memory),
        _ => None,
      }
    }
    #[cfg(windows)]
    {
      // ERROR_TOO_MANY_OPEN_FILES, ERROR_NOT_ENOUGH_MEMORY, ERROR_OUTOFMEMORY,
      // ERROR_NO_SYSTEM_RESOURCES, ERROR_MAX_THRDS_REACHED.
      match e.raw_os_error()? {
        4 => Some(Self::ProcessFiles),
        8 | 14 => Some(Self::Memory),
        1450 | 164 => Some(Self::Processes),
        _ => None,
      }
    }
    // WASI's numbers (preview 1): EMFILE, ENFILE, EAGAIN, ENOMEM.
    #[cfg(target_family = "wasm")]
    {
      match e.raw_os_error()? {
        33 => Some(Self::ProcessFiles),
        41 => Some(Self::SystemFiles),
        6 => Some(Self::Processes),
        48 => Some(Self::Memory),
        _ => None,
      }
    }
    #[cfg(not(any(unix, windows, target_family = "wasm")))]
    {
      let _ = e;
      None
    }
  }
}

/// A live process writing the index (as a fact: `{ lock, pid, rebuild, outside }`, the lock raw).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Writer {
  /// The lock file that names it (for a database still being created: the database itself).
  #[serde(serialize_with = "lossy")]
  pub lock: PathBuf,
  /// 0 when no lock names it yet: `codegraph init` is creating the database.
  pub pid: u32,
  /// True for `rebuild.pid` (a full rebuild), false for `codegraph.lock` (any write).
  pub rebuild: bool,
  /// Set when the pid runs nowhere in this pid namespace, yet the writer may live outside it.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub outside: Option<Outside>,
}

/// Why a writer whose pid this namespace lacks may still be writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outside {
  /// A process outside this pid namespace holds the index database open.
  Holder,
  /// None was seen, but this pid namespace cannot see every holder (the WebAssembly build, which
  /// reads /proc/locks: it leaves out the locks of processes this namespace cannot see).
  Unseen,
}
