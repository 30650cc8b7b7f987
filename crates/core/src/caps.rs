//! The numbers every bound is made of: what the model may see of an answer (`Caps`, Pi's own
//! limits at most), what is kept of stderr and of the output's end, how far stdout is drained
//! past the caps, how long a request may be. Plain constants and data: the collectors that apply
//! them are `limits`'.

/// 50 KB, as Pi counts it (`DEFAULT_MAX_BYTES`).
pub const MAX_BYTES: usize = 50 * 1024;
/// Pi's `DEFAULT_MAX_LINES`.
pub const MAX_LINES: usize = 2000;
/// Only the end of stderr is useful for a diagnosis.
pub const STDERR_TAIL_BYTES: usize = 4 * 1024;
/// The end of stdout as cleaned, whatever the caps kept: every progress report's `tail` and a
/// truncated answer's `output_tail` (a long write's latest line, its final summary).
pub const OUTPUT_TAIL_BYTES: usize = 1024;
/// After the cap, stdout is still drained and counted (so the model learns how much more existed)
/// up to this many bytes; a CLI printing more is stopped rather than read forever.
pub const DRAIN_LIMIT_BYTES: u64 = 16 * 1024 * 1024;
/// A request's own bound (every command's positional text), the same as the CLI's (`query
/// exceeds maximum length of 10000`).
pub const MAX_REQUEST_CHARS: usize = 10_000;

/// The least byte cap a command may choose: room for the truncation marker (which names the
/// full-output file; lib/words/ words it) and some text.
pub const MIN_CAP_BYTES: usize = 4 * 1024;
/// The least line cap a command may choose: the marker's lines and some text.
pub const MIN_CAP_LINES: usize = 10;

/// What the model may see of one command's stdout, the marker included: bytes and lines,
/// whichever is hit first. Explore's are the maxima.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Caps {
  pub bytes: usize,
  pub lines: usize,
}

impl Caps {
  pub const MAX: Self = Self {
    bytes: MAX_BYTES,
    lines: MAX_LINES,
  };
  /// The largest caps a command may choose: what the drain reads at most. For a command whose
  /// answer is not for the model (doctor's listing of the indexed files), so that it asks for
  /// all it needs instead of reading the full-output file back.
  pub const LARGEST: Self = Self {
    bytes: DRAIN_LIMIT_BYTES as usize,
    lines: DRAIN_LIMIT_BYTES as usize,
  };
}

impl Default for Caps {
  fn default() -> Self {
    Self::MAX
  }
}

/// Which cap cut a truncated answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
  Bytes,
  Lines,
}

impl Cap {
  /// `"bytes"` or `"lines"`, as the marker and JS name it.
  pub fn as_str(self) -> &'static str {
    match self {
      Self::Bytes => "bytes",
      Self::Lines => "lines",
    }
  }
}
