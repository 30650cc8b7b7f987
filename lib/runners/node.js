// The Node runner, pi-codegraph's backend where no native addon loads: the same module shape and
// the same promises as the native addon (lib/runners/native.js loads that one), so the glue can
// run over either; the fault suites (__test__/faults/) run against both. What the core carries as
// WebAssembly (docs/architecture.md) runs here as that; the rest is one module per
// responsibility, as the core crate (crates/core/src/) has them:
// command (a description read and checked), args, limits, errors, sanitize, preflight, pid, index-writer,
// discovery, environment, spill (full outputs), collect
// (the bounded stdout/stderr collectors), host-exit, host-watch, process, run, version, explore,
// diagnose.
//
// Where plain Node differs from the addon ("Node differs"):
// - The preflight's filesystem checks run on libuv's thread pool and are bounded by the call's
//   deadline and cancel, but a stat stuck on a hung mount holds its pool thread until it returns
//   (the addon's blocking pool is its own); a stall of the shared pool delays other fs work too.
// - Windows (experimental): descendants are killed with taskkill, not a job object; a .cmd
//   launcher outside npm's layout cannot start (Node will not spawn it without a shell).
// - A file the kernel will not execute (no #!, not a native binary) is refused before the spawn,
//   since libuv would otherwise run it with /bin/sh.
// - The source scan, the changed-files walk and the outline are the core's own, built for
//   WebAssembly (wasm/), run in a worker thread (node/source-thread.js). WASI opens a file only
//   after looking at its path (no O_NONBLOCK, no O_NOFOLLOW): a FIFO swapped in between can block
//   the open until the worker is ended at the request's deadline. Pids are judged by
//   /proc/locks, which hides the lock holders this pid namespace cannot see (node/index-writer.js).
// - The child's environment is built from process.env, whose values are strings: bytes that are
//   not UTF-8 reach the CLI replaced (U+FFFD). The addon keeps the C environment's bytes where
//   process.env shows the same value.

const { diagnose } = require("./node/command-run/diagnose.js");
const { runCommand } = require("./node/command-run.js");
const { DEFAULT_TIMEOUT_MS, DRAIN_LIMIT_BYTES, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } = require("../contract/limits.js");
const { MAX_REQUEST_CHARS, STDERR_TAIL_BYTES } = require("../contract/limits.js");
const { changedSource, copyIndex, outlineSource, scanSource } = require("./node/source-thread.js");
const { runGit } = require("./node/git-run.js");
const { setPackageCli } = require("./node/discovery.js");
const { hostCore, wasmCoreFile } = require("./node/wasm-core.js");

/** Deletes full-output files (the core's, crates/core/src/full_output.rs): the listed paths, or with none all of this process's. */
const releaseFullOutputs = (paths) => hostCore().releaseFullOutputs(paths ?? null);

/** Which runner this is, for the status slot, /codegraph and doctor (select.js adds why it was chosen): its path is the WebAssembly core's. */
function runnerInfo() {
  return { name: "node", path: wasmCoreFile(), note: null, fallback: false };
}

/** The Node runner keeps no long-lived CodeGraph (the WebAssembly core cannot keep a process): a process per call. */
const stopWarm = async () => 0;
const warmServers = () => [];
/** Nor a watch (WASI has no inotify): the count of changes stays git's or the walk's. */
const watchChanges = async () => ({ ready: false, epoch: 0, touched: [], lost: "unsupported", dirs: 0 });
const unwatchChanges = () => 0;

module.exports = {
  runCommand,
  stopWarm,
  warmServers,
  watchChanges,
  unwatchChanges,
  setPackageCli,
  runnerInfo,
  diagnose,
  releaseFullOutputs,
  scanSource,
  changedSource,
  runGit,
  outlineSource,
  copyIndex,
  MAX_REQUEST_CHARS,
  MAX_OUTPUT_BYTES,
  MAX_OUTPUT_LINES,
  DRAIN_LIMIT_BYTES,
  STDERR_TAIL_BYTES,
  DEFAULT_TIMEOUT_MS,
};
