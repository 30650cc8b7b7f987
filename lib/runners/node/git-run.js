// git as a child (crates/core/src/git_run.rs): a description of lib/contract/git.js run with
// CodeGraph's rules. `git` is found on the absolute PATH entries outside the workspace (one
// planted in the repository never runs, whatever the opt-in for CodeGraph says); the child gets
// the quiet environment without the variables that point git elsewhere (both the core's,
// crates/core/src/git_found.rs, asked in its worker), in
// the C locale; argv only, cwd = the workspace, stdout within the description's caps (no spill
// file: a cut diff is said, not kept), stderr's tail, the deadline, cancel and the tree killed.

const path = require("node:path");
const { Problem, badWorkspace, cancelled, gitFailed, withDetails } = require("../../contract/problems.js");
const { linkSignal } = require("./args.js");
const { childEnvOf, coreChecked } = require("./source-thread.js");
const { run } = require("./child.js");
const { hostCore, wellFormed } = require("./wasm-core.js");

/**
 * Runs the git description `command` in `cwd`. Resolves with `{ text, truncated, durationMs }`;
 * rejects with CODEGRAPH_GIT (its reason: notFound, notRepository, noHead, exit, timeout, spawn,
 * invalid), CODEGRAPH_CANCELLED, or CODEGRAPH_WORKSPACE.
 */
async function runGit(command, cwd, signal) {
  const started = performance.now();
  const cancel = { requested: false, onCancel: null };
  let unlink = null;
  try {
    // The description as the addon reads it (src/args/git.rs): git's argv, its caps and deadline.
    const core = hostCore();
    const described = wellFormed(command);
    const git = core.readGit(described);
    if (git.problem) throw new Problem(git.problem.code, git.problem.facts);
    if (typeof cwd !== "string" || !path.isAbsolute(cwd)) throw badWorkspace(String(cwd ?? ""), { is: "relative" });
    unlink = linkSignal(signal, cancel);
    const deadline = started + git.timeoutMs;
    // git on PATH outside the workspace, and its environment (crates/core/src/git_found.rs).
    const found = await coreChecked("findGit", [cwd, Object.entries({ ...process.env }).flat()], deadline);
    if (!found.git)
      throw gitFailed(command.subcommand, { is: "notFound", ...(found.skipped ? { skipped: found.skipped } : {}) });
    if (cancel.requested) throw cancelled();
    // What a run that did not answer means is the core's (crates/core/src/git_command.rs).
    const failed = (exitCode, stderrTail, code) => {
      const problem = core.gitFailed(described, exitCode, stderrTail, code);
      return problem ? new Problem(problem.code, problem.facts) : null;
    };
    const out = await run({
      launch: { executable: found.git, program: found.git, prefix: [], execFormat: found.execFormat },
      args: git.argv,
      cwd: found.home,
      env: childEnvOf(found.childEnv),
      timeoutMs: git.timeoutMs,
      deadline,
      cancel,
      caps: { bytes: git.maxBytes, lines: git.maxLines },
    }).catch((p) => {
      throw failed(undefined, undefined, String(p?.code ?? "")) ?? p;
    });
    if (out.status.code !== 0 && out.stdout.totalsExact) throw failed(out.status.code ?? -1, out.stderrTail);
    return { text: out.stdout.text, truncated: out.stdout.truncated === true, durationMs: out.durationMs };
  } catch (err) {
    throw withDetails(err, { durationMs: Math.floor(performance.now() - started) });
  } finally {
    unlink?.();
  }
}

module.exports = { runGit };
