// The bounds of one explore, as the native addon has them (crates/core/src/caps.rs), and the text
// arithmetic on them: the caps cut and line counts (the truncation marker is worded in lib/words/).

const IS_WINDOWS = process.platform === "win32";

const MAX_REQUEST_CHARS = 10000;
const MAX_OUTPUT_BYTES = 50 * 1024; // what the model may see of stdout: 51,200 bytes ...
const MAX_OUTPUT_LINES = 2000; // ... or 2,000 lines, whichever comes first
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024; // stdout past the caps is counted (and spilled) up to this
const STDERR_TAIL_BYTES = 4 * 1024;
const OUTPUT_TAIL_BYTES = 1024; // the end of stdout, whatever the caps kept: progress's tail, a cut answer's outputTail
const DEFAULT_TIMEOUT_MS = 30000;
/** Node's timers fire at once past 2^31−1 ms; the addon takes the same bound. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** A timeout both runners accept: a finite number of milliseconds from 1 to MAX_TIMEOUT_MS (used truncated). */
const isTimeout = (ms) => typeof ms === "number" && Number.isFinite(ms) && ms >= 1 && ms <= MAX_TIMEOUT_MS;
/** An index-writing command's longest deadline (crates/core/src/command.rs MAX_WRITE_TIMEOUT). */
const MAX_WRITE_TIMEOUT_MS = 60 * 60 * 1000;
/**
 * How long a command that reads the index waits for CodeGraph to finish writing it before it says
 * the index is busy (crates/core/src/command_run.rs WRITER_WAIT); a tool call waits as long for an
 * auto sync of its session (lib/pi/auto-sync.js).
 */
const WRITER_WAIT_MS = 10000;
/** The least caps a command may choose: room for the marker and some text. */
const MIN_CAP_BYTES = 4 * 1024;
const MIN_CAP_LINES = 10;
/**
 * The largest caps a command may choose: what the drain reads at most (crates/core/src/limits.rs
 * `Caps::LARGEST`). For a command whose answer is not for the model (doctor's listing of the
 * indexed files): it asks for all it needs instead of reading the full-output file back.
 */
const LARGEST_CAP_BYTES = DRAIN_LIMIT_BYTES;
const LARGEST_CAP_LINES = DRAIN_LIMIT_BYTES;
const VERSION_TIMEOUT_MS = 5000;
const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
/** Set for the child unless the user set them: no telemetry, update check, download or colour. */
const QUIET_DEFAULTS = {
  CODEGRAPH_TELEMETRY: "0",
  CODEGRAPH_NO_UPDATE_CHECK: "1",
  CODEGRAPH_NO_DOWNLOAD: "1",
  NO_COLOR: "1",
};

const countLines = (text) => (text.match(/\n/g)?.length ?? 0) + (text && !text.endsWith("\n") ? 1 : 0);
const isContinuation = (byte) => (byte & 0xc0) === 0x80;

/** Both caps on decoded text, cut at a line end where one fits, else at a character boundary. */
function cut(text, maxBytes = MAX_OUTPUT_BYTES, maxLines = MAX_OUTPUT_LINES) {
  const buf = Buffer.from(text);
  let end = buf.length;
  let by;
  let nl = -1; // the maxLines-th newline, if there is one
  for (let i = 0; i < maxLines; i++) {
    nl = buf.indexOf(10, nl + 1);
    if (nl === -1) break;
  }
  if (nl !== -1 && nl + 1 < buf.length) [end, by] = [nl + 1, "lines"];
  if (end > maxBytes) {
    let limit = maxBytes;
    while (isContinuation(buf[limit])) limit -= 1;
    const lastNl = buf.subarray(0, limit).lastIndexOf(10);
    [end, by] = [lastNl === -1 ? limit : lastNl + 1, "bytes"];
  }
  return [buf.subarray(0, end).toString(), by];
}

/** Lines the truncation marker adds (a blank line and itself); it counts against the caps (lib/api/answer.js). */
const MARKER_LINES = 2;

/** Marks a tail that starts in the middle of a line longer than the tail itself (stderr_tail.rs). */
const CUT_MARK = "[cut]…";

/** The limits every runner exports, as the addon's napi consts. */
const LIMIT_NAMES = [
  "MAX_REQUEST_CHARS",
  "MAX_OUTPUT_BYTES",
  "MAX_OUTPUT_LINES",
  "DRAIN_LIMIT_BYTES",
  "STDERR_TAIL_BYTES",
  "DEFAULT_TIMEOUT_MS",
];

/** At most this many roots are offered to the model (the `project` enum of every tool). */
const MAX_OFFERED_ROOTS = 16;

module.exports = {
  IS_WINDOWS,
  MAX_REQUEST_CHARS,
  MAX_OUTPUT_BYTES,
  MAX_OUTPUT_LINES,
  MAX_WRITE_TIMEOUT_MS,
  WRITER_WAIT_MS,
  MIN_CAP_BYTES,
  MIN_CAP_LINES,
  LARGEST_CAP_BYTES,
  LARGEST_CAP_LINES,
  DRAIN_LIMIT_BYTES,
  STDERR_TAIL_BYTES,
  OUTPUT_TAIL_BYTES,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  isTimeout,
  VERSION_TIMEOUT_MS,
  SQLITE_MAGIC,
  QUIET_DEFAULTS,
  countLines,
  isContinuation,
  cut,
  MARKER_LINES,
  CUT_MARK,
  LIMIT_NAMES,
  MAX_OFFERED_ROOTS,
};
