// explore(): the backend's main call, the same as the native addon's (crates/core/src/explore.rs, src/lib.rs):
// argument checks in the addon's order, preflight, discovery, the run, and what its exit means.

const { setTimeout: delay } = require("node:timers/promises");
const { discover, launchRuns } = require("./discovery.js");
const { badWorkspace, cancelled, indexBusy, invalidOptions } = require("./errors.js");
const { invalidRequest, problemError, timedOut } = require("./errors.js");
const { withoutUndefined } = require("../../words/messages.js");
const { blockedCause, classifyExit } = require("./explore/exit.js");
const { DEFAULT_TIMEOUT_MS, truncationMarker } = require("./limits.js");
const { childEnv } = require("./environment.js");
const { checkIndex, checkRequest, checkWorkspace, envSet, resolvedPath } = require("./preflight.js");
const { WRITER_POLL_MS, WRITER_WAIT_MS, activeWriter } = require("./index-writer.js");
const { run } = require("./runner.js");
const { packageVersion, startVersionProbe } = require("./version.js");

/**
 * The filesystem checks before a run, in the addon's order: workspace, index, executable (and
 * its package metadata). `home` is the workspace with symlinks resolved, computed once.
 */
async function preflightChecks(cwd, env) {
  const workspace = await checkWorkspace(cwd);
  const home = await resolvedPath(workspace);
  const index = await checkIndex(workspace, home, env);
  const launch = await discover(home, env);
  launch.packageVersion = await packageVersion(launch);
  const writer = await activeWriter(index.dir);
  const child = await childEnv(env, home);
  return { workspace, index, launch, writer, child };
}

/**
 * While CodeGraph writes the index, an answer would come from a partial graph: waits for the
 * writer to finish, at most WRITER_WAIT_MS and never past the deadline (or a cancel), and
 * otherwise fails with CODEGRAPH_INDEX_BUSY.
 */
async function waitForWriter(writer, indexDir, bounds) {
  const started = performance.now();
  const giveUp = Math.min(bounds.deadline, started + WRITER_WAIT_MS);
  const busy = (w) => indexBusy(w, Math.round(performance.now() - started));
  while (writer) {
    const now = performance.now();
    if (now >= giveUp) throw busy(writer);
    const last = writer;
    // The pause and the re-check, ended at once by a cancel; at the deadline (or a filesystem
    // that stalls until it) the writer is still the reason.
    const recheck = delay(Math.min(WRITER_POLL_MS, giveUp - now)).then(() => activeWriter(indexDir));
    writer = await withinDeadline(recheck, bounds).catch((p) => {
      throw p?.code === "CODEGRAPH_TIMEOUT" ? busy(last) : p;
    });
  }
}

/**
 * `work`, bounded by the call's deadline and cancel. The checks themselves cannot be stopped (a
 * stat on a hung mount holds a thread-pool thread until it returns); their late result is dropped.
 */
function withinDeadline(work, { timeoutMs, deadline, cancel }) {
  return new Promise((resolve, reject) => {
    const done = (fn, value) => {
      clearTimeout(timer);
      cancel.onCancel = null;
      fn(value);
    };
    const stalled = () => timedOut(timeoutMs, "", undefined, true);
    const timer = setTimeout(() => done(reject, stalled()), Math.max(0, deadline - performance.now()));
    cancel.onCancel = () => done(reject, cancelled());
    if (cancel.requested) cancel.onCancel();
    work.then(
      (value) => done(resolve, value),
      (problem) => done(reject, problem),
    );
  });
}

/** Options as a caller may really pass them; a wrong type or a throwing getter is CODEGRAPH_INVALID_OPTIONS. */
function parseExploreOptions(options) {
  const parsed = { timeoutMs: DEFAULT_TIMEOUT_MS, onProgress: undefined };
  if (options === undefined || options === null) return parsed;
  if (typeof options !== "object") throw invalidOptions({ is: "notObject" });
  const field = (name) => {
    try {
      return options[name];
    } catch {
      throw invalidOptions({ is: "unreadable", field: name });
    }
  };
  const timeoutMs = field("timeoutMs");
  if (timeoutMs !== undefined && timeoutMs !== null) {
    // Node's timers fire at once past 2^31-1 ms; the addon takes the same bound.
    if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1)
      throw invalidOptions({ is: "timeoutMs" });
    parsed.timeoutMs = Math.trunc(timeoutMs);
  }
  const onProgress = field("onProgress");
  if (onProgress !== undefined && onProgress !== null) {
    if (typeof onProgress !== "function") throw invalidOptions({ is: "onProgress" });
    parsed.onProgress = onProgress;
  }
  return parsed;
}

/** Links the caller's signal to `cancel` with a listener (the caller's onabort stays theirs). */
function linkSignal(signal, cancel) {
  if (signal === undefined || signal === null) return null;
  if (typeof signal !== "object" && typeof signal !== "function") throw invalidOptions({ is: "notSignal" });
  let aborted;
  try {
    aborted = Boolean(signal.aborted);
  } catch {
    throw invalidOptions({ is: "abortedUnreadable" });
  }
  if (aborted) throw cancelled();
  const listener = () => {
    cancel.requested = true;
    cancel.onCancel?.();
  };
  try {
    signal.addEventListener("abort", listener);
  } catch {
    throw invalidOptions({ is: "notSignal" });
  }
  return () => {
    try {
      signal.removeEventListener("abort", listener);
    } catch {} // a removeEventListener that throws must not keep the promise from settling
  };
}

/**
 * Runs `codegraph explore -- <request>` in `cwd`, which must hold its own CodeGraph index.
 * Resolves with `{ text, details }`; rejects with an Error carrying `code`, `remediation` and
 * bounded `details`. Never throws synchronously. `options`: `timeoutMs` (default 30000) and
 * `onProgress({ text, seenBytes, seenLines, elapsedMs })`, at most every 250 ms.
 */
async function explore(request, cwd, signal, options) {
  const started = performance.now();
  const userEnv = { ...process.env }; // the call's environment, read once when it is made
  const cancel = { requested: false, onCancel: null };
  const failure = {}; // diagnostics that travel with an error
  let unlink = null;
  try {
    if (typeof request !== "string") throw invalidRequest({ is: "notString" });
    if (typeof cwd !== "string") throw badWorkspace("", { is: "notString" });
    const { timeoutMs, onProgress } = parseExploreOptions(options);
    unlink = linkSignal(signal, cancel);
    return await runExplore(
      request,
      cwd,
      { userEnv, timeoutMs, deadline: started + timeoutMs, cancel, onProgress },
      failure,
    );
  } catch (err) {
    throw problemError(err, failure);
  } finally {
    unlink?.();
  }
}

async function runExplore(request, cwd, { userEnv, timeoutMs, deadline, cancel, onProgress }, failure) {
  checkRequest(request);
  const checks = preflightChecks(cwd, userEnv);
  const bounds = { timeoutMs, deadline, cancel };
  const { workspace, index, launch, writer, child } = await withinDeadline(checks, bounds);
  let version = null; // started once the index may be read
  const fill = (durationMs) => {
    const v = version?.now(); // the version never delays the answer: what is known now is reported
    Object.assign(failure, {
      executable: launchRuns(launch),
      executableInWorkspace: launch.inWorkspace,
      envDropped: child.dropped,
      indexPath: index.dir,
      indexResolved: index.resolved,
      cliVersion: v?.text,
      cliVersionSource: v?.source,
      durationMs,
    });
  };
  await waitForWriter(writer, index.dir, bounds).catch((problem) => {
    fill(undefined);
    throw problem;
  });
  const { env } = child;
  // `--` ends option parsing: a request such as "-p /etc" stays the query.
  version = startVersionProbe(launch, workspace, env, deadline);
  let out;
  try {
    out = await run({
      launch,
      args: ["explore", "--", request],
      cwd: workspace,
      env,
      timeoutMs,
      deadline,
      cancel,
      spillTarget: { workspace, tmpdir: envSet(userEnv, "TMPDIR") },
      onProgress,
    });
  } catch (problem) {
    version.stop();
    fill(undefined);
    // A spawn that could not enter its working directory (ENOENT, as if the CLI were missing, or
    // EACCES) ran after the workspace vanished or was locked.
    const spawnCodes = ["CODEGRAPH_NOT_FOUND", "CODEGRAPH_SPAWN"];
    throw (spawnCodes.includes(problem?.code) && (await blockedCause(workspace))) || problem;
  }
  // A flood we stopped ourselves (at the drain limit) is not the CLI's verdict: the kept text is
  // the answer, with totals as lower bounds and exitCode -1 ("stopped by pi-codegraph").
  const stoppedByUs = !out.stdout.totalsExact;
  if (out.status.code !== 0 && !stoppedByUs) {
    version.stop();
    fill(out.durationMs);
    throw await classifyExit(out, workspace, index);
  }
  const v = version.now();
  const b = out.stdout;
  let text = b.text;
  if (!text.trim() && !b.truncated) text = "(codegraph explore printed nothing)";
  if (b.truncated) text += truncationMarker(b);
  return {
    text,
    details: withoutUndefined({
      request,
      cwd: workspace,
      executable: launchRuns(launch),
      discoveredExecutable: launch.executable,
      executableInWorkspace: launch.inWorkspace,
      envDropped: child.dropped,
      indexPath: index.dir,
      indexResolved: index.resolved,
      cliVersion: v?.text,
      cliVersionSource: v?.source,
      exitCode: stoppedByUs ? -1 : 0,
      durationMs: out.durationMs,
      truncated: b.truncated,
      truncatedBy: b.truncatedBy,
      totalBytes: b.totalBytes,
      totalLines: b.totalLines,
      totalsExact: b.totalsExact,
      keptBytes: b.keptBytes,
      keptLines: b.keptLines,
      fullOutputPath: b.fullOutput?.path,
      fullOutputBytes: b.fullOutput?.bytes,
      fullOutputMissing: b.fullOutput?.error,
    }),
  };
}

module.exports = { explore };
