//! The host's facts that WASI has no call for, as the WebAssembly build's checks ask them: a
//! file's device, inode, link count and kind (a FIFO, a device), access(2), whether a process id
//! names a process, and this process's id. The native build asks the OS itself (libc, where each
//! check is written); the WebAssembly build asks its JS host, which answers from Node's `fs` and
//! `process` on the Node runner's worker thread. The host installs its answers for one call
//! ([`with_facts`]); with none installed, each fact is the conservative one its doc says.

#[cfg(target_family = "wasm")]
pub use wasm_host::*;

/// What `stat` (or `lstat`) says of a path, beyond what WASI's metadata carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stat {
  pub dev: u64,
  pub ino: u64,
  pub nlink: u64,
  /// The owner's user id, and the permission bits (`st_mode & 0o7777`).
  pub uid: u32,
  pub mode: u32,
  /// One of the kinds WASI cannot tell apart (Unix's `S_IFIFO`, `S_IFCHR`, `S_IFBLK`, `S_IFSOCK`).
  pub special: Option<Special>,
}

/// A file that is neither a directory, a regular file nor a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
  Fifo,
  CharDevice,
  BlockDevice,
  Socket,
}

/// access(2)'s modes, as POSIX numbers them (`R_OK`, `W_OK`, `X_OK`), to be or-ed.
pub const READ: u32 = 4;
pub const WRITE: u32 = 2;
pub const EXECUTE: u32 = 1;

/// What `kill(pid, 0)` says about a process id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal0 {
  /// It succeeded: the process exists and we may signal it.
  Delivered,
  /// EPERM (or an id that is not a `pid_t`): it exists, and belongs to someone else.
  NotPermitted,
  /// ESRCH: no such process (in our pid namespace).
  NoSuchProcess,
}

/// The host's answers, installed for a call (the WebAssembly build only).
#[cfg(target_family = "wasm")]
mod wasm_host {
  use std::cell::RefCell;
  use std::path::Path;

  #[allow(unused_imports)] // the doc links
  use super::{Signal0, Stat, EXECUTE, READ, WRITE};

  /// The answers a WebAssembly host gives (see the module comment).
  pub trait HostFacts {
    /// `stat(2)` of `path`, following a final link when `follow`.
    fn stat(&self, path: &Path, follow: bool) -> std::io::Result<Stat>;
    /// `access(2)` of `path` for `mode` ([`READ`], [`WRITE`], [`EXECUTE`], or-ed).
    fn access(&self, path: &Path, mode: u32) -> std::io::Result<()>;
    /// Whether `path` opens as a regular file when opened as the native build opens one
    /// (`O_NONBLOCK`, `O_NOCTTY`, and `O_NOFOLLOW` when `no_link`), checked on the descriptor.
    fn opens_regular(&self, path: &Path, no_link: bool) -> std::io::Result<bool>;
    /// `kill(pid, 0)`.
    fn signal0(&self, pid: u32) -> Signal0;
    /// This process's id.
    fn pid(&self) -> u32;
    /// This process's user id (None where there is none: Windows).
    fn uid(&self) -> Option<u32>;
    /// `mkdir(path, 0o700)` (an existing path: `AlreadyExists`).
    fn make_private_dir(&self, path: &Path) -> std::io::Result<()>;
    /// `chmod(path, 0o700)`.
    fn close_to_others(&self, path: &Path) -> std::io::Result<()>;
    /// The host's OS and CPU as Node names them (`process.platform`, `process.arch`: `linux`,
    /// `darwin`, `x64`, `arm64`), as CodeGraph's npm packages are named after them.
    fn platform(&self) -> (String, String);
  }

  thread_local! {
    static FACTS: RefCell<Option<Box<dyn HostFacts>>> = const { RefCell::new(None) };
  }

  /// Runs `work` with `facts` as the host's answers on this thread, and removes them after.
  pub fn with_facts<R>(facts: Box<dyn HostFacts>, work: impl FnOnce() -> R) -> R {
    struct Removed;
    impl Drop for Removed {
      fn drop(&mut self) {
        FACTS.with(|f| f.borrow_mut().take());
      }
    }
    FACTS.with(|f| *f.borrow_mut() = Some(facts));
    let _removed = Removed;
    work()
  }

  fn asked<R>(ask: impl FnOnce(&dyn HostFacts) -> R) -> Option<R> {
    FACTS.with(|f| f.borrow().as_deref().map(ask))
  }

  /// `stat(2)`; without a host, what WASI says (no device, inode or kind beyond its own: one link).
  pub fn stat(path: &Path, follow: bool) -> std::io::Result<Stat> {
    asked(|h| h.stat(path, follow)).unwrap_or_else(|| {
      let seen = if follow {
        std::fs::metadata(path)
      } else {
        std::fs::symlink_metadata(path)
      };
      seen.map(|_| Stat {
        nlink: 1,
        ..Stat::default()
      })
    })
  }

  /// `access(2)`; without a host, whether the path is there.
  pub fn access(path: &Path, mode: u32) -> std::io::Result<()> {
    asked(|h| h.access(path, mode)).unwrap_or_else(|| std::fs::metadata(path).map(|_| ()))
  }

  /// Whether `path` opens as a regular file ([`HostFacts::opens_regular`]); None without a host
  /// (the caller looks at the path instead).
  pub fn opens_regular(path: &Path, no_link: bool) -> Option<std::io::Result<bool>> {
    asked(|h| h.opens_regular(path, no_link))
  }

  /// `kill(pid, 0)`; without a host, "it exists" (nothing is called gone that may live).
  pub fn signal0(pid: u32) -> Signal0 {
    asked(|h| h.signal0(pid)).unwrap_or(Signal0::NotPermitted)
  }

  /// This process's user id; without a host, none.
  pub fn uid() -> Option<u32> {
    asked(|h| h.uid()).flatten()
  }

  /// `mkdir(path, 0o700)`; without a host, WASI's own (its mode is the host's default).
  pub fn make_private_dir(path: &Path) -> std::io::Result<()> {
    asked(|h| h.make_private_dir(path)).unwrap_or_else(|| std::fs::create_dir(path))
  }

  /// `chmod(path, 0o700)`; without a host, unsupported.
  pub fn close_to_others(path: &Path) -> std::io::Result<()> {
    asked(|h| h.close_to_others(path))
      .unwrap_or_else(|| Err(std::io::Error::from(std::io::ErrorKind::Unsupported)))
  }

  /// This process's id; without a host, 0 (no process's).
  pub fn pid() -> u32 {
    asked(|h| h.pid()).unwrap_or(0)
  }

  /// An OS error the host named by its code (`EACCES`, as Node's `fs` says it), as WASI numbers it
  /// (preview 1), so that its kind, and a resource running out, read as the OS's own errors do.
  pub fn os_error(code: &str, message: &str) -> std::io::Error {
    const WASI_ERRNO: &[(&str, i32)] = &[
      ("EACCES", 2),
      ("EAGAIN", 6),
      ("EBUSY", 10),
      ("EEXIST", 20),
      ("EINVAL", 28),
      ("EIO", 29),
      ("EISDIR", 31),
      ("ELOOP", 32),
      ("EMFILE", 33),
      ("ENAMETOOLONG", 37),
      ("ENFILE", 41),
      ("ENODEV", 43),
      ("ENOENT", 44),
      ("ENOMEM", 48),
      ("ENOSPC", 51),
      ("ENOTDIR", 54),
      ("ENXIO", 60),
      ("EPERM", 63),
      ("EROFS", 69),
      ("ESRCH", 71),
      ("ETIMEDOUT", 73),
    ];
    match WASI_ERRNO.iter().find(|(name, _)| *name == code) {
      Some((_, errno)) => std::io::Error::from_raw_os_error(*errno),
      None => std::io::Error::other(format!("{code}: {message}")),
    }
  }

  /// The host's OS and CPU as Node names them ([`HostFacts::platform`]); None without a host.
  pub fn platform() -> Option<(String, String)> {
    asked(|h| h.platform())
  }

  /// Whether the host is Linux (its /proc is the one read for zombies, mounts and locks); without
  /// a host, no.
  pub fn linux() -> bool {
    platform().is_some_and(|(os, _)| os == "linux")
  }
}
