// A project Pi does not trust (`ctx.isProjectTrusted()` false: the user declined it, or Pi's rules
// did): the package as this session sees it reads nothing of the project and starts no CodeGraph
// there. Every call is refused with CODEGRAPH_UNTRUSTED before any process or file, the diagnosis
// says so (the tools are registered as unavailable, /codegraph and the verbs say why and how to
// trust it), and the walks for changed files read nothing. Pi before 1.x has no trust: trusted.

const { untrusted } = require("../contract/problems.js");
const { failure } = require("../api/failures.js");
const { problemWords } = require("../words/messages.js");

/** Whether Pi trusts the project of `ctx` (a host without the question trusts it). */
function isTrusted(ctx) {
  try {
    return typeof ctx?.isProjectTrusted !== "function" || ctx.isProjectTrusted() !== false;
  } catch {
    return true; // a stale ctx: the session's start fails elsewhere, as before
  }
}

/** The glue's functions that read nothing of a project and start nothing: every other one is refused. */
const HARMLESS = new Set([
  "default",
  "createExtension",
  "extensionInfo",
  "runnerInfo",
  "addonInfo",
  "limits",
  "releaseFullOutputs",
  "stopWarm",
  "warmServers",
  "unwatchChanges",
]);

/**
 * `glue` for a session in the untrusted project `cwd`: the same shape, nothing run or read. Every
 * call is refused unless it is known harmless, so a call added to the glue later is refused too.
 */
function untrustedGlue(glue, cwd) {
  const { code, facts } = untrusted(cwd);
  const refuse = async () => {
    throw failure(code, facts);
  };
  const guarded = Object.fromEntries(
    Object.entries(glue).map(([name, value]) => [
      name,
      typeof value !== "function" || HARMLESS.has(name) ? value : refuse,
    ]),
  );
  return {
    ...guarded,
    diagnose: async (dir) => ({ cwd: dir, ready: false, ...problemWords(code, facts) }),
    changedSince: async () => [],
  };
}

module.exports = { isTrusted, untrustedGlue };
