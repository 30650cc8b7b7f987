//! Whether a process id still names a process: for CodeGraph's lock files (`index_writer`: is
//! the writer still at work?) and for full-output files named after their host (`full_output`:
//! is that host gone?).

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
