//! Running out of a system resource (file descriptors, processes or threads, memory) is its own
//! failure: the workspace, the index and the executable may all be fine, and the same call works
//! again once the resource is back. Every check and spawn that can meet such an error asks
//! [`exhausted`] first, so it is never reported as a missing workspace or a broken executable.

use std::fmt;

/// A resource the host process (or the system) ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
  /// EMFILE: this process's open-file limit (`ulimit -n`).
  ProcessFiles,
  /// ENFILE: the system's open-file table.
  SystemFiles,
  /// EAGAIN from fork/clone or thread creation: the user's process limit (`ulimit -u`) or the
  /// system's.
  Processes,
  /// ENOMEM.
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

  /// What to do about it, naming the resource.
  pub fn remediation(self) -> &'static str {
    match self {
      Self::ProcessFiles => "The host process has no file descriptors left (EMFILE): close files it holds open or raise its limit (`ulimit -n`), then ask again.",
      Self::SystemFiles => "The system's open-file table is full (ENFILE): close files in other programs or raise the system limit (fs.file-max on Linux), then ask again.",
      Self::Processes => "No new process or thread could be created (EAGAIN): end processes or raise the user's process limit (`ulimit -u`), then ask again.",
      Self::Memory => "There was not enough memory (ENOMEM): free memory (end other programs), then ask again.",
    }
  }
}

impl fmt::Display for Resource {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str(match self {
      Self::ProcessFiles => "file descriptors (this process's limit)",
      Self::SystemFiles => "file descriptors (the system's open-file table)",
      Self::Processes => "processes or threads",
      Self::Memory => "memory",
    })
  }
}

/// CODEGRAPH_RESOURCES for `e` met while doing `what`, when `e` is a resource running out.
pub fn exhausted(what: &str, e: &std::io::Error) -> Option<crate::errors::ExploreError> {
  Resource::of(e).map(|resource| crate::errors::ExploreError::Resources {
    resource,
    reason: format!("{what} failed ({e})"),
  })
}

/// A panic's message, when it says a resource ran out (tokio panics when it cannot start a
/// thread or create its signal pipe): the OS error text it quotes.
pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Option<crate::errors::ExploreError> {
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
  Some(crate::errors::ExploreError::Resources {
    resource,
    reason: format!(
      "a thread of the addon could not start ({})",
      first_line.chars().take(200).collect::<String>()
    ),
  })
}

#[cfg(test)]
mod tests;
