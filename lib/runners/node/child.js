// The WebAssembly core's host (src/host_child.rs `setHost`): the core runs a call on its own threads
// as the native addon does (crates/core/src/command_run.rs, git_run.rs) and asks JavaScript only
// what WASI cannot do: to start a child (`launch`: spawn it, feed its pipes and exit to the core,
// signal its tree when told) and to answer a check where the host's facts are (`answerCheck`, in
// the worker).

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const { exhausted, osText } = require("../../contract/problems.js");
const { IS_WINDOWS } = require("../../contract/limits.js");
const { onHostExit } = require("./host-watch.js");
const { hostCore } = require("./wasm-core.js");
const { killStrays, signalTree, trackChild, untrackChild } = require("./child/tree.js");
const { checksLoaded, childEnvOf, coreCheck } = require("./source-thread.js");
const { fromUtf8 } = require("./wasm-core.js");

/** Deletes every full-output file this process keeps (at its exit). */
const releaseAll = () => hostCore().releaseFullOutputs();

/**
 * An answer's full-output file closed to others (0600) as the native runner makes it: WASI creates
 * files 0666 less the umask, in the private 0700 directory that kept others out while it was written.
 */
function closedToOthers(answer) {
  const file = answer?.details?.fullOutputPath;
  if (file && !IS_WINDOWS) {
    try {
      fs.chmodSync(file, 0o600);
    } catch {}
  }
  return answer;
}

/** What of the environment a Worker would load code by: not given to the core's threads. */
const THREAD_ENV_DROPPED = ["NODE_OPTIONS", "NODE_PATH"];
/** The option that keeps a thread from printing Node's notice that WASI is experimental. */
const NO_WASI_NOTICE = "--disable-warning=ExperimentalWarning";
/** Descriptors a start of the core's threads must leave to spare (a Worker takes a few). */
const SPARE_DESCRIPTORS = 32;
let threadsStarted = false;
/**
 * The core's two threads (src/host_child.rs: its runtime and its timers), started once, and only
 * while SPARE_DESCRIPTORS more can be opened: a WASI thread that cannot start ends the host
 * (emnapi's wasi-threads rethrows the Worker's failure), where this says CODEGRAPH_RESOURCES and
 * the next call tries again.
 */
function coreThreads(executable) {
  if (threadsStarted) return;
  const held = [];
  try {
    for (let i = 0; i < SPARE_DESCRIPTORS; i++) held.push(fs.openSync(os.devNull, "r"));
  } catch (err) {
    throw exhausted({ is: "start", executable }, err) ?? err;
  } finally {
    for (const fd of held) fs.closeSync(fd);
  }
  // A Worker reads NODE_OPTIONS (and NODE_PATH) from the environment it is given, napi-rs's
  // loader gives it Pi's, and that may name code inside the workspace: the threads start without.
  // Each would also print Node's notice that WASI is experimental on Pi's terminal.
  const kept = THREAD_ENV_DROPPED.map((name) => [name, process.env[name]]);
  for (const [name] of kept) delete process.env[name];
  process.execArgv.push(NO_WASI_NOTICE);
  try {
    hostCore().startCoreThreads();
  } finally {
    process.execArgv.splice(process.execArgv.lastIndexOf(NO_WASI_NOTICE), 1);
    for (const [name, value] of kept) if (value !== undefined) process.env[name] = value;
  }
  threadsStarted = true;
}

/**
 * Starts what the core asks (src/host_child.rs `setHost`): `spec`'s program with its arguments (no
 * shell, stdin /dev/null), in its directory, with exactly its environment (every string UTF-8), fed
 * into `host`, which is told whether it started and how to signal its tree.
 */
function launch(spec, host) {
  let child;
  try {
    child = spawn(fromUtf8(spec.program), spec.args.map(fromUtf8), {
      cwd: fromUtf8(spec.cwd),
      env: childEnvOf(spec.env),
      stdio: ["ignore", "pipe", "pipe"],
      shell: false,
      detached: !IS_WINDOWS, // Unix: its own process group, so the whole tree can be signalled
      windowsHide: true,
    });
  } catch (e) {
    return host.failed(String(e?.code ?? "EIO"), String(e?.message ?? e));
  }
  if (child.pid === undefined) {
    // The spawn failed: Node reports it as an 'error' event, with no pipes to read.
    child.once("error", (e) => host.failed(String(e?.code ?? "EIO"), String(e?.message ?? e)));
    for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe?.destroy();
    return;
  }
  fed(child, host, spec.background);
  child.once("close", () => untrackChild(child));
  host.started((op) => (op === "strays" ? killStrays(child) : signalTree(child, op)), !IS_WINDOWS);
}

/**
 * One of a call's checks (JSON), answered by the core in its worker, where the host's facts are,
 * within the `msLeft` of the call: a worker held past that (a stat on a hung mount) is ended, and
 * the call's own deadline says so.
 */
function answerCheck(check, msLeft, reply) {
  coreCheck("answerCheck", [check], msLeft).then(
    (answer) => {
      if (typeof answer === "string") reply.answer(answer);
      else if (answer?.failure)
        reply.failed(answer.failure.code ?? null, osText(answer.failure)); // the worker could not start
      else reply.lost();
    },
    (err) => reply.failed(null, String(err?.message ?? err)),
  );
}

let hostSet = false;
/**
 * The core ready to run a call (synchronously: the call reads its arguments and the environment
 * as it is made): its threads started and its host set, with `packageCli` the CLI beside the
 * package. The worker loads the core once (it compiles the WebAssembly); the core waits for that
 * before a call's clock starts, as the addon is loaded before its own does (`hostReady`).
 */
function coreRunning(packageCli) {
  coreThreads("");
  const core = hostCore();
  if (!hostSet) {
    core.setHost(launch, answerCheck);
    onHostExit(releaseAll);
    // A worker that cannot start is said by the checks themselves.
    const ready = () => core.hostReady();
    checksLoaded().then(ready, ready);
    hostSet = true;
  }
  core.setPackageCli(packageCli);
  return core;
}

/** The started child, its pipes and exit handed to the core's `host` as they come. */
function fed(child, host, background) {
  trackChild(child);
  if (background) {
    child.unref();
    child.stdout.unref?.();
    child.stderr.unref?.();
  }
  // A pipe the core reads no more (a flood) is closed; a broken pipe just ends the stream.
  child.stdout.on("data", (chunk) => host.stdout(chunk) || child.stdout.destroy());
  child.stderr.on("data", (chunk) => host.stderr(chunk) || child.stderr.destroy());
  child.stdout.once("close", () => host.endStdout());
  child.stderr.once("close", () => host.endStderr());
  for (const pipe of [child.stdout, child.stderr]) pipe.on("error", () => {});
  child.on("error", () => {}); // after a successful spawn: a failed kill, nothing to report
  child.once("exit", (code, name) => {
    host.exited(code ?? undefined, name ? (os.constants.signals[name] ?? undefined) : undefined, name ?? undefined);
  });
}

module.exports = { closedToOthers, coreRunning };
