// The Node runner, pi-codegraph's runner where no native addon loads: the same module shape and
// the same promises as the native addon (lib/runners/native.js loads that one), so the glue runs
// over either and the fault suites (__test__/faults/) run against both. Its core is the addon's own
// Rust built for WebAssembly: on the host's thread (node/wasm-core.js) and in two worker threads for
// what reads the filesystem (node/source-worker.js, driven by node/source-thread.js). What is left in
// JavaScript is what WASI cannot do (launching CodeGraph and git, killing their tree, the version
// probe, the host's answers to the core) and the order of a call's steps (node/command-run.js, the
// twin of crates/core/src/command_run.rs): docs/architecture.md, "One core, two builds". Where it
// differs from the addon: docs/platforms.md, "Node differs".

const { diagnose: diagnosed } = require("./node/command-run/diagnose.js");
const { packageCliSet, runCommand, setPackageCli } = require("./node/command-run.js");
const { DEFAULT_TIMEOUT_MS, DRAIN_LIMIT_BYTES, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } = require("../contract/limits.js");
const { MAX_REQUEST_CHARS, STDERR_TAIL_BYTES } = require("../contract/limits.js");
const { changedSource, copyIndex, outlineSource, scanSource } = require("./node/source-thread.js");
const { coreRunning } = require("./node/child.js");
const { hostCore, wasmCoreFile, wellFormed } = require("./node/wasm-core.js");

/** Runs a git description as the addon does: the core's own run (crates/core/src/git_run.rs), its host starting git. */
const runGit = async (command, cwd, signal) =>
  coreRunning().runGit(wellFormed(command), wellFormed(cwd), signal ?? null);

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
