//! A watch of a large tree's source files while the user has auto sync on (Linux's inotify): the
//! files written since it began, so that the count of changes since the index needs no walk and no
//! git run once it holds (lib/api/disk-changes.js adds what git named when it began; the core
//! then looks at those candidates alone, by the walk's rules: `SourceFiles::reaches`).
//!
//! Its directories are those the walk enters (what is skipped or ignored is never watched); a
//! directory created or moved in is watched from then on, and its files count as written. What
//! it cannot follow ends it (`lost`): an event queue that overflowed, the user's inotify watch
//! limit, more than `MAX_DIRS` directories or `MAX_TOUCHED` files, a setup walk over its
//! deadline. The next request starts it again; meanwhile the count is git's or the walk's, as
//! without it. One thread per watched root, ended by [`unwatch_all`] (the session's end, auto sync
//! off). Android has inotify too; elsewhere there is no watch and the count is what it was.

use std::collections::{BTreeSet, HashMap};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

use crate::files::name_listed;
use crate::source_walk::{shown_path, SkippedDirs, SourceFiles};

/// At most this many directories are watched (a watch each, from the user's inotify limit).
pub const MAX_DIRS: usize = 50_000;
/// At most this many files written since the watch began are kept; more ends it.
pub const MAX_TOUCHED: usize = 10_000;
/// The walk that finds the directories to watch (in the background: 300,000 files took 0.6 s).
const SETUP_DEADLINE: Duration = Duration::from_secs(20);

/// What a request learns of a root's watch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchReport {
  /// Every directory is watched: `touched` holds every file written since `epoch` began.
  pub ready: bool,
  /// Which watch this is: a new one (after one was lost or stopped) has another.
  pub epoch: u64,
  /// Workspace-relative, `/`-separated files written since the watch was ready.
  pub touched: Vec<String>,
  /// Why the last watch ended, when it did ("overflow", "watchLimit", "tooManyDirs",
  /// "tooManyChanges", "setupDeadline", "unsupported" …).
  pub lost: Option<&'static str>,
  pub dirs: usize,
}

#[derive(Default)]
struct State {
  ready: bool,
  lost: Option<&'static str>,
  touched: BTreeSet<String>,
  dirs: usize,
}

struct Watch {
  epoch: u64,
  state: Mutex<State>,
  stop: AtomicBool,
}

fn watches() -> &'static Mutex<HashMap<PathBuf, Arc<Watch>>> {
  static WATCHES: OnceLock<Mutex<HashMap<PathBuf, Arc<Watch>>>> = OnceLock::new();
  WATCHES.get_or_init(Mutex::default)
}

/// The watch of `root` (extensions without the dot, as the walk's), started if none runs or the last
/// one was lost (that loss is reported once, with the new one's epoch).
pub fn watch_changes(root: &Path, extensions: Vec<String>, skip: SkippedDirs) -> WatchReport {
  static EPOCHS: AtomicU64 = AtomicU64::new(1);
  let mut all = watches()
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner);
  let current = all.get(root).cloned();
  let lost = current
    .as_ref()
    .and_then(|w| w.state.lock().ok().and_then(|s| s.lost));
  let watch = match current {
    Some(w) if lost.is_none() => w,
    _ => {
      let w = Arc::new(Watch {
        epoch: EPOCHS.fetch_add(1, Ordering::Relaxed),
        state: Mutex::default(),
        stop: AtomicBool::new(false),
      });
      all.insert(root.to_path_buf(), w.clone());
      let (thread_watch, root) = (w.clone(), root.to_path_buf());
      let started = std::thread::Builder::new()
        .name("pi-codegraph-watch".into())
        .spawn(move || run(&thread_watch, &root, &extensions, &skip));
      if started.is_err() {
        end(&w, "thread");
      }
      w
    }
  };
  drop(all);
  let state = watch
    .state
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner);
  WatchReport {
    ready: state.ready && state.lost.is_none(),
    epoch: watch.epoch,
    touched: state.touched.iter().cloned().collect(),
    lost: state.lost.or(lost),
    dirs: state.dirs,
  }
}

/// Ends every watch; how many ran.
pub fn unwatch_all() -> u32 {
  let mut all = watches()
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner);
  let n = all.len();
  for (_, w) in all.drain() {
    w.stop.store(true, Ordering::Relaxed);
  }
  u32::try_from(n).unwrap_or(u32::MAX)
}

fn end(watch: &Watch, why: &'static str) {
  if let Ok(mut state) = watch.state.lock() {
    state.ready = false;
    state.lost.get_or_insert(why);
    state.touched.clear();
  }
}

const MASK: WatchMask = WatchMask::CREATE
  .union(WatchMask::CLOSE_WRITE)
  .union(WatchMask::MODIFY)
  .union(WatchMask::ATTRIB)
  .union(WatchMask::MOVED_TO)
  .union(WatchMask::DONT_FOLLOW)
  .union(WatchMask::ONLYDIR)
  .union(WatchMask::EXCL_UNLINK);

/// The watch's thread: the directories the walk enters, watched; then every event until stopped.
fn run(watch: &Watch, root: &Path, extensions: &[String], skip: &SkippedDirs) {
  let Ok(mut inotify) = Inotify::init() else {
    return end(watch, "unsupported");
  };
  let mut dirs: HashMap<WatchDescriptor, PathBuf> = HashMap::new();
  let mut walk = SourceFiles::new(root, skip.clone(), Instant::now(), SETUP_DEADLINE).entering();
  walk.by_ref().for_each(drop);
  if walk.stopped.is_some() {
    return end(watch, "setupDeadline");
  }
  for dir in walk.entered() {
    if let Err(why) = add(&mut inotify, &mut dirs, dir) {
      return end(watch, why);
    }
  }
  if let Ok(mut state) = watch.state.lock() {
    state.ready = true;
    state.dirs = dirs.len();
  }
  let wants = |name: &str| name_listed(extensions, name);
  let mut buffer = vec![0u8; 64 * 1024];
  while !watch.stop.load(Ordering::Relaxed) {
    if !readable(&inotify, 250) {
      continue;
    }
    let events = match inotify.read_events(&mut buffer) {
      Ok(events) => events
        .map(|e| {
          (
            e.wd,
            e.mask,
            e.name.map(|n| n.to_string_lossy().into_owned()),
          )
        })
        .collect::<Vec<_>>(),
      Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
      Err(_) => return end(watch, "read"),
    };
    let mut written = Vec::new();
    for (wd, mask, name) in events {
      if mask.contains(EventMask::Q_OVERFLOW) {
        return end(watch, "overflow");
      }
      if mask.contains(EventMask::IGNORED) {
        dirs.remove(&wd);
        continue;
      }
      let (Some(dir), Some(name)) = (dirs.get(&wd), name) else {
        continue;
      };
      let path = dir.join(&name);
      if mask.contains(EventMask::ISDIR) {
        // A directory created or moved in: watched from now on, its files written.
        if mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) && !skip.skips(&name) {
          if let Err(why) = adopt(
            &mut inotify,
            &mut dirs,
            &path,
            skip,
            &wants,
            root,
            &mut written,
          ) {
            return end(watch, why);
          }
        }
      } else if wants(&name) {
        written.push(shown_path(root, &path));
      }
    }
    let Ok(mut state) = watch.state.lock() else {
      return;
    };
    state.touched.extend(written);
    state.dirs = dirs.len();
    if state.touched.len() > MAX_TOUCHED {
      drop(state);
      return end(watch, "tooManyChanges");
    }
  }
}

fn add(
  inotify: &mut Inotify,
  dirs: &mut HashMap<WatchDescriptor, PathBuf>,
  dir: PathBuf,
) -> Result<(), &'static str> {
  if dirs.len() >= MAX_DIRS {
    return Err("tooManyDirs");
  }
  match inotify.watches().add(&dir, MASK) {
    Ok(wd) => {
      dirs.insert(wd, dir);
      Ok(())
    }
    // ENOSPC: the user's max_user_watches; anything else (gone meanwhile) is not watched.
    Err(e) if e.raw_os_error() == Some(28) => Err("watchLimit"),
    Err(_) => Ok(()),
  }
}

/// A directory that appeared: watched, with the directories below it (not through a link, none
/// skipped), and the files of the extensions in them counted as written (they may have been
/// written before the watch was added).
fn adopt(
  inotify: &mut Inotify,
  dirs: &mut HashMap<WatchDescriptor, PathBuf>,
  top: &Path,
  skip: &SkippedDirs,
  wants: &dyn Fn(&str) -> bool,
  root: &Path,
  written: &mut Vec<String>,
) -> Result<(), &'static str> {
  let mut pending = vec![top.to_path_buf()];
  while let Some(dir) = pending.pop() {
    add(inotify, dirs, dir.clone())?;
    let Ok(entries) = std::fs::read_dir(&dir) else {
      continue;
    };
    for entry in entries.flatten() {
      let name = entry.file_name().to_string_lossy().into_owned();
      let Ok(kind) = entry.file_type() else {
        continue;
      };
      if kind.is_dir() && !skip.skips(&name) {
        pending.push(entry.path());
      } else if kind.is_file() && wants(&name) {
        written.push(shown_path(root, &entry.path()));
      }
      if written.len() > MAX_TOUCHED {
        return Err("tooManyChanges");
      }
    }
  }
  Ok(())
}

/// Whether the inotify descriptor has events within `ms` (so the thread sees `stop` in time).
fn readable(inotify: &Inotify, ms: i32) -> bool {
  let mut fd = libc::pollfd {
    fd: inotify.as_raw_fd(),
    events: libc::POLLIN,
    revents: 0,
  };
  // SAFETY: one valid pollfd, for the duration of the call.
  unsafe { libc::poll(&raw mut fd, 1, ms) > 0 }
}

#[cfg(test)]
mod tests;
