//! The CLI's process group dies with its host, however the host ends (Unix).
//!
//! `process.exit()` runs no Rust destructors and SIGKILL runs nothing at all, so the tree guard in
//! `runner` cannot help then. Instead the host keeps the write end of one pipe open for its whole
//! life, and each child, between `fork` and `exec` (after `setpgid`), forks a tiny watchdog into
//! its own new group: the watchdog closes every other descriptor, blocks reading the pipe, and on
//! EOF (the host is gone, the kernel closed its end) SIGKILLs the group. While the host lives the
//! watchdog is just a sleeping member of the group and dies with every ordinary group kill.
//! Linux's `PR_SET_PDEATHSIG` would reach only the direct child (CodeGraph's shim), not the real
//! CLI it starts, and it follows the spawning thread rather than the process.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

/// The read end handed to watchdogs; `None` if the pipe could not be made (then no watchdog).
fn read_end() -> Option<RawFd> {
  static PIPE: OnceLock<Option<RawFd>> = OnceLock::new();
  *PIPE.get_or_init(|| {
    let mut fds = [0 as libc::c_int; 2];
    // CLOEXEC on both ends: no program we (or Node) exec inherits them. The write end is never
    // closed by us; only the host's death closes it.
    if unsafe { pipe_cloexec(&mut fds) } != 0 {
      return None;
    }
    // The child's stdio setup dup2()s onto 0-2; keep the read end clear of them.
    let read = unsafe { libc::fcntl(fds[0], libc::F_DUPFD_CLOEXEC, 3) };
    unsafe { libc::close(fds[0]) };
    (read >= 0).then_some(read)
  })
}

#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
unsafe fn pipe_cloexec(fds: &mut [libc::c_int; 2]) -> libc::c_int {
  libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC)
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
unsafe fn pipe_cloexec(fds: &mut [libc::c_int; 2]) -> libc::c_int {
  if libc::pipe(fds.as_mut_ptr()) != 0 {
    return -1;
  }
  for fd in fds.iter() {
    libc::fcntl(*fd, libc::F_SETFD, libc::FD_CLOEXEC);
  }
  0
}

/// Prepares the pipe in the host (call before spawning) and returns what the child needs.
pub fn prepare() -> Option<RawFd> {
  read_end()
}

/// The program, argv and environment as C strings, built in the host: nothing may allocate
/// between `fork` and `exec`.
pub struct ExecImage {
  // Owners of the bytes the pointers below point at (a CString's heap buffer never moves).
  _argv: Vec<CString>,
  _env: Vec<CString>,
  argv: Vec<*const libc::c_char>,
  envp: Vec<*const libc::c_char>,
}

// SAFETY: the pointers point into the CStrings owned by the same value, never mutated.
unsafe impl Send for ExecImage {}
unsafe impl Sync for ExecImage {}

impl ExecImage {
  /// `None` if the program or an argument holds a NUL byte (no exec could pass it).
  pub fn new(program: &Path, args: &[&OsStr], env: &[(OsString, OsString)]) -> Option<Self> {
    let argv: Vec<CString> = std::iter::once(program.as_os_str())
      .chain(args.iter().copied())
      .map(|a| CString::new(a.as_bytes()).ok())
      .collect::<Option<_>>()?;
    // A variable that cannot be represented (a NUL inside) is left out.
    let env: Vec<CString> = env
      .iter()
      .filter_map(|(k, v)| CString::new([k.as_bytes(), b"=", v.as_bytes()].concat()).ok())
      .collect();
    let pointers = |v: &[CString]| {
      v.iter()
        .map(|s| s.as_ptr())
        .chain([std::ptr::null()])
        .collect()
    };
    Some(Self {
      argv: pointers(&argv),
      envp: pointers(&env),
      _argv: argv,
      _env: env,
    })
  }
}

/// Runs in the forked child just before `exec` (as the last `pre_exec` hook, after std's
/// `setpgid`, `chdir` and signal reset): starts the watchdog, then `execve`s the program itself.
/// Doing the exec here rather than returning to std matters: std uses `execvp`, which runs a
/// file that fails with ENOEXEC through `/bin/sh` (fine via `posix_spawn`, the path std takes
/// without hooks). Only async-signal-safe calls from here on. If the exec fails, the watchdog
/// is killed and the error is what `spawn` reports.
///
/// # Safety
/// Must only be called in a `pre_exec` hook.
pub unsafe fn exec_watched(read_fd: RawFd, image: &ExecImage) -> io::Error {
  let watchdog_pid = libc::fork();
  if watchdog_pid == 0 {
    watchdog(read_fd);
  }
  libc::execve(image.argv[0], image.argv.as_ptr(), image.envp.as_ptr());
  let err = io::Error::last_os_error();
  if watchdog_pid > 0 {
    libc::kill(watchdog_pid, libc::SIGKILL);
  }
  err
}

unsafe fn watchdog(read_fd: RawFd) -> ! {
  // Hold nothing but the pipe: not the CLI's stdout/stderr (they must reach EOF when the CLI
  // exits) and not the write end inherited through fork.
  close_all_except(read_fd);
  let mut byte = 0u8;
  loop {
    let n = libc::read(read_fd, (&mut byte as *mut u8).cast(), 1);
    if n == 0 {
      break; // EOF: the host is gone
    }
    if n < 0 && *errno() != libc::EINTR {
      break;
    }
  }
  libc::kill(0, libc::SIGKILL);
  libc::_exit(0)
}

unsafe fn close_all_except(keep: RawFd) {
  #[cfg(target_os = "linux")]
  {
    // close_range(2) (Linux 5.9+): two calls instead of thousands.
    let below =
      keep == 0 || libc::syscall(libc::SYS_close_range, 0u32, (keep - 1) as u32, 0u32) == 0;
    if below && libc::syscall(libc::SYS_close_range, keep as u32 + 1, u32::MAX, 0u32) == 0 {
      return;
    }
  }
  let max = match libc::sysconf(libc::_SC_OPEN_MAX) {
    n if n > 0 => n.min(65_536) as RawFd,
    _ => 4096,
  };
  for fd in 0..max {
    if fd != keep {
      libc::close(fd);
    }
  }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
unsafe fn errno() -> *mut libc::c_int {
  libc::__errno_location()
}

#[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
unsafe fn errno() -> *mut libc::c_int {
  libc::__error()
}
