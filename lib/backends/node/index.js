// The plain-Node backend of pi-codegraph: the same module shape and the same promises as the
// native addon (lib/native.js loads that one), so the glue can run over either; the fault suites
// (__test__/faults/) run against both. One module per responsibility, as src/ has them:
// limits, errors, sanitize, preflight, discovery, spill (full outputs), collect (the bounded
// stdout/stderr collectors), host-exit, host-watch, process, run, version, explore.
//
// Where plain Node differs from the addon ("Node differs"):
// - The preflight's filesystem checks are synchronous: a stat on a hung mount blocks the call
//   (and the host's event loop) instead of ending in CODEGRAPH_TIMEOUT at the deadline.
// - Redaction's `\b` is ASCII-only in JS (Unicode-aware in Rust's regex).
// - Windows (experimental): descendants are killed with taskkill, not a job object; a .cmd
//   launcher outside npm's layout cannot start (Node will not spawn it without a shell).
// - A file the kernel will not execute (no #!, not a native binary) is refused before the spawn,
//   since libuv would otherwise run it with /bin/sh.

const { diagnose, explore } = require("./explore.js");
const { DEFAULT_TIMEOUT_MS, DRAIN_LIMIT_BYTES, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } = require("./limits.js");
const { MAX_REQUEST_CHARS, STDERR_TAIL_BYTES } = require("./limits.js");
const { releaseFullOutputs } = require("./spill.js");

module.exports = {
  explore,
  diagnose,
  releaseFullOutputs,
  MAX_REQUEST_CHARS,
  MAX_OUTPUT_BYTES,
  MAX_OUTPUT_LINES,
  DRAIN_LIMIT_BYTES,
  STDERR_TAIL_BYTES,
  DEFAULT_TIMEOUT_MS,
};
