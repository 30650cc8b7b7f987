// What a failed run means (crates/core/src/exit_verdict.rs decides it, as the WebAssembly core):
// a vanished or locked workspace or an index this user cannot access (crates/core/src/access.rs,
// in the core's worker), else an index the CLI cannot use, a read-only one, or a failure with its
// stderr tail.

const os = require("node:os");
const { Problem } = require("../../../contract/problems.js");
const { hostCore } = require("../wasm-core.js");
const { coreChecked } = require("../source-thread.js");

/** How long the checks after a failure may take (a hung mount must not hold the answer). */
const CAUSE_WAIT_MS = 1000;

/**
 * After a failed spawn or exit: whether the workspace vanished or was locked (and, with `dir`,
 * whether the index paths are accessible); null when the filesystem does not answer within
 * CAUSE_WAIT_MS (command_run/checks.rs `blocked_cause`).
 */
function blockedCause(workspace, dir) {
  return withinCauseWait(async (deadline) => {
    const blocked = await coreChecked("blockedCause", [workspace, dir ?? null], deadline);
    return blocked?.code ? new Problem(blocked.code, blocked.facts) : null;
  });
}

/** What `probe(deadline)` finds, or null when it fails or takes longer than CAUSE_WAIT_MS. */
function withinCauseWait(probe) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, CAUSE_WAIT_MS, null);
  });
  const found = Promise.resolve()
    .then(() => probe(performance.now() + CAUSE_WAIT_MS))
    .catch(() => null);
  return Promise.race([found, late]).finally(() => clearTimeout(timer));
}

/** What a non-zero exit means (`out`: the run's, `index`: the index the checks found). */
async function classifyExit(out, workspace, index) {
  const core = hostCore();
  const blocked = await blockedCause(workspace, core.saysCannotOpen(out.stderrTail) ? index.dir : undefined);
  if (blocked) return blocked;
  const { code, signal } = out.status;
  const { code: problem, facts } = core.exitProblem(
    {
      exitCode: code ?? undefined,
      signal: signal ? (os.constants.signals[signal] ?? undefined) : undefined,
      signalName: signal ?? undefined,
      stderrTail: out.stderrTail,
      stdoutText: out.stdout.text,
    },
    workspace,
    index.dir,
  );
  return new Problem(problem, facts);
}

module.exports = { blockedCause, classifyExit, withinCauseWait };
