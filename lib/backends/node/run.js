// The runner: one CLI process within the caps, the deadline and the caller's cancellation.

const { spawn } = require("node:child_process");
const { StderrTail, StdoutCollector } = require("./collect.js");
const { cancelled, spawnFailed, timedOut } = require("./errors.js");
const { DRAIN_LIMIT_BYTES, IS_WINDOWS, PIPE_GRACE_MS, PROGRESS_INTERVAL_MS } = require("./limits.js");
const { refusesShellFallback, signalTree, spawnProblem, streamClosed, terminate } = require("./process.js");
const { trackChild, untrackChild } = require("./process.js");

/**
 * Runs `launch` with `args` (an argument array, no shell). Resolves with the bounded stdout, the
 * stderr tail, the exit status and the duration; rejects with a Problem on spawn failure,
 * timeout or cancellation (after the whole tree is stopped).
 */
function run({ launch, args, cwd, env, timeoutMs, cancel, spillDir, onProgress }) {
  return new Promise((resolve, reject) => {
    if (cancel.requested) return reject(cancelled()); // aborted during preflight: start nothing
    const started = performance.now();
    const elapsed = () => Math.floor(performance.now() - started);
    if (refusesShellFallback(launch.program)) {
      return reject(spawnFailed(`${launch.executable}: Exec format error (neither a #! script nor a native program)`));
    }
    const out = new StdoutCollector(spillDir);
    const err = new StderrTail();
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
    trackChild(child);
    let outOpen = true;
    let errOpen = true;
    let status = null; // { code, signal } once the CLI exited
    let totalsExact = true; // false once a flood was cut off
    let settled = false;
    let lastProgress = started;
    const timers = [];
    const later = (ms, fn) => timers.push(setTimeout(fn, ms));
    const closePipes = () => {
      [outOpen, errOpen] = [false, false];
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const settle = () => {
      settled = true;
      cancel.onCancel = null;
      for (const t of timers) clearTimeout(t);
    };
    const stop = async (problem) => {
      if (settled) return;
      settle();
      out.discard();
      await terminate(child);
      if (problem.code === "CODEGRAPH_TIMEOUT") {
        // What a stuck CLI said before it was stopped is often the reason (a lock, a prompt).
        await streamClosed(child.stderr, PIPE_GRACE_MS);
        problem.extra.stderrTail = err.finish();
      }
      closePipes();
      untrackChild(child);
      reject(problem);
    };
    const maybeFinish = () => {
      if (settled || outOpen || errOpen || !status) return;
      settle();
      signalTree(child, "SIGKILL"); // nothing of the run may outlive it, even a quiet descendant
      untrackChild(child);
      resolve({ stdout: out.finish(totalsExact), stderrTail: err.finish(), status, durationMs: elapsed() });
    };

    cancel.onCancel = () => stop(cancelled());
    later(timeoutMs, () => stop(timedOut(timeoutMs)));
    child.stdout.on("error", () => {}); // a broken pipe just ends the stream ('close' follows)
    child.stderr.on("error", () => {});
    child.on("error", (e) => {
      if (child.pid !== undefined || settled) return; // only a failed spawn matters here
      settle();
      untrackChild(child);
      reject(spawnProblem(launch.executable, e));
    });
    child.stdout.on("data", (chunk) => {
      if (!outOpen || settled) return;
      out.push(chunk);
      if (onProgress && performance.now() - lastProgress >= PROGRESS_INTERVAL_MS) {
        lastProgress = performance.now();
        try {
          onProgress({ ...out.preview(), elapsedMs: elapsed() });
        } catch {} // a listener's bug must not break the run
      }
      if (out.seenBytes > DRAIN_LIMIT_BYTES) {
        // A flood: stop reading and stop the writer; the totals are now lower bounds.
        totalsExact = false;
        signalTree(child, "SIGKILL"); // before closing our end, so it dies of the kill, not of EPIPE
        closePipes();
        maybeFinish();
      }
    });
    child.stderr.on("data", (chunk) => errOpen && err.push(chunk));
    child.stdout.once("close", () => {
      outOpen = false;
      maybeFinish();
    });
    child.stderr.once("close", () => {
      errOpen = false;
      maybeFinish();
    });
    child.once("exit", (code, signal) => {
      status = { code, signal };
      if (settled) return;
      // A descendant still holding stdout/stderr open: stop it, keep what it already wrote (still
      // in the pipe, read within another grace period), and finish.
      later(PIPE_GRACE_MS, () => {
        signalTree(child, "SIGKILL");
        later(PIPE_GRACE_MS, () => {
          closePipes();
          maybeFinish();
        });
      });
      maybeFinish();
    });
  });
}

module.exports = { run };
