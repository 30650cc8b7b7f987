//! A run's progress reports: at most one per `PROGRESS_INTERVAL` while stdout arrives.

use std::time::Instant;

use super::{Progress, ProgressFn, PROGRESS_INTERVAL};
use crate::limits::StdoutCollector;

/// The progress reports of one run: at most one per `PROGRESS_INTERVAL`; output that arrives
/// sooner is reported once the interval has passed (the caller's timer, at the instant
/// `arrived` returns). Nothing is reported without new output, or once the run has ended.
pub(super) struct Throttle<'a> {
  report: Option<&'a ProgressFn>,
  started: Instant,
  last: Instant,
  /// Output arrived since the last report: the trailing report is due.
  pub(super) unreported: bool,
}

impl<'a> Throttle<'a> {
  pub(super) fn new(report: Option<&'a ProgressFn>, started: Instant) -> Self {
    Self {
      report,
      started,
      last: started,
      unreported: false,
    }
  }

  /// Output arrived: reports it now when the interval has passed; else, when no trailing report
  /// is due yet, returns the instant it is.
  pub(super) fn arrived(&mut self, out: &StdoutCollector) -> Option<Instant> {
    self.report?;
    if self.last.elapsed() >= PROGRESS_INTERVAL {
      self.report(out);
      None
    } else if self.unreported {
      None
    } else {
      self.unreported = true;
      Some(self.last + PROGRESS_INTERVAL)
    }
  }

  pub(super) fn report(&mut self, out: &StdoutCollector) {
    let Some(report) = self.report else { return };
    // One clock reading for both: a report's `elapsed` is when it was decided, not after the
    // preview was built (slower under load), so reports stay an interval apart.
    self.last = Instant::now();
    self.unreported = false;
    let (text, seen_bytes, seen_lines) = out.preview();
    report(Progress {
      text,
      tail: out.tail(),
      seen_bytes,
      seen_lines,
      elapsed: self.last - self.started,
    });
  }
}
