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

/** `glue` for a session in the untrusted project `cwd`: the same shape, nothing run or read. */
function untrustedGlue(glue, cwd) {
  const { code, facts } = untrusted(cwd);
  const refuse = async () => {
    throw failure(code, facts);
  };
  const diagnose = async (dir) => ({ cwd: dir, ready: false, ...problemWords(code, facts) });
  return {
    ...glue,
    run: refuse,
    explore: refuse,
    node: refuse,
    relations: refuse,
    search: refuse,
    changes: refuse,
    diagnose,
    changedSince: async () => [],
  };
}

module.exports = { isTrusted, untrustedGlue };
