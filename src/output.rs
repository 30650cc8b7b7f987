//! A run's output, bounded and cleaned by the core, for the WebAssembly build's host (the Node
//! runner, lib/runners/node/child.js), which reads the pipes of the CodeGraph it started: the
//! stdout collector (the caps, the cleaner, the end of the stream, the full-output file) and the
//! stderr tail are the native runner's own (crates/core/src/limits/), called on the host's thread
//! once per chunk read. The private directory of the full-output files is found by the host (WASI
//! reads no owner or mode), by the same rules (crates/core/src/full_output.rs).

// napi hands the arguments over by value.
#![allow(clippy::needless_pass_by_value)]

use std::path::PathBuf;

use napi::bindgen_prelude::Uint8Array;
use napi_derive::napi;
use pi_codegraph_core::caps::Caps;
use pi_codegraph_core::full_output::{self, FullOutput, NotKeptReason, SpillPlace, SpillTarget};
use pi_codegraph_core::limits::{StderrTail, StdoutCollector};

/// The caps of one command (`{ bytes, lines }`, at most the drain limit each).
#[napi(object)]
pub struct OutputCaps {
  pub bytes: u32,
  pub lines: u32,
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

fn spill_target(place: OutputPlace) -> SpillTarget {
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

/// One run's stdout collector (the core's `StdoutCollector`); `finish` or `discard` ends it.
#[napi]
pub struct OutputCollector {
  inner: Option<StdoutCollector>,
}

#[napi]
impl OutputCollector {
  /// A collector within `caps` (none: the contract's maxima, `Caps::MAX`); a truncated answer's
  /// full output goes to `place` (none: no file).
  #[napi(constructor)]
  pub fn new(caps: Option<OutputCaps>, place: Option<OutputPlace>) -> Self {
    let caps = caps.map_or(Caps::MAX, |caps| Caps {
      bytes: (caps.bytes as usize).min(Caps::LARGEST.bytes),
      lines: (caps.lines as usize).clamp(1, Caps::LARGEST.lines),
    });
    Self {
      inner: Some(StdoutCollector::with_caps(place.map(spill_target), caps)),
    }
  }

  /// Takes one chunk read from stdout; true once more was printed than the runner drains.
  #[napi]
  pub fn push(&mut self, chunk: Uint8Array) -> bool {
    self.inner.as_mut().is_some_and(|c| {
      c.push(&chunk);
      c.over_drain_limit()
    })
  }

  #[napi]
  pub fn preview(&self) -> OutputPreview {
    let (text, bytes, lines) = self
      .inner
      .as_ref()
      .map_or((String::new(), 0, 0), StdoutCollector::preview);
    OutputPreview {
      text,
      bytes: bytes as f64,
      lines: lines as f64,
    }
  }

  /// The end of everything printed so far, cleaned (a progress report's `tail`).
  #[napi]
  pub fn tail(&self) -> String {
    self
      .inner
      .as_ref()
      .map_or_else(String::new, StdoutCollector::tail)
  }

  /// The bounded stdout; `totals_exact`: false when the runner stopped reading at the drain limit.
  #[napi]
  pub fn finish(&mut self, totals_exact: bool) -> CollectedOutput {
    let b = self.inner.take().unwrap_or_default().finish(totals_exact);
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

  /// A run that failed keeps no full-output file (its preview stays).
  #[napi]
  pub fn discard(&mut self) {
    if let Some(c) = self.inner.as_mut() {
      c.discard_spill();
    }
  }
}

/// The last bytes of a run's stderr, cleaned (the core's `StderrTail`).
#[napi(js_name = "StderrTail")]
pub struct StderrRing {
  inner: StderrTail,
}

#[napi]
impl StderrRing {
  #[napi(constructor)]
  #[allow(clippy::new_without_default)] // napi's constructor
  pub fn new() -> Self {
    Self {
      inner: StderrTail::new(),
    }
  }

  #[napi]
  pub fn push(&mut self, chunk: Uint8Array) {
    self.inner.push(&chunk);
  }

  #[napi]
  pub fn text(&self) -> String {
    self.inner.clone().finish()
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
