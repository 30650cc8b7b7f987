//! `copyIndex()`: the JS shapes of the core's copy of another worktree's index
//! (`pi_codegraph_core::index_copy`) and their conversion. The native call runs on tokio's
//! blocking pool and takes the caller's `AbortSignal`; the WebAssembly build's (src/wasm.rs) is
//! synchronous, for the JS runner's worker. A refusal is a fact (`refused`), worded by the glue.

use std::path::PathBuf;
use std::time::Duration;

use napi_derive::napi;
use pi_codegraph_core::index_copy::{Copied, CopyRefusal, CopyRequest};
#[cfg(not(target_family = "wasm"))]
pub use promised::copy_index;

/// What to copy: `from` (the sibling worktree's index directory) into `to` (this workspace's
/// index directory, which must not exist yet).
#[napi(object, object_to_js = false)]
pub struct IndexCopyRequest {
  pub from: String,
  pub to: String,
  /// Milliseconds (default and most: an index write's longest, one hour).
  pub deadline_ms: Option<u32>,
}

/// Why nothing was copied: `is` one of fromNotDirectory, noDatabase, notRegular (`name`),
/// targetExists, targetOutside, stopped (`why`: cancelled or deadline), io (`step`, `path`, `os`).
#[napi(object, object_from_js = false)]
pub struct IndexCopyRefusal {
  pub is: String,
  pub name: Option<String>,
  pub why: Option<String>,
  pub step: Option<String>,
  pub path: Option<String>,
  pub os: Option<String>,
}

/// The files copied (by name) and their bytes; or, with nothing left behind, why not.
#[napi(object, object_from_js = false)]
pub struct IndexCopyResult {
  pub files: Vec<String>,
  pub bytes: f64,
  pub refused: Option<IndexCopyRefusal>,
}

const LONGEST: Duration = Duration::from_hours(1);

/// The core's request from the JS one (both builds' `copyIndex`).
pub(crate) fn copy_request(cwd: String, request: IndexCopyRequest) -> CopyRequest {
  let asked = request
    .deadline_ms
    .filter(|ms| *ms > 0)
    .map_or(LONGEST, |ms| Duration::from_millis(u64::from(ms)));
  CopyRequest {
    workspace: PathBuf::from(cwd),
    from: PathBuf::from(request.from),
    to: PathBuf::from(request.to),
    deadline: asked.min(LONGEST),
  }
}

fn refusal(is: &str) -> IndexCopyRefusal {
  IndexCopyRefusal {
    is: is.to_owned(),
    name: None,
    why: None,
    step: None,
    path: None,
    os: None,
  }
}

pub(crate) fn copy_result(outcome: Result<Copied, CopyRefusal>) -> IndexCopyResult {
  let refused = |r: IndexCopyRefusal| IndexCopyResult {
    files: Vec::new(),
    bytes: 0.0,
    refused: Some(r),
  };
  match outcome {
    Ok(copied) => IndexCopyResult {
      files: copied.files,
      bytes: copied.bytes as f64,
      refused: None,
    },
    Err(CopyRefusal::FromNotDirectory) => refused(refusal("fromNotDirectory")),
    Err(CopyRefusal::NoDatabase) => refused(refusal("noDatabase")),
    Err(CopyRefusal::TargetExists) => refused(refusal("targetExists")),
    Err(CopyRefusal::TargetOutside) => refused(refusal("targetOutside")),
    Err(CopyRefusal::NotRegular { name }) => refused(IndexCopyRefusal {
      name: Some(name),
      ..refusal("notRegular")
    }),
    Err(CopyRefusal::Stopped { why }) => refused(IndexCopyRefusal {
      why: Some(why.to_owned()),
      ..refusal("stopped")
    }),
    Err(CopyRefusal::Io { step, path, os }) => refused(IndexCopyRefusal {
      step: Some(step.to_owned()),
      path: Some(path.to_string_lossy().into_owned()),
      os: Some(os),
      ..refusal("io")
    }),
  }
}

/// The native addon's call: a promise, on tokio's blocking pool.
#[cfg(not(target_family = "wasm"))]
mod promised {
  use napi::bindgen_prelude::{Object, Unknown};
  use napi::Env;
  use napi_derive::napi;
  use pi_codegraph_core::index_copy;

  use super::{copy_request, copy_result, IndexCopyRequest};
  use crate::threaded::threaded;

  /// Copies another worktree's CodeGraph index (`request.from`) into `request.to` below `cwd`
  /// (new files, never a link; made whole beside it, then renamed into place). An aborted `signal`
  /// stops it with nothing left behind (`refused: { is: "stopped", why: "cancelled" }`).
  #[napi(
    ts_args_type = "cwd: string, request: IndexCopyRequest, signal?: AbortSignal | null",
    ts_return_type = "Promise<IndexCopyResult>"
  )]
  #[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
  pub fn copy_index<'env>(
    env: &'env Env,
    cwd: String,
    request: IndexCopyRequest,
    signal: Option<Unknown<'env>>,
  ) -> napi::Result<Object<'env>> {
    let request = copy_request(cwd, request);
    threaded(
      env,
      signal,
      "the index copy",
      move |stopped| index_copy::copy_index(&request, stopped),
      |outcome| Ok(copy_result(outcome)),
    )
  }
}
