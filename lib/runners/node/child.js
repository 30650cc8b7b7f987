// One CLI child (crates/core/src/child.rs): one process within the caps, the deadline and the caller's
// cancellation, and nothing left running behind it.

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const { cancelled, spawnFailed, timedOut } = require("../../contract/problems.js");
const { IS_WINDOWS, PIPE_GRACE_MS, PROGRESS_INTERVAL_MS } = require("../../contract/limits.js");
const { onHostExit } = require("./host-watch.js");
const { hostCore } = require("./wasm-core.js");
const { killStrays, signalTree, spawnProblem, streamClosed } = require("./child/tree.js");
const { terminate, trackChild, untrackChild } = require("./child/tree.js");

/** Deletes every full-output file this process keeps (at its exit). */
const releaseAll = () => hostCore().releaseFullOutputs();

/**
 * The core's collectors of one run's output (crates/core/src/limits/): stdout within `caps` (none:
 * the contract's maxima), its full output kept in `spill` (the place the core's checks found:
 * `{ dir, prefix }` or `{ reason }`; none: no file), and stderr's tail.
 */
function collectors(spill, caps) {
  const { OutputCollector, StderrTail } = hostCore();
  if (spill) onHostExit(releaseAll);
  return { out: new OutputCollector(caps, spill ?? undefined), err: new StderrTail() };
}

/**
 * The bounded stdout; its full-output file closed to others (0600) as the native runner makes it:
 * WASI creates files 0666 less the umask, in the private 0700 directory that kept others out
 * while it was written.
 */
function finished(out, totalsExact) {
  const stdout = out.finish(totalsExact);
  if (stdout.fullOutput?.path && !IS_WINDOWS) {
    try {
      fs.chmodSync(stdout.fullOutput.path, 0o600);
    } catch {}
  }
  return stdout;
}

/**
 * Runs `launch` with `args` (an argument array, no shell, stdin /dev/null). Resolves with the
 * stdout bounded by `caps` (`{ bytes, lines }`; default the contract's maxima), the stderr tail, the exit status and the duration; rejects with a Problem on
 * spawn failure, timeout (at `deadline`, a performance.now() time; `timeoutMs` is what the
 * error reports) or cancellation, after the whole tree is stopped (such a Problem, of a CLI that
 * was started, carries `runMs`). `cancel` is
 * `{ requested, onCancel }`, raised by the caller. A `background` run (the version probe) does
 * not keep the host alive; the host's exit still kills it.
 */
function run({ launch, args, cwd, env, timeoutMs, deadline, cancel, spill, caps, onProgress, background }) {
  return new Promise((resolve, reject) => {
    if (cancel.requested) return reject(cancelled()); // aborted during preflight: start nothing
    const started = performance.now();
    const elapsed = () => Math.floor(performance.now() - started);
    // A file the kernel would not execute itself (the core's checks judged it: `execFormat`),
    // which libuv would otherwise hand to /bin/sh.
    const badFormat = launch.execFormat;
    if (badFormat) return reject(spawnFailed({ is: "execFormat", executable: launch.executable, why: badFormat }));
    let out;
    let err;
    try {
      ({ out, err } = collectors(spill, caps));
    } catch (problem) {
      return reject(problem);
    }
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
    trackChild(child);
    if (background) {
      child.unref();
      child.stdout.unref?.();
      child.stderr.unref?.();
    }
    let outOpen = true;
    let errOpen = true;
    let status = null; // { code, signal } once the CLI exited
    let totalsExact = true; // false once a flood was cut off
    let settled = false;
    let lastProgress = started;
    let flush = null; // the trailing report's timer: output arrived since the last report
    const timers = [];
    const later = (ms, fn) => {
      const t = setTimeout(fn, ms);
      if (background) t.unref();
      timers.push(t);
    };
    const closePipes = () => {
      [outOpen, errOpen] = [false, false];
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const settle = () => {
      settled = true;
      cancel.onCancel = null;
      for (const t of timers) clearTimeout(t);
      clearTimeout(flush);
    };
    const report = () => {
      clearTimeout(flush);
      flush = null;
      // One clock reading for both: a report's elapsedMs is when it was decided, not after the
      // preview was built (which takes longer under load), so reports stay an interval apart.
      lastProgress = performance.now();
      const elapsedMs = Math.floor(lastProgress - started);
      const p = out.preview();
      try {
        const ret = onProgress({ text: p.text, tail: out.tail(), seenBytes: p.bytes, seenLines: p.lines, elapsedMs });
        if (ret && typeof ret.then === "function") Promise.resolve(ret).catch(() => {});
      } catch {} // a listener's bug must not break the run
    };
    // At most one report per PROGRESS_INTERVAL_MS; output that arrives sooner is reported once it
    // has passed (a line followed by silence still shows), never after the run settled.
    const progress = () => {
      const wait = lastProgress + PROGRESS_INTERVAL_MS - performance.now();
      if (wait <= 0) report();
      else if (!flush) {
        flush = setTimeout(() => settled || report(), wait);
        if (background) flush.unref();
      }
    };
    const stop = async (makeProblem, { drainStderr }) => {
      if (settled) return;
      settle();
      out.discard();
      await terminate(child);
      // What a stuck CLI said before it was stopped is often the reason (a lock, a prompt).
      if (drainStderr) await streamClosed(child.stderr, PIPE_GRACE_MS);
      const problem = makeProblem(out.preview());
      problem.runMs = elapsed(); // the CLI was started: how long it ran, for the failure's details
      closePipes();
      untrackChild(child);
      reject(problem);
    };
    const maybeFinish = () => {
      if (settled || outOpen || errOpen || !status) return;
      settle();
      signalTree(child, "SIGKILL"); // nothing of the run may outlive it, even a quiet descendant
      untrackChild(child);
      resolve({ stdout: finished(out, totalsExact), stderrTail: err.text(), status, durationMs: elapsed() });
    };

    cancel.onCancel = () => stop((partial) => cancelled(partial), { drainStderr: false });
    const onDeadline = () => stop((partial) => timedOut(timeoutMs, err.text(), partial), { drainStderr: true });
    later(Math.max(0, (deadline ?? started + timeoutMs) - started), onDeadline);
    child.stdout.on("error", () => {}); // a broken pipe just ends the stream ('close' follows)
    child.stderr.on("error", () => {});
    child.on("error", () => {}); // after a successful spawn: a failed kill, nothing to report
    child.stdout.on("data", (chunk) => {
      if (!outOpen) return;
      const flood = out.push(chunk);
      if (settled) return;
      if (onProgress) progress();
      if (flood) {
        // A flood: stop reading and stop the writer; the totals are now lower bounds.
        totalsExact = false;
        killStrays(child);
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
