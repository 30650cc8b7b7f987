// git as a child (crates/core/src/git_run.rs): a description of lib/contract/git.js run with
// CodeGraph's rules. `git` is found on the absolute PATH entries outside the workspace (one
// planted in the repository never runs, whatever the opt-in for CodeGraph says); the child gets
// the quiet environment without the variables that point git elsewhere (both the core's,
// crates/core/src/git_found.rs, asked in its worker), in
// the C locale; argv only, cwd = the workspace, stdout within the description's caps (no spill
// file: a cut diff is said, not kept), stderr's tail, the deadline, cancel and the tree killed.

const path = require("node:path");
const { gitArgv, gitCommandProblem, gitExitReason } = require("../../contract/git.js");
const { badWorkspace, cancelled, gitFailed, withDetails } = require("../../contract/problems.js");
const { linkSignal } = require("./args.js");
const { childEnvOf, coreChecked } = require("./source-thread.js");
const { run } = require("./runner.js");

/**
 * Runs the git description `command` in `cwd`. Resolves with `{ text, truncated, durationMs }`;
 * rejects with CODEGRAPH_GIT (its reason: notFound, notRepository, noHead, exit, timeout, spawn,
 * invalid), CODEGRAPH_CANCELLED, or CODEGRAPH_WORKSPACE.
 */
async function runGit(command, cwd, signal) {
  const started = performance.now();
  const cancel = { requested: false, onCancel: null };
  const sub = typeof command?.subcommand === "string" ? command.subcommand.slice(0, 32) : "";
  let unlink = null;
  try {
    const problem = gitCommandProblem(command);
    if (problem) throw gitFailed(sub, { is: "invalid", problem });
    if (typeof cwd !== "string" || !path.isAbsolute(cwd)) throw badWorkspace(String(cwd ?? ""), { is: "relative" });
    unlink = linkSignal(signal, cancel);
    // git on PATH outside the workspace, and its environment (crates/core/src/git_found.rs).
    const args = [cwd, Object.entries({ ...process.env }).flat()];
    const found = await coreChecked("findGit", args, started + command.timeoutMs);
    const { home, git, skipped } = found;
    if (!git) throw gitFailed(sub, { is: "notFound", ...(skipped ? { skipped } : {}) });
    const env = childEnvOf(found.childEnv);
    if (cancel.requested) throw cancelled();
    let out;
    try {
      out = await run({
        launch: { executable: git, program: git, prefix: [], execFormat: found.execFormat },
        args: gitArgv(command),
        cwd: home,
        env,
        timeoutMs: command.timeoutMs,
        deadline: started + command.timeoutMs,
        cancel,
        caps: { bytes: command.maxBytes, lines: command.maxLines },
      });
    } catch (p) {
      if (p?.code === "CODEGRAPH_TIMEOUT") throw gitFailed(sub, { is: "timeout", timeoutMs: command.timeoutMs });
      if (p?.code === "CODEGRAPH_CANCELLED") throw p;
      throw gitFailed(sub, { is: "spawn", os: String(p?.facts?.reason?.os ?? p?.message ?? p).slice(0, 200) });
    }
    if (out.status.code !== 0 && out.stdout.totalsExact) {
      const stderrTail = out.stderrTail;
      const is = gitExitReason(stderrTail);
      // Only a failure git's words do not name carries its exit and stderr (as the core's).
      throw gitFailed(sub, is === "exit" ? { is, exitCode: out.status.code ?? -1, stderrTail } : { is });
    }
    return { text: out.stdout.text, truncated: out.stdout.truncated === true, durationMs: out.durationMs };
  } catch (err) {
    throw withDetails(err, { durationMs: Math.floor(performance.now() - started) });
  } finally {
    unlink?.();
  }
}

module.exports = { runGit };
