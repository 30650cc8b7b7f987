//! Running out of a system resource (file descriptors, processes or threads, memory) is its own
//! failure: the workspace, the index and the executable may all be fine, and the same call works
//! again once the resource is back. Every check and spawn that can meet such an error asks
//! [`exhausted`] first, so it is never reported as a missing workspace or a broken executable.

use serde::Serialize;

use crate::errors::{ExploreError, Step};

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
    #[cfg(not(any(unix, windows)))]
    {
      let _ = e;
      None
    }
  }
}

/// CODEGRAPH_RESOURCES for `e` met during `step`, when `e` is a resource running out.
pub fn exhausted(step: Step, e: &std::io::Error) -> Option<ExploreError> {
  Resource::of(e).map(|resource| ExploreError::Resources {
    resource,
    step,
    os: crate::errors::os_text(e),
  })
}

/// A panic's message, when it says a resource ran out (tokio panics when it cannot start a
/// thread or create its signal pipe): the OS error text it quotes.
pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Option<ExploreError> {
  let text = payload
    .downcast_ref::<String>()
    .map(String::as_str)
    .or_else(|| payload.downcast_ref::<&str>().copied())?;
  let resource = [
    ("Too many open files in system", Resource::SystemFiles),
    ("Too many open files", Resource::ProcessFiles),
    ("os error 24", Resource::ProcessFiles),
    ("os error 23", Resource::SystemFiles),
    ("Resource temporarily unavailable", Resource::Processes),
    ("os error 11", Resource::Processes),
    ("Cannot allocate memory", Resource::Memory),
    ("os error 12", Resource::Memory),
    ("can't spawn worker thread", Resource::Processes),
  ]
  .into_iter()
  .find_map(|(needle, r)| text.contains(needle).then_some(r))?;
  let first_line = text.lines().next().unwrap_or_default();
  Some(ExploreError::Resources {
    resource,
    step: Step::AddonThread,
    os: first_line.chars().take(200).collect(),
  })
}

#[cfg(test)]
mod tests;
