//! Whether a process id still names a process: for CodeGraph's lock files (`index_writer`: is
//! the writer still at work?) and for full-output files named after their host (`full_output`:
//! is that host gone?); and a CLI's descendants that left its process group (the runners kill
//! them before its group).

/// `kill(pid, 0)`: the WebAssembly build asks its host.
#[cfg(target_family = "wasm")]
pub use crate::host::signal0;
#[cfg(any(unix, target_family = "wasm"))]
pub use crate::host::Signal0;

#[cfg(unix)]
pub fn signal0(pid: u32) -> Signal0 {
  let Ok(pid) = libc::pid_t::try_from(pid) else {
    return Signal0::NotPermitted;
  };
  // SAFETY: signal 0 delivers nothing; it only asks whether the process exists.
  if unsafe { libc::kill(pid, 0) } == 0 {
    return Signal0::Delivered;
  }
  match std::io::Error::last_os_error().raw_os_error() {
    Some(libc::ESRCH) => Signal0::NoSuchProcess,
    _ => Signal0::NotPermitted,
  }
}

/// Whether a process with id `pid` exists, as `kill(pid, 0)` says: only "no such process"
/// (ESRCH) means it does not (one we may not signal exists); an id that is not a `pid_t` cannot
/// be asked about and counts as existing.
#[cfg(any(unix, target_family = "wasm"))]
pub fn exists(pid: u32) -> bool {
  signal0(pid) != Signal0::NoSuchProcess
}

/// Whether `pid` (a single process, 1 to `i32::MAX`) runs: it exists and is not a zombie.
#[cfg(all(unix, test))]
pub fn running(pid: u32) -> bool {
  // 0 and negative ids address process groups, not a process.
  i32::try_from(pid).is_ok_and(|p| p > 0) && exists(pid) && !zombie(pid)
}

/// A process that has exited but is not reaped yet is done (Linux; elsewhere the question is
/// not asked).
#[cfg(any(unix, target_family = "wasm"))]
pub fn zombie(pid: u32) -> bool {
  std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
    stat
      .rfind(')')
      .and_then(|i| stat[i + 1..].split_whitespace().next())
      .is_some_and(|state| state == "Z" || state == "X")
  })
}

/// Whether process `pid` exists and has not exited (access denied: it exists).
#[cfg(windows)]
pub fn running(pid: u32) -> bool {
  type Handle = *mut core::ffi::c_void;
  const PROCESS_QUERY_LIMITED_INFORMATION: u32 = 0x1000;
  const STILL_ACTIVE: u32 = 259;
  const ERROR_ACCESS_DENIED: u32 = 5;
  #[link(name = "kernel32")]
  extern "system" {
    fn OpenProcess(access: u32, inherit: i32, pid: u32) -> Handle;
    fn GetExitCodeProcess(process: Handle, code: *mut u32) -> i32;
    fn CloseHandle(handle: Handle) -> i32;
    fn GetLastError() -> u32;
  }
  // SAFETY: OpenProcess takes plain values and returns a handle or null; a non-null handle is
  // ours, read by GetExitCodeProcess into a live local and closed exactly once.
  unsafe {
    let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
    if process.is_null() {
      return GetLastError() == ERROR_ACCESS_DENIED;
    }
    let mut code = 0u32;
    let read = GetExitCodeProcess(process, &raw mut code) != 0;
    CloseHandle(process);
    !read || code == STILL_ACTIVE
  }
}

#[cfg(not(any(unix, windows, target_family = "wasm")))]
pub fn running(_pid: u32) -> bool {
  false
}

/// Every live descendant of `root` whose process group is not `root`'s own, found through the
/// kernel's per-thread `children` lists (a few small reads, not a scan of every process). Linux's
/// `/proc`; the WebAssembly build reads its host's (none elsewhere: nothing is found).
#[cfg(any(target_os = "linux", target_family = "wasm"))]
pub fn descendants_outside_group(root: u32) -> Vec<u32> {
  let children = |pid: u32| -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
      return Vec::new();
    };
    tasks
      .flatten()
      .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
      .flat_map(|list| {
        list
          .split_whitespace()
          .filter_map(|p| p.parse().ok())
          .collect::<Vec<u32>>()
      })
      .collect()
  };
  // The process group from /proc/<pid>/stat; the command name may contain spaces and ')'.
  let group = |pid: u32| -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 2..].split(' ').nth(2)?.parse().ok()
  };
  let mut family = children(root);
  let mut i = 0;
  while i < family.len() && family.len() < 4096 {
    for child in children(family[i]) {
      if !family.contains(&child) {
        family.push(child);
      }
    }
    i += 1;
  }
  family
    .into_iter()
    .filter(|pid| group(*pid).is_some_and(|g| g != root))
    .collect()
}
