// One codegraph_changes call over a runner: its arguments checked, the composition's
// dependencies taken from the runner (git, the outline, the source scan, the walk since the
// index) and the glue (data runs through the index's queue), the answer said once
// (lib/words/changes.js) and held within its caps, every failure worded (lib/api/failures.js).

const { checkedArguments } = require("../contract/arguments.js");
const { toolRow } = require("../contract/tools.js");
const { FOCUSED_CAPS } = require("../contract/commands.js");
const { cut, countLines } = require("../contract/limits.js");
const { Problem } = require("../contract/problems.js");
const { firstLine } = require("../contract/text.js");
const { methodOf } = require("../contract/runner-methods.js");
const { changesText, cutLine } = require("../words/changes.js");
const { changesFacts } = require("./changes.js");
const { failure, wordedError } = require("./failures.js");

/** `text` within `caps` (`{ maxBytes, maxLines }`), cut at a line with the words saying so. */
function withinCaps(text, caps) {
  if (Buffer.byteLength(text) <= caps.maxBytes && countLines(text) <= caps.maxLines) return { text, cut: false };
  const tail = cutLine(Buffer.byteLength(text), caps.maxBytes);
  const [kept] = cut(text, caps.maxBytes - Buffer.byteLength(tail) - 2, caps.maxLines - 2);
  const whole = kept.includes("\n") ? kept.slice(0, kept.lastIndexOf("\n")) : kept;
  return { text: `${whole}\n${tail}`, cut: true };
}

/**
 * `{ text, details }` for codegraph_changes in `cwd`. `glue`: `{ runner, runData, diagnose,
 * changedSince }` (lib/api/calls.js). `options.workspace`: Pi's, when `cwd` is another root.
 */
async function changesCall(glue, params, cwd, signal, options) {
  const entered = performance.now();
  const { runner } = glue;
  let args;
  try {
    args = checkedArguments(toolRow("codegraph_changes"), params);
  } catch (err) {
    throw err instanceof Problem ? wordedError(err) : err;
  }
  const workspace = options?.workspace ?? undefined;
  let runs = 0;
  let runMs = 0; // CodeGraph's own processes, summed (the cost's yardstick: bench/figures)
  let gitMs = 0;
  const deps = {
    runGit: async (command, dir, abort) => {
      const out = await runner.runGit(command, dir, abort ?? null);
      gitMs += out?.durationMs ?? 0;
      return out;
    },
    runData: async (command, dir, abort) => {
      runs += 1;
      const out = await glue.runData(command, dir, abort, workspace);
      runMs += out?.details?.runMs ?? 0;
      return out;
    },
    outline: methodOf(runner, "outlineSource"),
    scan: methodOf(runner, "scanSource"),
    diagnose: (dir) => glue.diagnose(dir, workspace),
    changedSince: (roots) => glue.changedSince(roots),
  };
  let facts;
  try {
    if (!methodOf(runner, "runGit"))
      throw failure("CODEGRAPH_GIT", { subcommand: "", reason: { is: "spawn", os: "this runner cannot start git" } });
    if (signal?.aborted) throw failure("CODEGRAPH_CANCELLED", { subcommand: "changes" });
    facts = await changesFacts(deps, cwd, args, signal);
  } catch (err) {
    if (err instanceof Error && typeof err.remediation === "string") throw err; // worded already
    if (err?.code === "CODEGRAPH_CANCELLED") throw wordedError(err, { subcommand: "changes" });
    if (err?.code?.startsWith?.("CODEGRAPH_")) throw wordedError(err);
    throw failure("CODEGRAPH_SPAWN", { reason: { is: "bug", text: firstLine(err) } });
  }
  const caps = FOCUSED_CAPS.changes;
  const { text, cut: wasCut } = withinCaps(changesText(facts), caps);
  const symbols = facts.files.reduce((n, f) => n + f.symbols.length, 0);
  return {
    text,
    details: {
      subcommand: "changes",
      source: facts.source,
      files: facts.files.length,
      symbols,
      codegraphRuns: runs,
      codegraphRunMs: Math.round(runMs),
      gitMs: Math.round(gitMs),
      indexOlder: facts.newerThanIndex.length > 0,
      truncated: wasCut,
      durationMs: Math.round(performance.now() - entered),
    },
  };
}

module.exports = { changesCall };
