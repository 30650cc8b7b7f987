// The Node runner, pi-codegraph's runner where no native addon loads: the same module shape and
// the same promises as the native addon (lib/runners/native.js loads that one), so the glue runs
// over either and the fault suites (__test__/faults/) run against both. Its core is the addon's own
// Rust built for WebAssembly, running each call as the addon does (crates/core/src/command_run.rs),
// on threads of its own (node/wasm-core.js loads it), with worker threads for what reads the
// filesystem (node/source-worker.js, driven by node/source-thread.js). What is left in JavaScript
// is what WASI cannot do: starting CodeGraph and git and killing their tree, and the host's answers
// to the core (node/child.js): docs/architecture.md, "One core, two builds". Where it differs from
// the addon: docs/platforms.md, "Node differs".

const { DEFAULT_TIMEOUT_MS, DRAIN_LIMIT_BYTES, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } = require("../contract/limits.js");
const { MAX_REQUEST_CHARS, STDERR_TAIL_BYTES } = require("../contract/limits.js");
const { changedSource, copyIndex, outlineSource, scanSource } = require("./node/source-thread.js");
const { closedToOthers, coreRunning } = require("./node/child.js");
const { hostCore, wasmCoreFile, wellFormed } = require("./node/wasm-core.js");

/** The CLI installed beside the package, when set (the core takes it at each call: loading it at start would cost Pi's). */
let packageCli = null;
/** Sets (or with a non-path clears) the CLI beside the package. */
function setPackageCli(file) {
  packageCli = typeof file === "string" ? file.toWellFormed() : null;
}

/** Runs one CodeGraph command as the addon does: the core's run (crates/core/src/command_run.rs), its host starting the CLI. */
async function runCommand(command, cwd, signal, options) {
  const core = coreRunning(packageCli);
  return closedToOthers(
    await core.runCommand(wellFormed(command), wellFormed(cwd), signal ?? null, wellFormed(options)),
  );
}

/** Runs a git description as the addon does (crates/core/src/git_run.rs). */
const runGit = async (command, cwd, signal) =>
  coreRunning(packageCli).runGit(wellFormed(command), wellFormed(cwd), signal ?? null);

/** Read-only readiness of a workspace, as the addon's (crates/core/src/command_run/diagnose.rs). */
const diagnose = async (cwd, workspace) => coreRunning(packageCli).diagnose(wellFormed(cwd), wellFormed(workspace));

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
