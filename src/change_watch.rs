//! `watchChanges()` and `unwatchChanges()`: the watch of a large tree's source files while the
//! user has auto sync on (`pi_codegraph_core::change_watch`, Linux's inotify). Where there is no
//! inotify, a report that says so: the count stays git's or the walk's.

use napi_derive::napi;

use crate::source_scan::{changes_request, SourceChangesRequest};

/// What `watchChanges` reports of a root's watch.
#[napi(object)]
pub struct ChangeWatchReport {
  /// Every directory is watched: `touched` holds every file written since this watch (`epoch`) was ready.
  pub ready: bool,
  /// Which watch: another after one was lost or stopped.
  pub epoch: f64,
  /// Workspace-relative, `/`-separated source files written since it was ready.
  pub touched: Vec<String>,
  /// Why the last watch of this root ended, when one did (`overflow`, `watchLimit`, `tooManyDirs`,
  /// `tooManyChanges`, `setupDeadline`, `unsupported`).
  pub lost: Option<String>,
  /// Directories watched.
  pub dirs: u32,
}

/// The watch of `cwd` (the request's extensions and skipped directories are the walk's: its
/// `sinceMs` and bounds are not read), started on first use or after one was lost; its report.
#[napi]
#[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
pub fn watch_changes(cwd: String, request: SourceChangesRequest) -> ChangeWatchReport {
  #[cfg(any(target_os = "linux", target_os = "android"))]
  {
    let scan = changes_request(request);
    let r = pi_codegraph_core::change_watch::watch_changes(
      std::path::Path::new(&cwd),
      scan.extensions,
      scan.skip,
    );
    ChangeWatchReport {
      ready: r.ready,
      epoch: r.epoch as f64,
      touched: r.touched,
      lost: r.lost.map(str::to_owned),
      dirs: u32::try_from(r.dirs).unwrap_or(u32::MAX),
    }
  }
  #[cfg(not(any(target_os = "linux", target_os = "android")))]
  {
    let _ = (cwd, changes_request(request));
    ChangeWatchReport {
      ready: false,
      epoch: 0.0,
      touched: Vec::new(),
      lost: Some("unsupported".into()),
      dirs: 0,
    }
  }
}

/// Ends every watch (the session's end, auto sync turned off); how many ran.
#[napi]
pub fn unwatch_changes() -> u32 {
  #[cfg(any(target_os = "linux", target_os = "android"))]
  return pi_codegraph_core::change_watch::unwatch_all();
  #[cfg(not(any(target_os = "linux", target_os = "android")))]
  0
}
