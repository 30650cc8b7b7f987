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

/// The write end of the reaper's pipe and the reaper's pid, `None` while no reaper runs. A reaper
/// that could not be started (no descriptor or process left) or has gone is started again by the
/// next run.
static REAPER: Mutex<Option<(RawFd, libc::pid_t)>> = Mutex::new(None);

/// Registers a live process group with the reaper (starting the reaper on first use).
pub fn watch(pgid: u32) {
  send(WATCH, pgid);
}

/// The group has been killed and reaped: the reaper forgets it.
pub fn unwatch(pgid: u32) {
  send(UNWATCH, pgid);
}

fn send(op: u32, pgid: u32) {
  let mut reaper = REAPER
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner);
  let mut record = [0u8; 8];
  record[..4].copy_from_slice(&op.to_ne_bytes());
  record[4..].copy_from_slice(&pgid.to_ne_bytes());
  // A reaper found gone (EPIPE; Node ignores SIGPIPE) is replaced once, so the run that finds
  // it gone keeps the guarantee; if that fails too, the run simply loses it.
  for _ in 0..2 {
    if reaper.is_none() {
      if op != WATCH {
        return;
      }
      *reaper = start();
    }
    let Some((fd, reaper_pid)) = *reaper else {
      return;
    };
    // 8 bytes < PIPE_BUF: the write is atomic.
    // SAFETY: `fd` is the pipe's write end, owned by `REAPER` and open while the lock is held;
    // the buffer is a live local array of exactly `record.len()` bytes.
    let written = unsafe { libc::write(fd, record.as_ptr().cast(), record.len()) };
    if usize::try_from(written).ok() == Some(record.len()) {
      return;
    }
    *reaper = None;
    // SAFETY: the fd is ours and is forgotten (`None`) under the same lock, so it is
    // closed exactly once and never written again.
    unsafe { libc::close(fd) };
    reap(reaper_pid);
  }
}

/// Waits for a reaper the host let go of (it ended, or it now reads EOF and ends): the reaper is
/// the host's own child and no one else waits for it (libuv waits only for Node's children,
/// tokio only for its own), so it would stay a zombie of the host. On a thread of its own, so a
/// reaper slow to end never holds a run.
fn reap(pid: libc::pid_t) {
  let wait = move || {
    let mut status = 0;
    // SAFETY: waitpid(2) writes only the local `status`; `pid` is our own child, which nothing
    // else reaps, so it cannot have been recycled before this wait.
    unsafe { libc::waitpid(pid, &raw mut status, 0) };
  };
  if std::thread::Builder::new()
    .name("pi-codegraph-reap".into())
    .spawn(wait)
    .is_err()
  {
    // No thread to be had (out of resources): reap it now if it has already ended.
    let mut status = 0;
    // SAFETY: as above; WNOHANG never blocks.
    unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
  }
}

fn start() -> Option<(RawFd, libc::pid_t)> {
  let mut fds = [0 as libc::c_int; 2];
  // SAFETY: `fds` is a writable array of the two ints pipe(2) fills.
  if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
    return None;
  }
  let (read_fd, write_fd) = (fds[0], fds[1]);
  // No program the host execs (ours or Node's) may inherit the write end, or it would keep the
  // reaper from seeing the host die.
  // SAFETY: `write_fd` was just returned by pipe(2) and is open; F_SETFD only sets its flags.
  unsafe { libc::fcntl(write_fd, libc::F_SETFD, libc::FD_CLOEXEC) };
  // SAFETY: fork(2) itself has no preconditions; the child runs only `reaper`, which keeps to
  // async-signal-safe calls as a fork of a multi-threaded process must.
  match unsafe { libc::fork() } {
    // SAFETY: this is the freshly forked child, the one place `reaper` may run.
    0 => unsafe { reaper(read_fd) },
    -1 => {
      // SAFETY: both fds came from pipe(2) above, nothing else holds them, closed once each.
      unsafe {
        libc::close(read_fd);
        libc::close(write_fd);
      }
      None
    }
    pid => {
      // SAFETY: the read end belongs to the reaper now; the host closes its copy once.
      unsafe { libc::close(read_fd) };
      Some((write_fd, pid))
    }
  }
}

/// The reaper: a forked copy of a multi-threaded host, so only async-signal-safe calls (no
/// allocation, no locks) until it exits.
///
/// # Safety
///
/// Only in the child of `fork()`, with `read_fd` the read end of the host's pipe. It never
/// returns.
unsafe fn reaper(read_fd: RawFd) -> ! {
  // Its own session: a Ctrl-C or hang-up aimed at the host's terminal group never reaches it.
  // SAFETY: setsid(2) has no memory preconditions; failure (already a leader) is harmless.
  unsafe { libc::setsid() };
  #[cfg(target_os = "linux")]
  // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes; the literal is one.
  unsafe {
    libc::prctl(
      libc::PR_SET_NAME,
      c"pi-cg-reaper".as_ptr() as libc::c_ulong,
      0,
      0,
      0,
    );
  }
  // The host's signal handlers make no sense in this copy; take the defaults, block nothing.
  for sig in 1..32 {
    if sig != libc::SIGKILL && sig != libc::SIGSTOP {
      // SAFETY: SIG_DFL installs no handler code; invalid signal numbers only return an error.
      unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
  }
  // SAFETY: an all-zero sigset_t is a valid value to initialise; sigemptyset and sigprocmask
  // only read and write that local set (the old-mask pointer is null, which is allowed).
  unsafe {
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&raw mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &raw const none, std::ptr::null_mut());
  }
  // SAFETY: this is the forked reaper, the one place that may close what it inherited.
  unsafe { close_all_except(read_fd) };

  let mut groups = [0u32; SLOTS];
  let mut record = [0u8; 8];
  let mut filled = 0usize;
  loop {
    // SAFETY: the destination is the unfilled rest of the local `record`, exactly as long as
    // the length passed; `read_fd` stays open (close_all_except keeps it).
    let n = unsafe {
      libc::read(
        read_fd,
        record[filled..].as_mut_ptr().cast(),
        record.len() - filled,
      )
    };
    if n == 0 {
      break; // EOF: the host is gone
    }
    let Ok(n) = usize::try_from(n) else {
      // last_os_error reads errno without allocating.
      if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
        continue;
      }
      break;
    };
    filled += n;
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
    if let Ok(pgid) = libc::pid_t::try_from(*pgid) {
      // SAFETY: kill(2) has no memory preconditions; a group already gone gives ESRCH.
      unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
  }
  // SAFETY: _exit(2) ends the forked child without running the host's atexit handlers or
  // destructors, which must not run in this copy.
  unsafe { libc::_exit(0) }
}

/// Closes every descriptor the fork inherited except `keep` (async-signal-safe).
///
/// # Safety
///
/// Only in the forked reaper: anywhere else it would close descriptors others still use.
unsafe fn close_all_except(keep: RawFd) {
  #[cfg(target_os = "linux")]
  {
    // close_range(2) (Linux 5.9+): two calls instead of thousands.
    let k = keep.unsigned_abs();
    // SAFETY: close_range only closes descriptors in the range; none of them is used after.
    let below = k == 0 || unsafe { libc::syscall(libc::SYS_close_range, 0u32, k - 1, 0u32) } == 0;
    // SAFETY: as above, for the range above `keep`.
    if below && unsafe { libc::syscall(libc::SYS_close_range, k + 1, u32::MAX, 0u32) } == 0 {
      return;
    }
  }
  // SAFETY: sysconf has no memory preconditions.
  let max = match unsafe { libc::sysconf(libc::_SC_OPEN_MAX) } {
    n if n > 0 => RawFd::try_from(n.min(65_536)).unwrap_or(4096),
    _ => 4096,
  };
  for fd in 0..max {
    if fd != keep {
      // SAFETY: closing a descriptor number that may be unused only returns EBADF; the reaper
      // uses none of them afterwards.
      unsafe { libc::close(fd) };
    }
  }
}
