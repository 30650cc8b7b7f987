// The plain-Node backend of pi-codegraph: the same module shape as the native addon
// (lib/native.js loads that one), so the glue can run over either.

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
