// runCommand(): the runner's main call, the same as the native addon's (crates/core/src/command_run.rs,
// src/lib.rs): one CodeGraph command, described as data and read by the core as the addon reads it
// (src/args.rs, through the WebAssembly core), then the core's checks (crates/core/src/ready.rs, in
// its worker), the writer policy, the run, and what its exit means.

const { setTimeout: delay } = require("node:timers/promises");
const { Problem, cancelled, indexBusy, indexInterrupted } = require("../../contract/problems.js");
const { timedOut, withDetails } = require("../../contract/problems.js");
const { withoutUndefined } = require("../../contract/text.js");
const { blockedCause, classifyExit, withinCauseWait } = require("./command-run/exit.js");
const { WRITER_WAIT_MS } = require("../../contract/limits.js");
const { linkSignal } = require("./args.js");
const { fromUtf8, hostCore, wellFormed } = require("./wasm-core.js");
const { run } = require("./child.js");
const { checksLoaded, checksReady, childEnvOf, coreChecked } = require("./source-thread.js");
const { launchRuns, startVersionProbe } = require("./version.js");

/** How often the lock files are read again while a writer is active (command_run/checks.rs). */
const WRITER_POLL_MS = 100;

/** The CLI installed beside the package (crates/core/src/discovery/package_cli.rs), when set. */
let packageCli = null;
/** Sets (or with a non-path clears) the CLI beside the package (the core takes an absolute path only). */
function setPackageCli(file) {
  packageCli = typeof file === "string" ? file : null;
}
/** The CLI beside the package, as set. */
const packageCliSet = () => packageCli;

/**
 * The checks before a run (crates/core/src/ready.rs, in the core's worker): the request, the
 * workspace, where a write may write, the executable, the index, an active writer, an unfinished
 * write, and the child's environment; the core's first problem rejected as a Problem.
 */
async function preflightChecks(cwd, userEnv, command, deadline) {
  const request = { ...command, cwd, env: Object.entries(userEnv).flat(), packageCli: packageCli ?? undefined };
  const { ready, childEnv, dropped } = await coreChecked("runChecks", [request], deadline);
  ready.index.bytes ??= undefined;
  return { ...ready, child: { env: childEnvOf(childEnv), dropped } };
}

/** The writer at work on the index in `indexDir` now (crates/core/src/index_writer.rs), or null. */
const activeWriter = async (indexDir, deadline) => (await coreChecked("writerNow", [indexDir, false], deadline)).writer;
/** The unfinished write the lock files in `indexDir` show with no writer at work, or null. */
const interruptedWrite = async (indexDir, deadline) =>
  (await coreChecked("writerNow", [indexDir, true], deadline)).interrupted;

/**
 * An active index writer: a command that writes is refused at once (two writers would corrupt the
 * index or fight over its lock); one that reads waits for it (waitForWriter).
 */
function settleWriter(writer, writesIndex, indexDir, bounds) {
  if (writesIndex) return writer ? Promise.reject(indexBusy(writer, 0)) : Promise.resolve();
  return waitForWriter(writer, indexDir, bounds);
}

/**
 * While CodeGraph writes the index, an answer would come from a partial graph: waits for the
 * writer to finish, at most WRITER_WAIT_MS and never past the deadline (or a cancel), and
 * otherwise fails with CODEGRAPH_INDEX_BUSY.
 */
async function waitForWriter(writer, indexDir, bounds) {
  const started = performance.now();
  const giveUp = Math.min(bounds.deadline, started + WRITER_WAIT_MS);
  // Whole milliseconds, as the addon counts them (and as lockWaitMs reports this wait).
  const busy = (w) => indexBusy(w, Math.floor(performance.now() - started));
  while (writer) {
    const now = performance.now();
    if (now >= giveUp) throw busy(writer);
    const last = writer;
    // The pause and the re-check, ended at once by a cancel; at the deadline (or a filesystem
    // that stalls until it) the writer is still the reason.
    const recheck = delay(Math.min(WRITER_POLL_MS, giveUp - now)).then(() => activeWriter(indexDir, bounds.deadline));
    writer = await withinDeadline(recheck, bounds).catch((p) => {
      throw p?.code === "CODEGRAPH_TIMEOUT" ? busy(last) : p;
    });
  }
}

/** Whole milliseconds since `t` (a performance.now() time), as the addon counts them. */
const msSince = (t) => Math.floor(performance.now() - t);

/**
 * At a timeout: the CodeGraph writer active on the index in `indexDir` right now (activeWriter's
 * rules), or null: none, or the filesystem did not answer within the cause wait.
 */
const writerNow = (indexDir) => withinCauseWait((deadline) => activeWriter(indexDir, deadline));

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

/**
 * Runs one CodeGraph command (a description: lib/contract/commands.js builds them) in `cwd`.
 * Resolves with `{ text, details, answer }`; rejects with a Problem (`code`, `facts` and the run's
 * `details`), as the addon does; lib/api/ words both. Never throws synchronously. `options`: `timeoutMs` (default: the command's)
 * and `onProgress({ text, tail, seenBytes, seenLines, elapsedMs })`, at most every 250 ms (output
 * that arrived in between is reported once they have passed). A truncated answer's details carry
 * `outputTail`.
 */
async function runCommand(command, cwd, signal, options) {
  let started = performance.now(); // the call's clock: details.durationMs runs from here
  const userEnv = { ...process.env }; // the call's environment, read once when it is made
  const cancel = { requested: false, onCancel: null };
  const failure = {}; // diagnostics that travel with an error
  let unlink = null;
  try {
    // The command, the workspace and the options, in explore's order, as the addon reads them
    // (at once, as they are when the call is made); its strings come back as UTF-8 (wasm-core.js
    // says why each way).
    const here = wellFormed(cwd);
    const call = hostCore().readCall(wellFormed(command), here, options);
    if (call.problem) throw new Problem(call.problem.code, call.problem.facts);
    const { argv, positional, workspace, ...flags } = call.command;
    const checked = {
      ...flags,
      argv: argv.map(fromUtf8),
      positional: fromUtf8(positional),
      workspace: fromUtf8(workspace),
    };
    // The callback the core found a function (read again here: the core keeps no JS value).
    const onProgress = checked.progress && call.onProgress ? options.onProgress : undefined;
    unlink = linkSignal(signal, cancel);
    // The core's checks worker starts and compiles its WebAssembly once per process, outside the
    // call's deadline, as the addon is loaded before its own clock starts; a core that cannot load
    // is said by the checks themselves, and an abort meanwhile by the checks' bound.
    if (!checksReady()) {
      await checksLoaded().catch(() => {});
      started = performance.now();
    }
    return await runChecked(
      checked,
      here,
      { userEnv, timeoutMs: call.timeoutMs, started, deadline: started + call.timeoutMs, cancel, onProgress },
      failure,
    );
  } catch (err) {
    failure.durationMs = msSince(started);
    throw withDetails(err, failure);
  } finally {
    unlink?.();
  }
}

async function runChecked(command, cwd, { userEnv, timeoutMs, started, deadline, cancel, onProgress }, failure) {
  const request = command.positional;
  const checks = preflightChecks(cwd, userEnv, command, deadline);
  const bounds = { timeoutMs, deadline, cancel };
  const { workspace, index, launch, writer, interrupted, child, spill } = await withinDeadline(checks, bounds);
  let version = null; // started once the index may be read
  let lockWaitMs = 0;
  /** What is known after the checks, of an answer or a failure; `runMs` once the CLI was started. */
  const known = (runMs) => {
    const v = version?.now(); // the version never delays the answer: what is known now is reported
    const { dir: indexDir, resolved: indexResolved } = index;
    const executable = launchRuns(launch);
    const facts = { executable, executableInWorkspace: launch.inWorkspace, envDropped: child.dropped };
    return { ...facts, indexDir, indexResolved, cliVersion: v?.text, cliVersionSource: v?.source, lockWaitMs, runMs };
  };
  const fill = (runMs) => Object.assign(failure, known(runMs));
  const waitStarted = performance.now();
  await settleWriter(writer, command.writesIndex, index.dir, bounds).catch((problem) => {
    // A busy index says how long this call waited: the same fact, the same number.
    lockWaitMs = problem?.code === "CODEGRAPH_INDEX_BUSY" ? problem.facts.waitedMs : msSince(waitStarted);
    fill(undefined);
    throw problem;
  });
  if (writer) lockWaitMs = msSince(waitStarted);
  // As the checks found it, or, after waiting for a writer, as that writer left it.
  const unfinished =
    command.refusesInterrupted &&
    (writer ? await withinDeadline(interruptedWrite(index.dir, deadline), bounds) : interrupted);
  if (unfinished) {
    fill(undefined);
    throw indexInterrupted(unfinished);
  }
  const { env } = child;
  // Always an argument array, never a shell; `--` ends option parsing: a request such as "-p
  // /etc" stays the query.
  version = startVersionProbe(launch, workspace, env, deadline);
  let out;
  try {
    out = await run({
      launch,
      args: command.argv,
      cwd: workspace,
      env,
      timeoutMs,
      deadline,
      cancel,
      spill,
      caps: { bytes: command.maxBytes, lines: command.maxLines },
      onProgress,
    });
  } catch (problem) {
    version.stop();
    fill(problem?.runMs);
    // Whether CodeGraph was writing the index as the deadline passed (a reason to ask again
    // rather than narrower).
    if (problem?.code === "CODEGRAPH_TIMEOUT") problem.facts.writerSeen = await writerNow(index.dir);
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
  const b = out.stdout;
  // The answer's words (an empty answer, the truncation marker) are the glue's (lib/api/answer.js).
  return {
    text: b.text,
    answer: {
      subcommand: command.subcommand,
      printedNothing: !b.text.trim() && !b.truncated,
      maxBytes: command.maxBytes,
      maxLines: command.maxLines,
      fullOutputComplete: b.fullOutput?.complete,
      fullOutputMissing: b.fullOutput?.reason,
    },
    details: withoutUndefined({
      request: request ?? "",
      cwd: workspace,
      ...known(out.durationMs),
      discoveredExecutable: launch.executable,
      indexBytes: index.bytes,
      exitCode: stoppedByUs ? -1 : 0,
      durationMs: msSince(started), // the whole call, from entering runCommand
      truncated: b.truncated,
      truncatedBy: b.truncatedBy,
      totalBytes: b.totalBytes,
      totalLines: b.totalLines,
      totalsExact: b.totalsExact,
      keptBytes: b.keptBytes,
      keptLines: b.keptLines,
      fullOutputPath: b.fullOutput?.path,
      fullOutputBytes: b.fullOutput?.bytes,
      outputTail: b.outputTail, // only when truncated: the end the text may not reach
    }),
  };
}

module.exports = { packageCliSet, runCommand, setPackageCli };
