// runCommand(): the backend's main call, the same as the native addon's (crates/core/src/command_run.rs,
// src/lib.rs): one CodeGraph command, described as data and read by the core as the addon reads it
// (src/args.rs, through the WebAssembly core), then preflight, discovery, the writer policy, the
// run, and what its exit means.

const { setTimeout: delay } = require("node:timers/promises");
const { discover, launchRuns } = require("./discovery.js");
const { Problem, cancelled, indexBusy, indexInterrupted } = require("../../contract/problems.js");
const { timedOut, withDetails } = require("../../contract/problems.js");
const { withoutUndefined } = require("../../contract/text.js");
const { blockedCause, classifyExit, withinCauseWait } = require("./command-run/exit.js");
const { WRITER_WAIT_MS } = require("../../contract/limits.js");
const { childEnv, pinGitHooks } = require("./environment.js");
const { ownGitHooks } = require("./git-hooks.js");
const { linkSignal } = require("./args.js");
const { hostCore, wellFormed } = require("./wasm-core.js");
const { envSet } = require("../../contract/env-snapshot.js");
const { checkIndex, checkRequest, checkWorkspace } = require("./preflight.js");
const { homesOf } = require("./preflight.js");
const { resolvedPath } = require("../../contract/files.js");
const { indexDirOf } = require("../../contract/index-dir.js");
const { checkWrites, ownEntries } = require("./write-target.js");
const { WRITER_POLL_MS, activeWriter, interruptedWrite } = require("./index-writer.js");
const { run } = require("./runner.js");
const { packageVersion, startVersionProbe } = require("./version.js");

/** UTF-8 bytes from the core as a string (undefined stays undefined). */
const text = (bytes) => (bytes === undefined || bytes === null ? undefined : Buffer.from(bytes).toString());

/**
 * The filesystem checks before a run, in the addon's order: workspace, where a write may write
 * (write-target.js), executable, index (then the executable's package metadata). `home` is the workspace with symlinks resolved, computed once. A
 * command that needs no index (init) gets the directory its index will have, so that an active
 * writer there is still seen.
 */
async function preflightChecks(cwd, env, command) {
  const workspace = await checkWorkspace(cwd);
  const home = await resolvedPath(workspace);
  const homes = await homesOf(home, command.workspace);
  // The directory the CLI will open, chosen once for the write checks and for init (checkIndex
  // finds it itself for a command that reads the index).
  const dir = command.writesIndex || !command.needsIndex ? await indexDirOf(workspace, home, env) : undefined;
  if (command.writesIndex) await checkWrites(workspace, home, env, dir, command);
  // The executable before the index: without a CLI the cause to name is the CLI (an index could
  // not be made either), not the index.
  const launch = await discover(homes, env);
  const index = command.needsIndex
    ? await ownEntries(workspace, home, env, await checkIndex(workspace, home, env))
    : { dir, resolved: await resolvedPath(dir) };
  launch.packageVersion = await packageVersion(launch);
  const writer = await activeWriter(index.dir);
  // For a command that reads the index, with no writer at work: the last write never finished.
  const interrupted = command.refusesInterrupted && !writer ? await interruptedWrite(index.dir) : null;
  const child = await childEnv(env, homes);
  // init and uninit write git hooks where git names them: only the workspace's own.
  if (command.writesIndex) pinGitHooks(child.env, await ownGitHooks(workspace, home));
  return { workspace, index, launch, writer, interrupted, child };
}

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
    const recheck = delay(Math.min(WRITER_POLL_MS, giveUp - now)).then(() => activeWriter(indexDir));
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
const writerNow = (indexDir) => withinCauseWait(activeWriter(indexDir));

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
  const started = performance.now(); // the call's clock: details.durationMs runs from here
  const userEnv = { ...process.env }; // the call's environment, read once when it is made
  const cancel = { requested: false, onCancel: null };
  const failure = {}; // diagnostics that travel with an error
  let unlink = null;
  try {
    // The command, the workspace and the options, in explore's order, as the addon reads them;
    // its strings come back as UTF-8 (wasm-core.js says why each way).
    const here = wellFormed(cwd);
    const call = hostCore().readCall(wellFormed(command), here, options);
    if (call.problem) throw new Problem(call.problem.code, call.problem.facts);
    const { argv, positional, workspace, ...flags } = call.command;
    const checked = { ...flags, argv: argv.map(text), positional: text(positional), workspace: text(workspace) };
    // The callback the core found a function (read again here: the core keeps no JS value).
    const onProgress = checked.progress && call.onProgress ? options.onProgress : undefined;
    unlink = linkSignal(signal, cancel);
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
  if (request !== undefined) checkRequest(request);
  const checks = preflightChecks(cwd, userEnv, command);
  const bounds = { timeoutMs, deadline, cancel };
  const { workspace, index, launch, writer, interrupted, child } = await withinDeadline(checks, bounds);
  let version = null; // started once the index may be read
  let lockWaitMs = 0;
  /** What is known of a failure after the checks; `runMs` once the CLI was started. */
  const fill = (runMs) => {
    const v = version?.now(); // the version never delays the answer: what is known now is reported
    Object.assign(failure, {
      executable: launchRuns(launch),
      executableInWorkspace: launch.inWorkspace,
      envDropped: child.dropped,
      indexPath: index.dir,
      indexResolved: index.resolved,
      cliVersion: v?.text,
      cliVersionSource: v?.source,
      lockWaitMs,
      runMs,
    });
  };
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
    command.refusesInterrupted && (writer ? await withinDeadline(interruptedWrite(index.dir), bounds) : interrupted);
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
      spillTarget: { workspace, tmpdir: envSet(userEnv, "TMPDIR") },
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
  const v = version.now();
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
      executable: launchRuns(launch),
      discoveredExecutable: launch.executable,
      executableInWorkspace: launch.inWorkspace,
      envDropped: child.dropped,
      indexPath: index.dir,
      indexResolved: index.resolved,
      indexBytes: index.bytes,
      cliVersion: v?.text,
      cliVersionSource: v?.source,
      exitCode: stoppedByUs ? -1 : 0,
      durationMs: msSince(started), // the whole call, from entering runCommand
      lockWaitMs,
      runMs: out.durationMs,
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

module.exports = { runCommand };
