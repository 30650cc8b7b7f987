//! Filesystem primitives every floor shares, with no rule of pi-codegraph's own: a path with its
//! links resolved, "below" by path components, a regular file opened without blocking (a
//! workspace's without following a link), and read up to a bound.

use std::path::{Path, PathBuf};

/// `p` with every symlink resolved (or `p` itself when that fails). On Windows without the
/// verbatim `\\?\` prefix `canonicalize` adds, for a drive or UNC path that can do without it:
/// the path users know, and one that compares equal to paths spelled the ordinary way.
pub fn canonical(p: &Path) -> PathBuf {
  let real = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
  #[cfg(windows)]
  if let Some(text) = real.to_str() {
    if let Some(rest) = text.strip_prefix(r"\\?\UNC\") {
      return PathBuf::from(format!(r"\\{rest}"));
    }
    if let Some(rest) = text.strip_prefix(r"\\?\") {
      let drive = rest.as_bytes();
      if drive.len() >= 3 && drive[0].is_ascii_alphabetic() && &drive[1..3] == b":\\" {
        return PathBuf::from(rest);
      }
    }
  }
  real
}

/// A regular file opened for reading. Opened with `O_NONBLOCK` (a file swapped for a FIFO after
/// a metadata check cannot block the open) and `O_NOCTTY`, and checked on the open descriptor.
/// A link is followed: for files outside the workspace (CodeGraph's own `package.json`).
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
  open_checked(path, false)
}

/// A regular file of the workspace opened for reading, never through a symbolic link: as
/// [`open_regular`], with `O_NOFOLLOW` (a link, wherever it points, is refused: a repository can
/// commit `.gitignore -> /dev/tty`). For ignore files, sources, CodeGraph's lock files.
pub fn open_workspace_file(path: &Path) -> std::io::Result<std::fs::File> {
  open_checked(path, true)
}

fn open_checked(path: &Path, no_link: bool) -> std::io::Result<std::fs::File> {
  let mut options = std::fs::OpenOptions::new();
  options.read(true);
  #[cfg(unix)]
  {
    use std::os::unix::fs::OpenOptionsExt;
    let link = if no_link { libc::O_NOFOLLOW } else { 0 };
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | link);
  }
  #[cfg(windows)]
  if no_link {
    use std::os::windows::fs::OpenOptionsExt;
    // FILE_FLAG_OPEN_REPARSE_POINT: the link itself is opened, and refused below.
    options.custom_flags(0x0020_0000);
  }
  // WASI has neither O_NONBLOCK nor O_NOFOLLOW on open: the host opens the path first as the
  // native build does (the checks install it: `host`), or else the path is looked at (the source
  // calls: a link is refused, a FIFO or a device is never opened). A FIFO swapped in between can
  // still block WASI's open: the WebAssembly core runs in the JS runner's worker, which is ended
  // at the request's deadline (lib/runners/node/source-thread.js).
  #[cfg(target_family = "wasm")]
  {
    let regular = match crate::host::opens_regular(path, no_link) {
      Some(answer) => answer?,
      None if no_link => std::fs::symlink_metadata(path)?.file_type().is_file(),
      None => std::fs::metadata(path)?.file_type().is_file(),
    };
    if !regular {
      return Err(std::io::Error::other("it is not a regular file"));
    }
  }
  let file = options.open(path)?;
  let kind = file.metadata()?.file_type();
  if !kind.is_file() || kind.is_symlink() {
    return Err(std::io::Error::other("it is not a regular file"));
  }
  Ok(file)
}

/// At most `max_bytes` from the start of `file`, and whether the file holds more.
pub fn read_prefix(file: std::fs::File, max_bytes: u64) -> std::io::Result<(Vec<u8>, bool)> {
  use std::io::Read;
  let mut bytes = Vec::new();
  file
    .take(max_bytes.saturating_add(1))
    .read_to_end(&mut bytes)?;
  let more = bytes.len() as u64 > max_bytes;
  bytes.truncate(
    usize::try_from(max_bytes)
      .unwrap_or(usize::MAX)
      .min(bytes.len()),
  );
  Ok((bytes, more))
}

/// When a file was last written, in ms since the Unix epoch: its modification time, or on Unix
/// its change time when that is earlier (a modification time set in the future, by `touch -d`,
/// an archive or a skewed clock, is no write after the index; the change time cannot be set).
pub fn written_ms(metadata: &std::fs::Metadata) -> u64 {
  let modified = metadata
    .modified()
    .ok()
    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
    .map_or(0, |d| d.as_millis() as u64);
  #[cfg(unix)]
  {
    use std::os::unix::fs::MetadataExt;
    let seconds = u64::try_from(metadata.ctime()).unwrap_or(0);
    let nanos = u64::try_from(metadata.ctime_nsec()).unwrap_or(0);
    modified.min(seconds * 1000 + nanos / 1_000_000)
  }
  #[cfg(not(unix))]
  modified
}

/// Whether `extension` (without the dot) is one of `extensions`, compared without regard to ASCII
/// case: the rule every walk of source files uses to tell which files it looks at.
pub fn extension_listed(extensions: &[String], extension: &str) -> bool {
  extensions.iter().any(|e| e.eq_ignore_ascii_case(extension))
}

/// Whether the file named `name` has one of `extensions` ([`extension_listed`]).
pub fn name_listed(extensions: &[String], name: &str) -> bool {
  Path::new(name)
    .extension()
    .is_some_and(|x| extension_listed(extensions, &x.to_string_lossy()))
}

/// `p` is `home` or below it, by components; on Windows without regard to case (a PATH entry
/// may spell the workspace `c:\users\…` while it resolves to `C:\Users\…`).
pub fn within(p: &Path, home: &Path) -> bool {
  if cfg!(windows) {
    let folded = |x: &Path| PathBuf::from(x.to_string_lossy().to_lowercase());
    folded(p).starts_with(folded(home))
  } else {
    p.starts_with(home)
  }
}

#[cfg(all(test, windows))]
mod tests {
  use super::*;

  #[test]
  fn windows_canonical_drops_the_verbatim_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let real = canonical(dir.path());
    assert!(!real.to_string_lossy().starts_with(r"\\?\"), "{real:?}");
    assert!(real.is_absolute() && real.is_dir());
    assert!(dir
      .path()
      .canonicalize()
      .unwrap()
      .to_string_lossy()
      .starts_with(r"\\?\"));
  }

  #[test]
  fn inside_the_workspace_ignores_case_on_windows() {
    assert!(within(
      Path::new(r"c:\users\me\WS\node_modules\.bin"),
      Path::new(r"C:\Users\Me\ws")
    ));
    assert!(!within(
      Path::new(r"C:\Users\Me\wsx"),
      Path::new(r"C:\Users\Me\ws")
    ));
  }
}

/// A search list's entries (PATH, NODE_PATH), empty ones kept, as the host's OS separates them:
/// std's own rule natively; `:` in the WebAssembly build, whose std has no rule (it panics), for
/// the Unix-like hosts the Node runner's WASI serves.
pub fn split_path_list(list: &std::ffi::OsStr) -> Vec<std::path::PathBuf> {
  #[cfg(not(target_family = "wasm"))]
  {
    std::env::split_paths(list).collect()
  }
  #[cfg(target_family = "wasm")]
  {
    list
      .to_string_lossy()
      .split(':')
      .map(std::path::PathBuf::from)
      .collect()
  }
}

/// `entries` joined into one search list ([`split_path_list`]'s inverse); None when an entry holds
/// the separator.
pub fn join_path_list(entries: &[std::path::PathBuf]) -> Option<std::ffi::OsString> {
  #[cfg(not(target_family = "wasm"))]
  {
    std::env::join_paths(entries).ok()
  }
  #[cfg(target_family = "wasm")]
  {
    let texts: Vec<String> = entries
      .iter()
      .map(|e| e.to_string_lossy().into_owned())
      .collect();
    (!texts.iter().any(|t| t.contains(':'))).then(|| texts.join(":").into())
  }
}
