// The Node runner, pi-codegraph's backend where no native addon loads: the same module shape and
// the same promises as the native addon (lib/runners/native.js loads that one), so the glue can
// run over either; the fault suites (__test__/faults/) run against both. Its core is the addon's
// own Rust, built for WebAssembly (docs/architecture.md): a call's reading, its output and its
// exit's meaning on the host's thread (node/wasm-core.js); the checks before and after a run, a
// diagnosis's, where git is, the source scan, walk and outline in workers (node/source-worker.js,
// driven by node/source-thread.js: one for the checks, one for the source calls), and the place for a cut answer's full output with them. What
// is left here is what WASI cannot do: launching CodeGraph and git and killing their tree
// (node/runner.js, node/runner/), the version probe (a process), the host's answers to the core
// (node/source-worker.js `ask`), and the order of a call's steps (node/command-run.js, the twin of
// crates/core/src/command_run.rs).
//
// Where plain Node differs from the addon ("Node differs"):
// - The checks run in a worker of their own (never behind a scan or a walk), one call's at a time,
//   bounded by the call's deadline and cancel; a stat stuck on a hung mount holds that worker until
//   the deadline (and a second), when it is ended, and the checks of other calls queued behind it
//   are lost with it (as timeouts).
// - Windows (experimental): descendants are killed with taskkill, not a job object; a .cmd
//   launcher outside npm's layout cannot start (Node will not spawn it without a shell). PATH is
//   split on `:` by the core's WebAssembly build: on Windows the native addon is the runner.
// - A file the kernel will not execute (no #!, not a native binary) is refused before the spawn,
//   since libuv would otherwise run it with /bin/sh.
// - WASI opens a file only after the host opened it as the addon does, or looked at its path (no
//   O_NONBLOCK, no O_NOFOLLOW in WASI): a FIFO swapped in between can block the open until the
//   worker is ended at the request's deadline. A writer in another pid namespace is found from
//   /proc/locks, which hides the lock holders this pid namespace cannot see ("unseen"), where the
//   addon asks F_GETLK.
// - The child's environment is built from process.env, whose values are strings: bytes that are
//   not UTF-8 reach the CLI replaced (U+FFFD). The addon keeps the C environment's bytes where
//   process.env shows the same value.

const { diagnose: diagnosed } = require("./node/command-run/diagnose.js");
const { packageCliSet, runCommand, setPackageCli } = require("./node/command-run.js");
const { DEFAULT_TIMEOUT_MS, DRAIN_LIMIT_BYTES, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } = require("../contract/limits.js");
const { MAX_REQUEST_CHARS, STDERR_TAIL_BYTES } = require("../contract/limits.js");
const { changedSource, copyIndex, outlineSource, scanSource } = require("./node/source-thread.js");
const { runGit } = require("./node/git-run.js");
const { hostCore, wasmCoreFile } = require("./node/wasm-core.js");

/** Read-only readiness of a workspace (command-run/diagnose.js), with the CLI beside the package as set. */
const diagnose = (cwd, workspace) => diagnosed(cwd, workspace, packageCliSet());

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
