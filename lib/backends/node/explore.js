// explore() and diagnose(): the backend's API, the same as the native addon's (src/explore.rs, src/lib.rs).

const os = require("node:os");
const { discover } = require("./discovery.js");
const { Problem, badWorkspace, cancelled, invalidOptions, invalidRequest, noIndex } = require("./errors.js");
const { publicError, withoutUndefined } = require("./errors.js");
const { CLI_NO_INDEX_MARKER, COMMON_SIGNALS, DEFAULT_TIMEOUT_MS, STDOUT_EXCERPT_BYTES } = require("./limits.js");
const { isContinuation, truncationMarker } = require("./limits.js");
const { checkIndex, checkRequest, checkWorkspace, childEnv } = require("./preflight.js");
const { run } = require("./run.js");
const { redact } = require("./sanitize.js");
const { fullOutputDir } = require("./spill.js");
const { cliVersion } = require("./version.js");

// ---------------------------------------------------------------------------------------------
// explore() and diagnose(): the same API as the package's.

/**
 * Runs `codegraph explore -- <request>` in `cwd`, which must hold its own CodeGraph index.
 * Resolves with `{ text, details }`; rejects with an Error carrying `code`, `remediation` and
 * bounded `details`. Never throws synchronously. `options`: `timeoutMs` (default 30000) and
 * `onProgress({ text, seenBytes, seenLines, elapsedMs })`, at most every 250 ms.
 */
async function explore(request, cwd, signal, options) {
  // Argument checks in the addon's order: request type, workspace type, an already-fired signal.
  let early = typeof request === "string" ? null : invalidRequest("it is not a string");
  if (typeof cwd !== "string") early ??= badWorkspace("", "the workspace path is not a string");
  const cancel = { requested: false, onCancel: null };
  const onAbort = () => {
    cancel.requested = true;
    cancel.onCancel?.();
  };
  const { timeoutMs, onProgress, problem } = parseOptions(options);
  if (problem) early ??= problem;
  const sig = signal !== null && typeof signal === "object" ? signal : null;
  if (signal !== undefined && signal !== null && (!sig || typeof sig.addEventListener !== "function")) {
    early ??= invalidOptions("the signal is not an AbortSignal");
  }
  if (sig?.aborted) early ??= cancelled();
  const listening = !early && typeof sig?.addEventListener === "function";
  if (listening) sig.addEventListener("abort", onAbort); // a listener: the caller's onabort stays theirs
  const failure = {}; // diagnostics that travel with an error: executable, cliVersion, durationMs
  try {
    if (early) throw early;
    return await runExplore(request, cwd, timeoutMs, cancel, onProgress, failure);
  } catch (err) {
    throw publicError(err, failure);
  } finally {
    if (listening) sig.removeEventListener("abort", onAbort);
  }
}

/** Options as a caller may really pass them; a wrong type is CODEGRAPH_INVALID_OPTIONS. */
function parseOptions(options) {
  const parsed = { timeoutMs: DEFAULT_TIMEOUT_MS, onProgress: undefined, problem: null };
  if (options === undefined || options === null) return parsed;
  if (typeof options !== "object") return { ...parsed, problem: invalidOptions("options is not an object") };
  const { timeoutMs, onProgress } = options;
  if (timeoutMs !== undefined && timeoutMs !== null) {
    // Node's timers fire at once past 2^31-1 ms; the addon takes the same bound.
    if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1) {
      return {
        ...parsed,
        problem: invalidOptions("options.timeoutMs must be a number of milliseconds from 1 to 2147483647"),
      };
    }
    parsed.timeoutMs = Math.trunc(timeoutMs);
  }
  if (onProgress !== undefined && onProgress !== null) {
    if (typeof onProgress !== "function")
      return { ...parsed, problem: invalidOptions("options.onProgress must be a function") };
    parsed.onProgress = onProgress;
  }
  return parsed;
}

async function runExplore(request, cwd, timeoutMs, cancel, onProgress, failure) {
  checkRequest(request);
  const workspace = checkWorkspace(cwd);
  checkIndex(workspace);
  const launch = discover();
  failure.executable = launch.executable;
  const env = childEnv();
  const version = cliVersion(launch, workspace, env);
  version.then((v) => {
    failure.cliVersion ??= v ?? undefined; // a stopped run reports the version only if already known
  });
  // `--` ends option parsing: a request such as "-p /etc" stays the query.
  const out = await run({
    launch,
    args: ["explore", "--", request],
    cwd: workspace,
    env,
    timeoutMs,
    cancel,
    spillDir: fullOutputDir(workspace),
    onProgress,
  });
  const cliVersionText = (await version) ?? undefined;
  // A flood we stopped ourselves (at the drain limit) is not the CLI's verdict: the kept text is
  // the answer, with totals as lower bounds and exitCode -1 ("stopped by pi-codegraph").
  const stoppedByUs = !out.stdout.totalsExact;
  if (out.status.code !== 0 && !stoppedByUs) {
    Object.assign(failure, { cliVersion: cliVersionText, durationMs: out.durationMs });
    throw classifyExit(out, workspace);
  }
  const b = out.stdout;
  let text = b.text.trim() ? b.text : "(codegraph explore printed nothing)";
  if (b.truncated) text += truncationMarker(b);
  return {
    text,
    details: withoutUndefined({
      request,
      cwd: workspace,
      executable: launch.executable,
      cliVersion: cliVersionText,
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
    }),
  };
}

/** What a non-zero exit means: an index the CLI cannot use, or a failure with its stderr tail. */
function classifyExit(out, workspace) {
  if (out.stderrTail.includes(CLI_NO_INDEX_MARKER)) return noIndex(workspace, "codegraph found no usable index here");
  const { code, signal } = out.status;
  const signum = signal ? (os.constants.signals[signal] ?? null) : null;
  let how = "ended abnormally";
  if (code !== null) how = `exited with code ${code}`;
  else if (COMMON_SIGNALS.includes(signal)) how = `was killed by ${signal} (signal ${signum})`;
  else if (signum !== null) how = `was killed by signal ${signum}`;
  let stderrTail = out.stderrTail;
  if (!stderrTail.trim() && out.stdout.text.trim()) {
    // The CLI prints its validation errors on stdout.
    const buf = Buffer.from(out.stdout.text);
    let end = Math.min(buf.length, STDOUT_EXCERPT_BYTES);
    while (isContinuation(buf[end])) end -= 1;
    stderrTail = `(stderr empty; stdout began:)\n${redact(buf.subarray(0, end).toString())}`;
  }
  return new Problem("CODEGRAPH_EXIT", `codegraph explore ${how}`, { exitCode: code, signal: signum, stderrTail });
}

/**
 * Read-only readiness of a workspace, without running an explore: which `codegraph` would run
 * (and its version), the index directory, and the first problem (not installed before not indexed).
 */
async function diagnose(cwd) {
  const d = { cwd, ready: false };
  let problem;
  let workspace;
  try {
    if (typeof cwd !== "string") throw badWorkspace("", "the workspace path is not a string");
    workspace = checkWorkspace(cwd);
  } catch (p) {
    problem = p;
  }
  if (workspace) {
    let indexProblem;
    try {
      d.indexPath = checkIndex(workspace);
    } catch (p) {
      indexProblem = p;
    }
    try {
      const launch = discover();
      d.cliVersion = (await cliVersion(launch, workspace, childEnv())) ?? undefined;
      d.executable = launch.executable;
    } catch (p) {
      problem = p;
    }
    problem ??= indexProblem;
  }
  d.ready = !problem;
  if (problem) Object.assign(d, { problemCode: problem.code, problem: problem.text, remediation: problem.remediation });
  return withoutUndefined(d);
}

module.exports = { explore, diagnose };
