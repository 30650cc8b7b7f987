// The glue's calls into a runner (the native addon or the Node runner, both shaped like the
// addon's module): argument-robust run() of any command description (lib/contract/commands.js), explore()
// as one such description, and a diagnose() that never rejects. Whatever the runner, run() and
// explore() never throw synchronously and every failure is a CODEGRAPH_* rejection.

const { admit, noteIndexBytes, parallelPolicy, passWrite, queueBound } = require("./admission.js");
const { finishAnswer } = require("./answer.js");
const { LIMIT_NAMES } = require("../contract/limits.js");
const { Problem, exhausted } = require("../contract/problems.js");
const { answerNotes } = require("./answer-notes.js");
const { exploreCommand } = require("../contract/commands.js");
const { FOCUSED_TOOL_ROWS } = require("../contract/tools.js");
const { relationsArguments } = require("../contract/arguments.js");
const { callPath } = require("./call-path.js");
const { askedNames } = require("./blind-spots.js");
const { qualifiedParts, scopeSearchWhileRunning } = require("./answer-subject.js");
const { searchWhileRunning } = require("./source-search.js");
const { diagnosisWords, failure, wordedError } = require("./failures.js");
const { withStaleness } = require("./staleness.js");
const { changedSinceIndex } = require("./disk-changes.js");
const { worktreesOf } = require("./worktrees.js");
const { changesCall } = require("./changes-call.js");
const { firstLine } = require("../contract/text.js");
const { methodOf } = require("../contract/runner-methods.js");
const { withWordedDropped } = require("../words/environment.js");
const { budgetOf, citesFiles, namedCommand, noticeOf, observed } = require("./call-options.js");
const { onBehalfOf, plainOptions, readsData, writesIndex } = require("./call-options.js");

/** `{ run, explore, node, relations, search, changes, diagnose, releaseFullOutputs, limits, … }` over `runner` (a call per focused tool, lib/contract/tools.js). See index.d.ts. */
function wrapRunner(runner) {
  /** Runs the described command in `cwd`; every failure is a CODEGRAPH_* rejection. */
  async function run(command, cwd, signal, options) {
    const entered = performance.now();
    const total = () => Math.round(performance.now() - entered);
    let plain;
    let onQueue;
    let workspace;
    let warm;
    try {
      ({ plain, onQueue, workspace, warm } = plainOptions(options));
    } catch (cause) {
      if (cause?.code === "CODEGRAPH_INVALID_OPTIONS") throw cause;
      throw failure("CODEGRAPH_INVALID_OPTIONS", { reason: { is: "optionsUnreadable", text: firstLine(cause) } });
    }
    // A failure's words name the command that ran (`codegraph sync did not finish…`); explore's stay as they were.
    const named = namedCommand(command);
    // Wait for a turn on the index (lib/api/admission.js); the time budget starts once admitted. A
    // write takes no reader's turn: readers meet it through the runner's writer rule.
    const budgetMs = budgetOf(command, plain);
    let ticket;
    try {
      ticket = writesIndex(command) ? passWrite(cwd) : await admit(cwd, { signal, budgetMs, onQueue });
    } catch (err) {
      const queue = err?.queue;
      if (!queue) throw failure("CODEGRAPH_SPAWN", { reason: { is: "bug", text: firstLine(err) } });
      const code = queue.is === "cancelled" ? "CODEGRAPH_CANCELLED" : "CODEGRAPH_TIMEOUT";
      const facts =
        queue.is === "cancelled" ? { queue, ...named } : { queue, timeoutMs: queueBound(budgetMs), ...named };
      throw failure(code, facts, {
        queueMs: queue.waitedMs,
        durationMs: total(),
        parallelLimit: queue.policy.limit,
      });
    }
    const waits = () => ({ queueMs: ticket.queueMs, durationMs: total(), parallelLimit: ticket.policy.limit });
    const scan = methodOf(runner, "scanSource");
    // The source search the answer's notes may need, while CodeGraph answers (lib/api/source-search.js).
    const data = readsData(command);
    // (A qualified name's parts too: where the source defines the one asked, lib/api/answer-subject.js.)
    const early = data ? null : searchWhileRunning(command, cwd, scan, (c) => [...askedNames(c), ...qualifiedParts(c)]);
    const scopes = data ? null : scopeSearchWhileRunning(command, cwd, scan);
    let result;
    try {
      result = await runner.runCommand(onBehalfOf(command, workspace, warm), cwd, signal ?? null, plain);
    } catch (err) {
      early?.end();
      scopes?.end();
      ticket.leave();
      // The runner's failure (a Problem: code, facts, the run's details), worded once here with
      // what the glue observed added.
      const context = () => ({ ...noticeOf("cliVersionNotice", err.details?.cliVersion), ...waits() });
      if (err?.code === "CODEGRAPH_TIMEOUT")
        throw wordedError(err, { observed: observed(ticket, err.details), ...named }, context());
      if (err?.code?.startsWith?.("CODEGRAPH_")) throw wordedError(err, named, context());
      // Loading a runner can itself run out of descriptors or memory (require, dlopen).
      const resources = exhausted({ is: "loadRunner" }, err);
      if (resources) throw wordedError(resources);
      throw failure("CODEGRAPH_INVALID_OPTIONS", { reason: { is: "argumentsUnusable", text: firstLine(err) } });
    }
    ticket.leave();
    noteIndexBytes(cwd, result?.details?.indexBytes);
    // The files the answer cites that changed after the index was written: said within a short
    // deadline, from `stat` alone (lib/api/staleness.js).
    // What CodeGraph's text leaves unsaid (another symbol, import-only callers, a name the index
    // lacks but the source defines: lib/api/answer-notes.js), leading the answer.
    const notes = data
      ? ""
      : await answerNotes(command, result?.text, {
          cwd,
          scan,
          indexDir: result?.details?.indexDir,
          truncated: result?.details?.truncated === true,
          early,
          scopes,
        }).finally(() => {
          early?.end();
          scopes?.end();
        });
    const finished = finishAnswer(result, notes);
    const caps = { maxBytes: result?.answer?.maxBytes, maxLines: result?.answer?.maxLines };
    const answer = citesFiles(command) && !data ? await withStaleness(finished, cwd, { caps }) : finished;
    const notice = noticeOf("cliVersionNotice", answer.details.cliVersion);
    return { text: answer.text, details: { ...answer.details, ...notice, ...waits() } };
  }

  /** Runs `codegraph explore -- <request>` in `cwd`: one command description through run(). */
  function explore(request, cwd, signal, options) {
    return run(exploreCommand(request), cwd, signal, options);
  }

  /**
   * A focused tool's call: its arguments checked and made a command description (lib/contract/commands.js),
   * then run(). A bad argument is a CODEGRAPH_INVALID_REQUEST rejection, never a throw.
   */
  const focused = (build) => async (params, cwd, signal, options) => {
    let command;
    try {
      command = build(params);
    } catch (err) {
      throw err instanceof Problem ? wordedError(err) : err;
    }
    return run(command, cwd, signal, options);
  };
  /**
   * Each focused tool's call that is one CodeGraph command, by its row (lib/contract/tools.js):
   * `node`, `search`, relations' callers, callees and impact; relations' path and changes are
   * composed of several runs (below).
   */
  const commandCalls = Object.fromEntries(
    FOCUSED_TOOL_ROWS.filter((row) => row.command).map((row) => [row.call, focused(row.command)]),
  );
  const relationsRun = commandCalls.relations;
  /**
   * `codegraph callers|callees|impact …` from codegraph_relations' arguments ({ relation, symbol,
   * file?, limit?, depth? }); `path` ({ relation, from, to }): several commands, one answer (lib/api/call-path.js).
   */
  async function relations(params, cwd, signal, options) {
    let args;
    try {
      args = relationsArguments(params);
    } catch (err) {
      throw err instanceof Problem ? wordedError(err) : err;
    }
    if (args.relation !== "path") return relationsRun(params, cwd, signal, options);
    const scan = methodOf(runner, "scanSource");
    const outline = methodOf(runner, "outlineSource");
    return callPath({ run, scan, outline, release: releaseFullOutputs }, args, cwd, signal, options);
  }

  /**
   * Read-only readiness of a workspace (executable, version, index); a failure is a diagnosis too.
   * A version outside the tested range adds `versionNotice` (never a refusal). `workspace`: Pi's,
   * when `cwd` is another root (what a call there on its behalf would find).
   */
  async function diagnose(cwd, workspace) {
    try {
      const diagnosis = withWordedDropped(diagnosisWords(await runner.diagnose(cwd, workspace)));
      noteIndexBytes(cwd, diagnosis.indexBytes);
      return {
        ...diagnosis,
        ...noticeOf("versionNotice", diagnosis.cliVersion),
        parallel: parallelPolicy(cwd),
      };
    } catch (thrown) {
      const err = wordedError(thrown);
      const story = err?.details?.story;
      return {
        cwd,
        parallel: parallelPolicy(cwd),
        ready: false,
        hasIndex: false,
        problemCode: err?.code ?? "CODEGRAPH_SPAWN",
        problem: story ? `${String(err.message).split("\n")[0]} ${story}` : String(err?.message ?? err),
        remediation: err?.remediation ?? "Run `pi-codegraph doctor` in the workspace.",
      };
    }
  }

  /** Deletes the temp files holding full output of truncated answers (the listed ones, or all). */
  function releaseFullOutputs(paths) {
    return runner.releaseFullOutputs(paths ?? null);
  }

  /** The runner's limits, read now (a lazily loaded runner may not know them before). */
  function limits() {
    try {
      return Object.fromEntries(LIMIT_NAMES.map((name) => [name, runner[name]]));
    } catch (err) {
      throw wordedError(err); // choosing the runner ran out of descriptors or memory
    }
  }

  /** The runner's runnerInfo(), or undefined when it has none (a failure to choose one worded). */
  function runnerInfo() {
    if (typeof runner.runnerInfo !== "function") return undefined;
    try {
      return runner.runnerInfo();
    } catch (err) {
      throw wordedError(err);
    }
  }

  /**
   * The source files written after each root's index (`[{ dir, indexDir }]`): lib/api/disk-changes.js
   * (git's candidates where it can name them; `options.watch`, while auto sync is on: a large
   * root's watch, where the runner has one).
   */
  function changedSince(roots, options) {
    const watch = options?.watch === true ? methodOf(runner, "watchChanges") : undefined;
    const deps = { runGit: methodOf(runner, "runGit"), large: walkCutRoots, watch, baselines: watchBaselines };
    return changedSinceIndex(methodOf(runner, "changedSource"), roots, deps);
  }
  /** The roots whose last walk for changes a bound ended: git is asked first there (lib/api/disk-changes.js). */
  const walkCutRoots = new Set();
  /** Per watched root, what git named once its watch was ready (`{ epoch, paths }`). */
  const watchBaselines = new Map();
  /** Ends every watch of the runner (none: 0); never throws. */
  function unwatchChanges() {
    watchBaselines.clear();
    try {
      return methodOf(runner, "unwatchChanges")?.() ?? 0;
    } catch {
      return 0;
    }
  }

  /**
   * A command whose output is data for a composition (codegraph_changes' JSON runs): its turn on
   * the index, the runner, a worded failure; no notes, no staleness line, no cut of its own.
   */
  async function runData(command, cwd, signal, workspace) {
    const named = namedCommand(command);
    let ticket;
    try {
      ticket = await admit(cwd, { signal, budgetMs: budgetOf(command, null) });
    } catch (err) {
      const queue = err?.queue;
      if (!queue) throw failure("CODEGRAPH_SPAWN", { reason: { is: "bug", text: firstLine(err) } });
      if (queue.is === "cancelled") throw failure("CODEGRAPH_CANCELLED", { queue, ...named });
      throw failure("CODEGRAPH_TIMEOUT", { queue, timeoutMs: queueBound(budgetOf(command, null)), ...named });
    }
    try {
      return await runner.runCommand(onBehalfOf(command, workspace), cwd, signal ?? null, null);
    } catch (err) {
      if (err?.code?.startsWith?.("CODEGRAPH_")) throw wordedError(err, named);
      throw failure("CODEGRAPH_SPAWN", { reason: { is: "bug", text: firstLine(err) } });
    } finally {
      ticket.leave();
    }
  }

  /** codegraph_changes ({ depth? }): what the working tree's changes touch and break (lib/api/changes-call.js). */
  const changes = (params, cwd, signal, options) =>
    changesCall({ runner, runData, diagnose, changedSince }, params, cwd, signal, options);

  /** The worktree `cwd` is in and the repository's others (lib/api/worktrees.js), or null. */
  const worktrees = (cwd, signal) => worktreesOf(runner, cwd, signal);

  /** The runner's copy of another worktree's index into `cwd`'s (`{ from, to }`); a refusal is a fact. */
  async function copyIndex(cwd, request, signal) {
    const copy = methodOf(runner, "copyIndex");
    if (!copy) return { files: [], bytes: 0, refused: { is: "unsupported" } };
    return copy(cwd, request, signal ?? null);
  }

  /** Stops every long-lived CodeGraph the runner keeps (none: 0); never rejects. */
  async function stopWarm() {
    try {
      return (await methodOf(runner, "stopWarm")?.()) ?? 0;
    } catch {
      return 0;
    }
  }
  /** The long-lived CodeGraphs running now (`[{ cwd, pid }]`). */
  function warmServers() {
    try {
      return methodOf(runner, "warmServers")?.() ?? [];
    } catch {
      return [];
    }
  }

  return {
    run,
    explore,
    stopWarm,
    warmServers,
    unwatchChanges,
    worktrees,
    copyIndex,
    ...commandCalls,
    relations,
    changes,
    diagnose,
    releaseFullOutputs,
    limits,
    runnerInfo,
    changedSince,
  };
}

module.exports = { wrapRunner };
