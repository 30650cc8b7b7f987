//! The CLI's process group dies with its host, however the host ends (Unix).
//!
//! `process.exit()` runs no Rust destructors and SIGKILL runs nothing at all, so the tree guard in
//! `runner` cannot help then. So, once per process, the host forks a tiny reaper that holds the
//! read end of a pipe whose write end only the host holds. The runner tells it which process
//! groups are live (`watch` / `unwatch`, 8-byte records); when the host dies, the kernel closes
//! the write end, the reaper reads EOF and SIGKILLs every group still live. It costs one fork per
//! host and two pipe writes per run, and keeps spawns on the fast `posix_spawn` path.
//! (Linux's `PR_SET_PDEATHSIG` would reach only the direct child, CodeGraph's shim, not the
//! CLI it starts, and it follows the spawning thread rather than the process.)
//! On Windows the job object's KILL_ON_JOB_CLOSE does the same natively.

use std::os::fd::RawFd;
use std::sync::Mutex;

const WATCH: u32 = 1;
const UNWATCH: u32 = 2;
/// Live groups the reaper can hold; more concurrent explores than this are not expected.
const SLOTS: usize = 4096;

/// The write end of the reaper's pipe, `None` until started or if it could not be.
static REAPER: Mutex<Option<Option<RawFd>>> = Mutex::new(None);

/// Registers a live process group with the reaper (starting the reaper on first use).
pub fn watch(pgid: u32) {
  send(WATCH, pgid);
}

/// The group has been killed and reaped: the reaper forgets it.
pub fn unwatch(pgid: u32) {
  send(UNWATCH, pgid);
}

fn send(op: u32, pgid: u32) {
  let mut reaper = REAPER.lock().unwrap_or_else(|p| p.into_inner());
  let fd = *reaper.get_or_insert_with(start);
  let Some(fd) = fd else { return };
  let mut record = [0u8; 8];
  record[..4].copy_from_slice(&op.to_ne_bytes());
  record[4..].copy_from_slice(&pgid.to_ne_bytes());
  // 8 bytes < PIPE_BUF: the write is atomic. If the reaper is gone (EPIPE; Node ignores
  // SIGPIPE), runs simply lose the guarantee.
  let written = unsafe { libc::write(fd, record.as_ptr().cast(), record.len()) };
  if written != record.len() as isize {
    *reaper = Some(None);
    unsafe { libc::close(fd) };
  }
}

fn start() -> Option<RawFd> {
  let mut fds = [0 as libc::c_int; 2];
  if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
    return None;
  }
  let (read_fd, write_fd) = (fds[0], fds[1]);
  // No program the host execs (ours or Node's) may inherit the write end, or it would keep the
  // reaper from seeing the host die.
  unsafe { libc::fcntl(write_fd, libc::F_SETFD, libc::FD_CLOEXEC) };
  match unsafe { libc::fork() } {
    0 => unsafe { reaper(read_fd) },
    -1 => {
      unsafe {
        libc::close(read_fd);
        libc::close(write_fd);
      }
      None
    }
    _ => {
      unsafe { libc::close(read_fd) };
      Some(write_fd)
    }
  }
}

/// The reaper: a forked copy of a multi-threaded host, so only async-signal-safe calls (no
/// allocation, no locks) until it exits.
unsafe fn reaper(read_fd: RawFd) -> ! {
  // Its own session: a Ctrl-C or hang-up aimed at the host's terminal group never reaches it.
  libc::setsid();
  #[cfg(target_os = "linux")]
  libc::prctl(
    libc::PR_SET_NAME,
    c"pi-cg-reaper".as_ptr() as libc::c_ulong,
    0,
    0,
    0,
  );
  // The host's signal handlers make no sense in this copy; take the defaults, block nothing.
  for sig in 1..32 {
    if sig != libc::SIGKILL && sig != libc::SIGSTOP {
      libc::signal(sig, libc::SIG_DFL);
    }
  }
  let mut none: libc::sigset_t = std::mem::zeroed();
  libc::sigemptyset(&mut none);
  libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
  close_all_except(read_fd);

  let mut groups = [0u32; SLOTS];
  let mut record = [0u8; 8];
  let mut filled = 0usize;
  loop {
    let n = libc::read(
      read_fd,
      record[filled..].as_mut_ptr().cast(),
      record.len() - filled,
    );
    if n == 0 {
      break; // EOF: the host is gone
    }
    if n < 0 {
      if *errno() == libc::EINTR {
        continue;
      }
      break;
    }
    filled += n as usize;
    if filled < record.len() {
      continue;
    }
    filled = 0;
    let op = u32::from_ne_bytes([record[0], record[1], record[2], record[3]]);
    let pgid = u32::from_ne_bytes([record[4], record[5], record[6], record[7]]);
    let slot = match op {
      WATCH => groups.iter().position(|g| *g == 0),
      _ => groups.iter().position(|g| *g == pgid),
    };
    if let Some(slot) = slot {
      groups[slot] = if op == WATCH { pgid } else { 0 };
    }
  }
  for pgid in groups.iter().filter(|g| **g > 1) {
    libc::kill(-(*pgid as libc::pid_t), libc::SIGKILL);
  }
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
