//! Where a truncated answer's full stdout goes, so the model can `read` the rest.
//!
//! A private per-user directory (`<temp>/pi-codegraph-<uid>`, mode 0700, ours, never inside the
//! workspace) holds one 0600 file per truncated answer, cleaned like the answer text. A path
//! handed to the model stays valid until its session releases it (`release(paths)` at
//! `session_shutdown`), the process exits, or a later process sweeps the files of hosts that died
//! without cleaning up. Nothing is rotated away early: when the process budget is spent, a new
//! answer gets no file and its marker says why (a `NotKeptReason`, worded in lib/words/).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use tempfile::TempPath;

use crate::caps::DRAIN_LIMIT_BYTES;
use crate::sanitize::Cleaner;

/// All full-output files of this process together hold at most this much.
pub const PROCESS_BUDGET_BYTES: u64 = 64 * 1024 * 1024;
/// How the files' names begin.
const FILE_PREFIX: &str = "explore-";

/// Where the spill would go, decided only when an answer is first cut.
#[derive(Debug, Clone)]
pub enum SpillTarget {
  /// Found (and made) when first needed: the first usable private directory among `TMPDIR`,
  /// `/tmp` and `/var/tmp` outside `workspace` (dir.rs), the files named after this process.
  Find {
    tmpdir_var: Option<PathBuf>,
    workspace: PathBuf,
  },
  /// Found beforehand ([`find_place`]), or why there is none: the WebAssembly build finds it in
  /// the Node runner's worker, with its host's answers, and writes the file on the host's thread.
  Chosen(Result<SpillPlace, NotKeptReason>),
}

/// A private directory for the files, and the prefix of their names (`explore-<pid>-ns<ns>-`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpillPlace {
  pub dir: PathBuf,
  pub prefix: String,
}

/// The spill file while a run writes it. Dropped unfinished (an error, a cancel), it deletes
/// its file and gives its bytes back to the budget.
#[derive(Debug)]
pub struct Spill {
  file: File,
  path: Option<TempPath>,
  cleaner: Cleaner,
  buf: String,
  written: u64,
  cut: bool,
}

/// A truncated answer's full output: its file, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FullOutput {
  Kept {
    path: PathBuf,
    bytes: u64,
    /// False when the CLI printed more than the file keeps.
    complete: bool,
  },
  NotKept {
    reason: NotKeptReason,
  },
}

/// Why a truncated answer has no full-output file: a tag and its facts (the directory as shown,
/// the OS's own text); lib/words/marker.js words each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum NotKeptReason {
  /// The process budget is spent by files open sessions may still read.
  Budget { mib: u64 },
  /// Every candidate temporary directory is inside the workspace.
  AllTempInWorkspace,
  /// The private directory could not be created.
  DirCreate { dir: String, error: String },
  /// The private directory could not be inspected.
  DirUnusable { dir: String, error: String },
  /// The private directory's name is taken by something not this user's directory.
  DirNotOurs { dir: String },
  /// The private directory could not be closed to others.
  DirPrivate { dir: String, error: String },
  /// No file could be created in the directory (`error` is absent when every name was taken).
  FileCreate { dir: String, error: Option<String> },
  /// Writing the file failed.
  Write { error: String },
}

struct Registry {
  files: Vec<(TempPath, u64)>,
  /// Bytes held by finished files plus those being written.
  bytes: u64,
}

fn registry() -> &'static Mutex<Registry> {
  static KEPT: OnceLock<Mutex<Registry>> = OnceLock::new();
  KEPT.get_or_init(|| {
    Mutex::new(Registry {
      files: Vec::new(),
      bytes: 0,
    })
  })
}

fn lock() -> std::sync::MutexGuard<'static, Registry> {
  registry()
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Spill {
  /// A new spill file, or why none can be made.
  pub fn create(target: &SpillTarget) -> Result<Self, NotKeptReason> {
    if lock().bytes >= PROCESS_BUDGET_BYTES {
      return Err(NotKeptReason::Budget {
        mib: PROCESS_BUDGET_BYTES / (1024 * 1024),
      });
    }
    let place = match target {
      SpillTarget::Find {
        tmpdir_var,
        workspace,
      } => find_place(tmpdir_var.as_deref(), workspace)?,
      SpillTarget::Chosen(chosen) => chosen.clone()?,
    };
    let (file, path) = tempfile::Builder::new()
      .prefix(&place.prefix)
      .suffix(".txt")
      .tempfile_in(&place.dir)
      .map_err(|e| NotKeptReason::FileCreate {
        dir: place.dir.display().to_string(),
        error: Some(e.to_string()),
      })?
      .into_parts();
    Ok(Self {
      file,
      path: Some(path),
      cleaner: Cleaner::new(),
      buf: String::new(),
      written: 0,
      cut: false,
    })
  }

  /// Appends the cleaned chunk within the per-file and process bounds. An error means the file
  /// is abandoned (the answer stays bounded anyway).
  pub fn write(&mut self, chunk: &[u8]) -> Result<(), NotKeptReason> {
    self.buf.clear();
    self.cleaner.push(chunk, &mut self.buf);
    self.append()
  }

  fn append(&mut self) -> Result<(), NotKeptReason> {
    // Reserve the bytes in the process budget under one lock, cut on a character boundary.
    let take = {
      let mut reg = lock();
      let room = DRAIN_LIMIT_BYTES
        .saturating_sub(self.written)
        .min(PROCESS_BUDGET_BYTES.saturating_sub(reg.bytes));
      let mut take = self
        .buf
        .len()
        .min(usize::try_from(room).unwrap_or(usize::MAX));
      while !self.buf.is_char_boundary(take) {
        take -= 1;
      }
      reg.bytes += take as u64;
      take
    };
    self.cut |= take < self.buf.len();
    self.written += take as u64;
    self
      .file
      .write_all(&self.buf.as_bytes()[..take])
      .map_err(|e| write_failed(&e))
  }

  pub fn finish(mut self, complete: bool) -> FullOutput {
    self.buf.clear();
    std::mem::take(&mut self.cleaner).finish(&mut self.buf);
    if let Err(reason) = self
      .append()
      .and_then(|()| self.file.flush().map_err(|e| write_failed(&e)))
    {
      return FullOutput::NotKept { reason };
    }
    let path = self.path.take().expect("an unfinished spill has its path");
    let out = FullOutput::Kept {
      path: path.to_path_buf(),
      bytes: self.written,
      complete: complete && !self.cut,
    };
    // Rust statics are never dropped and process.exit() runs no destructors; exit() does run
    // atexit handlers, so the files go with a normal or process.exit() exit too. (The
    // WebAssembly build's host releases them at its exit: lib/runners/node/host-watch.js.)
    #[cfg(not(target_family = "wasm"))]
    AT_EXIT.call_once(|| {
      // SAFETY: `release_at_exit` is a plain `extern "C" fn()` that lives as long as the process.
      unsafe { libc::atexit(release_at_exit) };
    });
    lock().files.push((path, self.written));
    out
  }
}

fn write_failed(e: &std::io::Error) -> NotKeptReason {
  NotKeptReason::Write {
    error: e.to_string(),
  }
}

#[cfg(not(target_family = "wasm"))]
static AT_EXIT: std::sync::Once = std::sync::Once::new();

impl Drop for Spill {
  fn drop(&mut self) {
    if self.path.is_some() {
      let mut reg = lock();
      reg.bytes = reg.bytes.saturating_sub(self.written);
    }
  }
}

#[cfg(not(target_family = "wasm"))]
extern "C" fn release_at_exit() {
  release_all();
}

/// Deletes every full-output file this process still keeps; returns how many.
pub fn release_all() -> usize {
  let mut reg = lock();
  let n = reg.files.len();
  reg.files.clear();
  reg.bytes = 0;
  n
}

/// Deletes the listed files (one session's), leaving every other session's; returns how many.
pub fn release(paths: &[PathBuf]) -> usize {
  let mut reg = lock();
  let before = reg.files.len();
  let mut freed = 0;
  reg.files.retain(|(p, bytes)| {
    let keep = !paths.iter().any(|q| q == &**p);
    if !keep {
      freed += bytes;
    }
    keep
  });
  reg.bytes = reg.bytes.saturating_sub(freed);
  before - reg.files.len()
}

mod dir;
#[cfg(test)]
use dir::dir_name;
use dir::{owner_prefix, private_dir, sweep_once};

/// The place for a run's full output: the first usable private directory among `tmpdir_var`
/// (`TMPDIR`), `/tmp` and `/var/tmp` outside `workspace` (made if need be, the files of dead hosts
/// swept from it once), the files named after this process.
pub fn find_place(
  tmpdir_var: Option<&Path>,
  workspace: &Path,
) -> Result<SpillPlace, NotKeptReason> {
  let dir = private_dir(tmpdir_var, workspace)?;
  sweep_once(&dir);
  Ok(SpillPlace {
    dir,
    prefix: owner_prefix(),
  })
}

#[cfg(test)]
mod tests;
