//! `outlineSource()`: the JS shapes of the core's outline of source files
//! (`pi_codegraph_core::source_outline`) and their conversion. It runs on tokio's blocking pool,
//! never on the host's thread, and takes the caller's `AbortSignal`: aborted, it ends before its
//! next file (`cut: { reason: "cancelled" }`).

use napi_derive::napi;
use pi_codegraph_core::source_outline::{FileOutline, Outline, OutlineRequest};
#[cfg(not(target_family = "wasm"))]
pub use promised::outline_source;

/// Which files to outline.
#[napi(object, object_to_js = false)]
pub struct SourceOutlineRequest {
  /// Workspace-relative, `/`-separated (at most 500 are read).
  pub paths: Vec<String>,
  /// Milliseconds (default 2,000, at most 60,000).
  pub deadline_ms: Option<f64>,
}

/// One definition: 1-based lines, the whole of it.
#[napi(object, object_from_js = false)]
pub struct SourceOutlineDefinition {
  pub name: String,
  /// function, method, class, struct, enum, trait, impl, interface, module, macro, variable.
  pub kind: String,
  pub line: f64,
  pub end_line: f64,
  /// The enclosing definition's index in the same list (the Node runner and `native.js` give null
  /// for none).
  pub parent: Option<u32>,
  /// Set on a definition in a `macro_rules!` template: the macro's name.
  #[napi(js_name = "macro")]
  pub in_macro: Option<String>,
}

/// One file's outline.
#[napi(object, object_from_js = false)]
pub struct SourceOutlineFile {
  /// As asked.
  pub path: String,
  /// The file's true line count (0 when it was not read).
  pub lines: f64,
  /// "rust", "python", "typescript", "javascript", or none.
  pub language: Option<String>,
  pub definitions: Vec<SourceOutlineDefinition>,
  /// Why the file was not read or outlined: outside, missing, link, notRegular, tooLarge,
  /// unreadable, binary.
  pub problem: Option<String>,
  /// A bracket, comment or string did not close: the definitions past it may be wrong.
  pub unbalanced: Option<bool>,
}

/// The bound that ended an outline early: "paths", "cancelled", "deadline" or "bytes".
#[napi(object, object_from_js = false)]
pub struct SourceOutlineCut {
  pub reason: String,
}

#[napi(object, object_from_js = false)]
pub struct SourceOutlineResult {
  pub files: Vec<SourceOutlineFile>,
  pub cut: Option<SourceOutlineCut>,
}

fn file(f: FileOutline) -> SourceOutlineFile {
  SourceOutlineFile {
    path: f.path,
    lines: f.lines as f64,
    language: f.language.map(str::to_owned),
    definitions: f
      .definitions
      .into_iter()
      .map(|d| SourceOutlineDefinition {
        name: d.name,
        kind: d.kind.to_owned(),
        line: d.line as f64,
        end_line: d.end_line as f64,
        parent: d.parent.map(|p| u32::try_from(p).unwrap_or(u32::MAX)),
        in_macro: d.in_macro,
      })
      .collect(),
    problem: f.problem.map(str::to_owned),
    unbalanced: f.unbalanced.then_some(true),
  }
}

/// The core's request from the JS one (both builds' `outlineSource`).
pub(crate) fn outline_request(request: SourceOutlineRequest) -> OutlineRequest {
  OutlineRequest {
    paths: request.paths,
    deadline_ms: request.deadline_ms,
  }
}

pub(crate) fn result(outline: Outline) -> SourceOutlineResult {
  SourceOutlineResult {
    files: outline.files.into_iter().map(file).collect(),
    cut: outline.cut.map(|reason| SourceOutlineCut {
      reason: reason.to_owned(),
    }),
  }
}

/// The native addon's call: a promise, on tokio's blocking pool.
#[cfg(not(target_family = "wasm"))]
mod promised {
  use std::path::PathBuf;

  use napi::bindgen_prelude::{Object, Unknown};
  use napi::Env;
  use napi_derive::napi;
  use pi_codegraph_core::source_outline;

  use super::{outline_request, result, SourceOutlineRequest};
  use crate::threaded::threaded;

  /// Outlines `request.paths` under `cwd` (each opened as a regular file of the workspace, never
  /// through a link): each file's line count, language and definitions. An aborted `signal` ends it
  /// early with what it outlined (`cut: { reason: "cancelled" }`).
  #[napi(
    ts_args_type = "cwd: string, request: SourceOutlineRequest, signal?: AbortSignal | null",
    ts_return_type = "Promise<SourceOutlineResult>"
  )]
  #[allow(clippy::needless_pass_by_value)] // napi hands the arguments over by value
  pub fn outline_source<'env>(
    env: &'env Env,
    cwd: String,
    request: SourceOutlineRequest,
    signal: Option<Unknown<'env>>,
  ) -> napi::Result<Object<'env>> {
    let request = outline_request(request);
    threaded(
      env,
      signal,
      "the source outline",
      move |stopped| source_outline::outline_source(&PathBuf::from(cwd), &request, stopped),
      |outline| Ok(result(outline)),
    )
  }
}
