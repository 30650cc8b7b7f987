// The whole Pi glue over one runner: glueOver(runner) is what the package's index.js
// exports (over the native addon, or the Node runner when no addon loads).
//
// A runner is shaped like the native addon's module: { runCommand(command, cwd, signal?, options?)
// → Promise<{ text, details }> (rejecting with a coded Error; `command` is a description from
// lib/contract/commands.js), diagnose(cwd) → Promise<Diagnosis>,
// releaseFullOutputs(paths?) → number, MAX_REQUEST_CHARS, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES,
// DRAIN_LIMIT_BYTES, STDERR_TAIL_BYTES, DEFAULT_TIMEOUT_MS }, optionally runnerInfo().

const { createExtension } = require("./pi/extension.js");
const { wrapRunner } = require("./api/calls.js");
const { FALLBACK_LINE, TOOL_NAME } = require("./pi/guidance.js");
const { FOCUSED_TOOL_ROWS } = require("./contract/tools.js");

/**
 * The module-shaped glue over `runner`: the default factory (callable, as Pi loads it) with
 * `default`, run, explore, node, relations, search, changes, diagnose, changedSince, releaseFullOutputs, limits (the runner's), createExtension(getPeers), extensionInfo,
 * runnerInfo, addonInfo, TOOL_NAME and FALLBACK_LINE on it.
 *
 * `options`: `extension` ({ name, version, path } of this copy), `runnerInfo` (a runnerInfo() that
 * names this runner instead of the runner's own), `addonInfo` (which native binary is loaded, for doctor), and
 * `getPeers` (Pi's TypeBox, TUI and helpers for the default factory).
 */
function glueOver(runner, options = {}) {
  const calls = wrapRunner(runner);
  const extension = options.extension ?? { name: "pi-codegraph", version: "unknown", path: "unknown" };
  const extensionInfo = () => ({ ...extension });
  const runnerInfo = () => {
    if (options.runnerInfo) return options.runnerInfo();
    return calls.runnerInfo() ?? { name: "custom runner", path: null, note: null, fallback: false };
  };
  const addonInfo =
    options.addonInfo ?? (() => ({ path: null, error: `no native addon is used: the ${runnerInfo().name} runner is` }));
  const glue = { ...calls, extensionInfo, runnerInfo };
  const makeExtension = (getPeers) => createExtension(() => glue, getPeers);
  const factory = makeExtension(
    options.getPeers ??
      (() => {
        throw new Error("pi-codegraph: no peers (Pi's typebox, pi-tui and pi-coding-agent) were given to this factory");
      }),
  );
  return Object.assign(factory, {
    default: factory,
    run: calls.run,
    explore: calls.explore,
    // Each focused tool's call (lib/contract/tools.js): node, relations, search, changes.
    ...Object.fromEntries(FOCUSED_TOOL_ROWS.map((row) => [row.call, calls[row.call]])),
    diagnose: calls.diagnose,
    changedSince: calls.changedSince,
    worktrees: calls.worktrees,
    copyIndex: calls.copyIndex,
    stopWarm: calls.stopWarm,
    warmServers: calls.warmServers,
    unwatchChanges: calls.unwatchChanges,
    releaseFullOutputs: calls.releaseFullOutputs,
    limits: calls.limits,
    createExtension: makeExtension,
    extensionInfo,
    runnerInfo,
    addonInfo,
    TOOL_NAME,
    FALLBACK_LINE,
  });
}

module.exports = { glueOver };
