// One CLI child (crates/core/src/child.rs), where WASI cannot start one: JavaScript starts it, hands
// its pipes and its exit to the core, and signals its tree when the core says. The core runs it
// (src/host_child.rs: the caps and the full-output file, the deadline, cancel, a flood, a
// descendant holding the pipes, progress), as the native runner does, on its own thread.

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const { Problem, cancelled, exhausted, spawnFailed } = require("../../contract/problems.js");
const { IS_WINDOWS } = require("../../contract/limits.js");
const { onHostExit } = require("./host-watch.js");
const { hostCore } = require("./wasm-core.js");
const { killStrays, signalTree, spawnProblem, trackChild, untrackChild } = require("./child/tree.js");
const { childEnvOf, coreCheck } = require("./source-thread.js");
const { fromUtf8 } = require("./wasm-core.js");

/** Deletes every full-output file this process keeps (at its exit). */
const releaseAll = () => hostCore().releaseFullOutputs();

/**
 * The bounded stdout; its full-output file closed to others (0600) as the native runner makes it:
 * WASI creates files 0666 less the umask, in the private 0700 directory that kept others out
 * while it was written.
 */
function closedToOthers(stdout) {
  if (stdout.fullOutput?.path && !IS_WINDOWS) {
    try {
      fs.chmodSync(stdout.fullOutput.path, 0o600);
    } catch {}
  }
  return stdout;
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

/** How long the worker may take over one of a call's checks (each takes milliseconds; a hung mount ends it). */
const CHECK_BOUND_MS = 10000;

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
  fed(child, host, false);
  child.once("close", () => untrackChild(child));
  host.started((op) => (op === "strays" ? killStrays(child) : signalTree(child, op)), !IS_WINDOWS);
}

/** One of a call's checks (JSON), answered by the core in its worker, where the host's facts are. */
function answerCheck(check, reply) {
  coreCheck("answerCheck", [check], CHECK_BOUND_MS).then(
    (answer) => (typeof answer === "string" ? reply.answer(answer, null) : reply.answer(null, "the checks stopped")),
    (err) => reply.answer(null, String(err?.message ?? err)),
  );
}

let hostSet = false;
/** The core with its threads started and its host set, for a call it runs itself (the git runs). */
function coreRunning() {
  coreThreads("");
  const core = hostCore();
  if (!hostSet) core.setHost(launch, answerCheck);
  hostSet = true;
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
  let signal = null; // the name of the signal that ended it
  // A pipe the core reads no more (a flood) is closed; a broken pipe just ends the stream.
  child.stdout.on("data", (chunk) => host.stdout(chunk) || child.stdout.destroy());
  child.stderr.on("data", (chunk) => host.stderr(chunk) || child.stderr.destroy());
  child.stdout.once("close", () => host.endStdout());
  child.stderr.once("close", () => host.endStderr());
  for (const pipe of [child.stdout, child.stderr]) pipe.on("error", () => {});
  child.on("error", () => {}); // after a successful spawn: a failed kill, nothing to report
  child.once("exit", (code, name) => {
    signal = name;
    host.exited(code ?? undefined, name ? (os.constants.signals[name] ?? undefined) : undefined);
  });
  return () => signal;
}

/**
 * Runs `launch` with `args` (an argument array, no shell, stdin /dev/null). Resolves with the
 * stdout bounded by `caps` (`{ bytes, lines }`; default the contract's maxima), the stderr tail,
 * the exit status and the duration; rejects with a Problem on spawn failure, timeout (at
 * `deadline`, a performance.now() time; `timeoutMs` is what the error reports) or cancellation,
 * after the whole tree is stopped (such a Problem, of a CLI that was started, carries `runMs`).
 * `cancel` is `{ requested, onCancel }`, raised by the caller. A `background` run (the version
 * probe) does not keep the host alive; the host's exit still kills it.
 */
function run({ launch, args, cwd, env, timeoutMs, deadline, cancel, spill, caps, onProgress, background }) {
  return new Promise((resolve, reject) => {
    if (cancel.requested) return reject(cancelled()); // aborted during preflight: start nothing
    // A file the kernel would not execute itself (the core's checks judged it: `execFormat`),
    // which libuv would otherwise hand to /bin/sh.
    const badFormat = launch.execFormat;
    if (badFormat) return reject(spawnFailed({ is: "execFormat", executable: launch.executable, why: badFormat }));
    let host;
    try {
      coreThreads(launch.executable);
      host = new (hostCore().HostChild)();
    } catch (problem) {
      return reject(problem);
    }
    if (spill) onHostExit(releaseAll);
    let child;
    try {
      child = spawn(launch.program, [...launch.prefix, ...args], {
        cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        shell: false,
        detached: !IS_WINDOWS, // Unix: its own process group, so the whole tree can be signalled
        windowsHide: true,
      });
    } catch (e) {
      return reject(spawnProblem(launch.executable, e));
    }
    if (child.pid === undefined) {
      // The spawn failed (out of descriptors for the pipes, of processes, of memory; a missing
      // program): Node reports it as an 'error' event, with no pipes to read. Listening at once
      // keeps an unheard 'error' from ending the host.
      child.once("error", (e) => reject(spawnProblem(launch.executable, e)));
      for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe?.destroy();
      return;
    }
    const signalName = fed(child, host, background);
    cancel.onCancel = () => host.cancel();
    const bounds = {
      timeoutMs,
      remainingMs: Math.max(0, deadline - performance.now()),
      caps: caps ?? undefined,
      spill: spill ?? undefined,
      posix: !IS_WINDOWS,
      background: Boolean(background),
    };
    const control = (op) => (op === "strays" ? killStrays(child) : signalTree(child, op));
    const report = onProgress
      ? (p) => {
          try {
            const ret = onProgress(p);
            if (ret && typeof ret.then === "function") Promise.resolve(ret).catch(() => {});
          } catch {} // a listener's bug must not break the run
        }
      : undefined;
    host.drive(bounds, control, report, (end) => {
      cancel.onCancel = null;
      child.stdout.destroy();
      child.stderr.destroy();
      untrackChild(child);
      if (end.problem) {
        const problem = new Problem(end.problem.code, end.problem.facts);
        problem.runMs = end.runMs; // the CLI was started: how long it ran, for the failure's details
        return reject(problem);
      }
      const status = { code: end.exitCode ?? null, signal: signalName() };
      resolve({ stdout: closedToOthers(end.stdout), stderrTail: end.stderrTail, status, durationMs: end.runMs });
    });
  });
}

module.exports = { coreRunning, run };
