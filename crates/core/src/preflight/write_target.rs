//! Where a command that writes the index would write, checked before it starts: CodeGraph follows
//! links (its `mkdir -p`, its `.gitignore`, SQLite's database and sidecars), so a link a
//! repository ships as `.codegraph` (or as one of CodeGraph's files in it) would put the index
//! outside the workspace. And `uninit` deletes the whole directory, so it may only delete what
//! CodeGraph made: not a mounted directory, not a file of someone else's. Only metadata is read.

use std::path::{Path, PathBuf};

use super::{allow_external, IndexFound};
use crate::env_snapshot::EnvSnapshot;
use crate::errors::{CodegraphError, NoIndexKind, NoIndexReason};
use crate::files::canonical;

/// The entries CodeGraph itself writes in its index directory (CodeGraph 1.6: directory.js's
/// `.gitignore`, db/index.js's database and its sidecars, utils.js's lock, mcp/writer-lock.js,
/// mcp/daemon-paths.js and mcp/index.js's pid, socket and log, bin/codegraph.js's errors.log,
/// ui-server's trails under `ui/`).
pub const CODEGRAPH_ENTRIES: &[&str] = &[
  "codegraph.db",
  "codegraph.db-wal",
  "codegraph.db-shm",
  "codegraph.db-journal",
  ".gitignore",
  "codegraph.lock",
  "rebuild.pid",
  "writer.pid",
  "daemon.pid",
  "daemon.sock",
  "daemon.log",
  "errors.log",
  "ui",
];
/// What SQLite writes beside the database even for a read (CodeGraph opens it read-write).
const SIDECARS: &[&str] = &[
  "codegraph.db-wal",
  "codegraph.db-shm",
  "codegraph.db-journal",
];
/// The directory of CodeGraph's entries, and the one directory inside it.
const UI_DIR: &str = "ui";
const TRAILS_DIR: &str = "trails";
/// The most entries looked at for `uninit` (a directory that holds more is not only CodeGraph's).
const MAX_ENTRIES: usize = 10_000;

fn not_own(workspace: &Path, dir: &Path, reason: NoIndexReason) -> CodegraphError {
  CodegraphError::NoIndex {
    path: workspace.to_path_buf(),
    kind: NoIndexKind::NotOwn {
      dir: dir.to_path_buf(),
    },
    reason: Box::new(reason),
  }
}

/// A command that writes the index writes only into a real directory `<workspace>/<name>` (or
/// creates it), never through a link: the directory itself, and each of CodeGraph's entries in
/// it, must not be a symlink, and the directory must resolve inside the workspace (`home`, the
/// workspace with links resolved). `accept_links`: the user accepted an existing index outside
/// the workspace (PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1, for a command that needs one).
pub fn check_write_target(
  workspace: &Path,
  home: &Path,
  name: &str,
  accept_links: bool,
) -> Result<(), CodegraphError> {
  let dir = workspace.join(name);
  let refuse = |reason| Err(not_own(workspace, &dir, reason));
  match std::fs::symlink_metadata(&dir) {
    Ok(m) if m.file_type().is_symlink() => {
      return if accept_links {
        Ok(())
      } else {
        refuse(link_reason(&dir, home))
      };
    }
    // Nothing there (init creates it), or not a directory: CodeGraph cannot write into it, and
    // the checks of the index say so.
    Ok(m) if m.is_dir() => {}
    _ => return Ok(()),
  }
  if accept_links {
    return Ok(());
  }
  let resolved = canonical(&dir);
  if !inside(&resolved, home) {
    return refuse(NoIndexReason::Outside {
      path: dir.clone(),
      target: resolved,
    });
  }
  check_entries(workspace, &dir, home, CODEGRAPH_ENTRIES)
}

/// The index [`super::check_index`] found, when none of SQLite's sidecars in it is a link (unless
/// the user accepts an index outside the workspace): CodeGraph writes them even to read.
pub fn own_entries(
  workspace: &Path,
  home: &Path,
  env: &EnvSnapshot,
  found: IndexFound,
) -> Result<IndexFound, CodegraphError> {
  if !allow_external(env) {
    check_entries(workspace, &found.dir, home, SIDECARS)?;
  }
  Ok(found)
}

/// None of `entries` in the index directory `dir` is a symlink, which CodeGraph would write through.
fn check_entries(
  workspace: &Path,
  dir: &Path,
  home: &Path,
  entries: &[&str],
) -> Result<(), CodegraphError> {
  for entry in entries {
    let path = dir.join(entry);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
      return Err(not_own(workspace, dir, link_reason(&path, home)));
    }
  }
  Ok(())
}

/// Strictly inside `home` (the workspace itself is not a place for the index's files).
fn inside(p: &Path, home: &Path) -> bool {
  p.starts_with(home) && p != home
}

/// Why the link `path` is refused: it resolves outside the workspace, or (inside, or nowhere) it
/// is a link all the same.
fn link_reason(path: &Path, home: &Path) -> NoIndexReason {
  if path.canonicalize().is_err() {
    // Dangling (or a loop): where it points, as written.
    let written = std::fs::read_link(path).unwrap_or_default();
    let target = path.parent().map_or(written.clone(), |p| p.join(&written));
    return NoIndexReason::Linked {
      path: path.to_path_buf(),
      target,
    };
  }
  let target = canonical(path);
  if inside(&target, home) {
    NoIndexReason::Linked {
      path: path.to_path_buf(),
      target,
    }
  } else {
    NoIndexReason::Outside {
      path: path.to_path_buf(),
      target,
    }
  }
}

/// `uninit` deletes `<workspace>/<name>` recursively: refused when the directory is a mount point
/// (a container volume: its source would be emptied) or holds anything CodeGraph does not make.
/// A link there is CodeGraph's to unlink (it never follows one), so it passes.
pub fn check_removable(workspace: &Path, name: &str) -> Result<(), CodegraphError> {
  let dir = workspace.join(name);
  let meta = match std::fs::symlink_metadata(&dir) {
    Ok(m) if m.is_dir() => m,
    _ => return Ok(()),
  };
  let mounts = Mounts::read();
  let refuse = |reason| Err(not_own(workspace, &dir, reason));
  let parent = std::fs::metadata(workspace).ok();
  if mounts.is_mount(&dir, &meta, parent.as_ref()) {
    return refuse(NoIndexReason::MountPoint { path: dir.clone() });
  }
  let foreign = |path: PathBuf| refuse(NoIndexReason::ForeignEntry { path });
  let Ok(entries) = std::fs::read_dir(&dir) else {
    return Ok(()); // unreadable: CodeGraph cannot delete it either
  };
  for (n, entry) in entries.enumerate() {
    let Ok(entry) = entry else { continue };
    let path = entry.path();
    if n >= MAX_ENTRIES {
      return foreign(path);
    }
    let Ok(m) = std::fs::symlink_metadata(&path) else {
      continue;
    };
    let file_name = entry.file_name();
    let file_name = file_name.to_string_lossy();
    if file_name == UI_DIR && m.is_dir() {
      if mounts.is_mount(&path, &m, Some(&meta)) {
        return refuse(NoIndexReason::MountPoint { path });
      }
      if let Some((path, mounted)) = foreign_in_ui(&path, &m, &mounts) {
        return refuse(if mounted {
          NoIndexReason::MountPoint { path }
        } else {
          NoIndexReason::ForeignEntry { path }
        });
      }
    } else if m.is_dir() || !is_codegraph_file(&file_name) {
      return foreign(path);
    }
  }
  Ok(())
}

/// In `ui/`: only `trails/`, and in it only regular files (CodeGraph's trails and their temp
/// files). The first other entry, and whether it is a mount point.
fn foreign_in_ui(
  ui: &Path,
  ui_meta: &std::fs::Metadata,
  mounts: &Mounts,
) -> Option<(PathBuf, bool)> {
  for entry in std::fs::read_dir(ui).ok()?.flatten().take(MAX_ENTRIES) {
    let path = entry.path();
    let Ok(m) = std::fs::symlink_metadata(&path) else {
      continue;
    };
    if entry.file_name() != TRAILS_DIR || !m.is_dir() {
      return Some((path, false));
    }
    if mounts.is_mount(&path, &m, Some(ui_meta)) {
      return Some((path, true));
    }
    for trail in std::fs::read_dir(&path).ok()?.flatten().take(MAX_ENTRIES) {
      let p = trail.path();
      if !std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file() || m.file_type().is_symlink()) {
        return Some((p, false));
      }
    }
  }
  None
}

/// One of CodeGraph's files, or a temp file it writes before renaming (`writer.pid.<pid>.tmp`,
/// `writer.pid.<pid>.ready.tmp`, the same for `daemon.pid` and `rebuild.pid`).
fn is_codegraph_file(name: &str) -> bool {
  if name != UI_DIR && CODEGRAPH_ENTRIES.contains(&name) {
    return true;
  }
  ["writer.pid.", "daemon.pid.", "rebuild.pid."]
    .iter()
    .find_map(|p| name.strip_prefix(p))
    .and_then(|rest| rest.strip_suffix(".tmp"))
    .map(|rest| rest.strip_suffix(".ready").unwrap_or(rest))
    .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// The mount points the OS lists (Linux: /proc/self/mountinfo; elsewhere none, and only a
/// device change marks a mount).
struct Mounts(Vec<PathBuf>);

impl Mounts {
  fn read() -> Self {
    #[cfg(target_family = "wasm")]
    let linux = crate::host::linux();
    #[cfg(target_os = "linux")]
    let linux = true;
    #[cfg(any(target_os = "linux", target_family = "wasm"))]
    if let Some(Ok(text)) = linux.then(|| std::fs::read_to_string("/proc/self/mountinfo")) {
      return Self(
        text
          .lines()
          .filter_map(|line| line.split(' ').nth(4))
          .map(|p| PathBuf::from(unescape_mount(p)))
          .collect(),
      );
    }
    Self(Vec::new())
  }

  /// `path` (its metadata `meta`) is a mount point: another device than its parent's, or listed.
  fn is_mount(
    &self,
    path: &Path,
    meta: &std::fs::Metadata,
    parent: Option<&std::fs::Metadata>,
  ) -> bool {
    #[cfg(unix)]
    {
      use std::os::unix::fs::MetadataExt;
      if parent.is_some_and(|p| p.dev() != meta.dev()) {
        return true;
      }
    }
    #[cfg(target_family = "wasm")]
    if parent.is_some() {
      let dev = |p: &Path, follow| crate::host::stat(p, follow).map(|s| s.dev).ok();
      let above = path.parent().and_then(|p| dev(p, true));
      if let (Some(here), Some(above)) = (dev(path, false), above) {
        if here != above {
          return true;
        }
      }
    }
    #[cfg(not(unix))]
    let _ = (meta, parent);
    if self.0.is_empty() {
      return false;
    }
    let real = canonical(path);
    self.0.contains(&real)
  }
}

/// mountinfo's octal escapes (`\040` a space, `\011` a tab, `\012` a newline, `\134` a backslash).
#[cfg(any(target_os = "linux", target_family = "wasm", test))]
fn unescape_mount(field: &str) -> String {
  let bytes = field.as_bytes();
  let mut out = Vec::with_capacity(bytes.len());
  let mut i = 0;
  while i < bytes.len() {
    if bytes[i] == b'\\'
      && i + 3 < bytes.len()
      && bytes[i + 1..i + 4]
        .iter()
        .all(|b| (b'0'..=b'7').contains(b))
    {
      let v = bytes[i + 1..i + 4]
        .iter()
        .fold(0u32, |acc, b| acc * 8 + u32::from(b - b'0'));
      out.push(v as u8);
      i += 4;
    } else {
      out.push(bytes[i]);
      i += 1;
    }
  }
  String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests;
