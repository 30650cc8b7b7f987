//! The WebAssembly build's surface (wasm32-wasip1-threads, loaded through `@napi-rs/wasm-runtime`
//! where no native addon loads): the source calls of the core, synchronous, for the JS runner's
//! worker thread (lib/runners/node/source-worker.js), which is never the host's thread. Each
//! takes the same request and returns the same result as the native addon's promise-returning
//! call of the same name; `stopped`, when given, is asked between files (the worker's cancel flag).
//! Launching and killing processes is the JS runner's part: WASI has no process API.

use std::path::PathBuf;

use napi::bindgen_prelude::Function;
use napi_derive::napi;
use pi_codegraph_core::index_copy as core_copy;
use pi_codegraph_core::source_outline as core_outline;
use pi_codegraph_core::{source_changes, source_scan as core_scan};

use crate::index_copy::{copy_request, copy_result, IndexCopyRequest, IndexCopyResult};
use crate::source_outline::{
  outline_request, result as outline_result, SourceOutlineRequest, SourceOutlineResult,
};
use crate::source_scan::{
  changes_request, changes_result, pattern_refused, request, result, SourceChangesRequest,
  SourceChangesResult, SourceScanRequest, SourceScanResult,
};

/// `stopped()` as the core asks it: the JS function's answer, and `false` when there is none or it throws.
fn asker<'a>(stopped: Option<&'a Function<'a, (), bool>>) -> impl Fn() -> bool + 'a {
  move || stopped.is_some_and(|f| f.call(()).unwrap_or(false))
}

/// The source scan (the native `scanSource`), run on the caller's thread.
#[napi(js_name = "scanSource")]
#[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
pub fn scan_source_here(
  cwd: String,
  scan: SourceScanRequest,
  stopped: Option<Function<'_, (), bool>>,
) -> napi::Result<SourceScanResult> {
  let scan = request(scan);
  let stopped = asker(stopped.as_ref());
  match core_scan::scan_cancellable(&PathBuf::from(cwd), &scan, &stopped) {
    Ok(found) => Ok(result(found)),
    Err(bad) => Err(pattern_refused(&bad)),
  }
}

/// The changed-files walk (the native `changedSource`), run on the caller's thread.
#[napi(js_name = "changedSource")]
#[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
pub fn changed_source_here(cwd: String, walk: SourceChangesRequest) -> SourceChangesResult {
  changes_result(source_changes::changed_since(
    &PathBuf::from(cwd),
    &changes_request(walk),
  ))
}

/// The outline of source files (the native `outlineSource`), run on the caller's thread.
#[napi(js_name = "outlineSource")]
#[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
pub fn outline_source_here(
  cwd: String,
  request: SourceOutlineRequest,
  stopped: Option<Function<'_, (), bool>>,
) -> SourceOutlineResult {
  let request = outline_request(request);
  let stopped = asker(stopped.as_ref());
  outline_result(core_outline::outline_source(
    &PathBuf::from(cwd),
    &request,
    &stopped,
  ))
}

/// The copy of another worktree's index (the native `copyIndex`), run on the caller's thread.
#[napi(js_name = "copyIndex")]
#[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
pub fn copy_index_here(
  cwd: String,
  request: IndexCopyRequest,
  stopped: Option<Function<'_, (), bool>>,
) -> IndexCopyResult {
  let request = copy_request(cwd, request);
  let stopped = asker(stopped.as_ref());
  copy_result(core_copy::copy_index(&request, &stopped))
}
