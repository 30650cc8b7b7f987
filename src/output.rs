//! A run's output as JS reads it, for the WebAssembly build's host (the Node runner): the caps it
//! asks for, where the full output may go, and the bounded stdout of a finished run
//! (src/host_child.rs runs the child). The private directory of the full-output files is found
//! by the host's checks (WASI reads no owner or mode), by the same rules
//! (crates/core/src/full_output.rs).

// napi hands the arguments over by value.
#![allow(clippy::needless_pass_by_value)]

use std::path::PathBuf;

use napi_derive::napi;
use pi_codegraph_core::caps::Caps;
use pi_codegraph_core::full_output::{self, FullOutput, NotKeptReason, SpillPlace, SpillTarget};
use pi_codegraph_core::limits::Bounded;

/// The caps of one command (`{ bytes, lines }`, at most the drain limit each).
#[napi(object)]
pub struct OutputCaps {
  pub bytes: u32,
  pub lines: u32,
}

impl OutputCaps {
  /// The core's caps (none: the contract's maxima, `Caps::MAX`), within the largest it allows.
  pub(crate) fn of(caps: Option<Self>) -> Caps {
    caps.map_or(Caps::MAX, |caps| Caps {
      bytes: (caps.bytes as usize).min(Caps::LARGEST.bytes),
      lines: (caps.lines as usize).clamp(1, Caps::LARGEST.lines),
    })
  }
}

/// Where a truncated answer's full output may go: `{ dir, prefix }`, or `{ reason }` (a
/// NotKeptReason, as lib/words/marker.js words it) when the host found no private directory.
#[napi(object)]
pub struct OutputPlace {
  pub dir: Option<String>,
  pub prefix: Option<String>,
  pub reason: Option<serde_json::Value>,
}

/// What the model would see so far: the text within the caps, and the bytes and lines seen.
#[napi(object)]
pub struct OutputPreview {
  pub text: String,
  pub bytes: f64,
  pub lines: f64,
}

/// A truncated answer's full output: `{ path, bytes, complete }`, or `{ reason }`.
#[napi(object)]
pub struct OutputFile {
  pub path: Option<String>,
  pub bytes: Option<f64>,
  pub complete: Option<bool>,
  pub reason: Option<serde_json::Value>,
}

/// The bounded stdout of a finished run (crates/core/src/limits.rs `Bounded`).
#[napi(object)]
pub struct CollectedOutput {
  pub text: String,
  pub truncated: bool,
  pub truncated_by: Option<String>,
  pub total_bytes: f64,
  pub total_lines: f64,
  pub kept_bytes: f64,
  pub kept_lines: f64,
  pub totals_exact: bool,
  pub full_output: Option<OutputFile>,
  pub output_tail: Option<String>,
}

pub(crate) fn spill_target(place: OutputPlace) -> SpillTarget {
  let given = match (place.dir, place.prefix) {
    (Some(dir), Some(prefix)) => Ok(SpillPlace {
      dir: PathBuf::from(dir),
      prefix,
    }),
    _ => Err(
      place
        .reason
        .and_then(|r| serde_json::from_value::<NotKeptReason>(r).ok())
        .unwrap_or(NotKeptReason::AllTempInWorkspace),
    ),
  };
  SpillTarget::Chosen(given)
}

/// A finished run's bounded stdout (the core's `Bounded`), for JS.
pub(crate) fn collected(b: Bounded) -> CollectedOutput {
  CollectedOutput {
    text: b.text,
    truncated: b.truncated,
    truncated_by: b.truncated_by.map(|c| c.as_str().to_owned()),
    total_bytes: b.total_bytes as f64,
    total_lines: b.total_lines as f64,
    kept_bytes: b.kept_bytes as f64,
    kept_lines: b.kept_lines as f64,
    totals_exact: b.totals_exact,
    full_output: b.full_output.map(output_file),
    output_tail: b.output_tail,
  }
}

fn output_file(full: FullOutput) -> OutputFile {
  match full {
    FullOutput::Kept {
      path,
      bytes,
      complete,
    } => OutputFile {
      path: Some(path.to_string_lossy().into_owned()),
      bytes: Some(bytes as f64),
      complete: Some(complete),
      reason: None,
    },
    FullOutput::NotKept { reason } => OutputFile {
      path: None,
      bytes: None,
      complete: None,
      reason: serde_json::to_value(reason).ok(),
    },
  }
}

/// Deletes full-output files: the listed paths (one session's), or with none every file this
/// process keeps; returns how many (the native `releaseFullOutputs`).
#[napi(js_name = "releaseFullOutputs")]
pub fn release_full_outputs(paths: Option<Vec<String>>) -> u32 {
  let released = match paths {
    Some(paths) => full_output::release(&paths.into_iter().map(PathBuf::from).collect::<Vec<_>>()),
    None => full_output::release_all(),
  };
  u32::try_from(released).unwrap_or(u32::MAX)
}
