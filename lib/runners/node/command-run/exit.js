// What a failed run means (crates/core/src/exit_verdict.rs decides it, as the WebAssembly core):
// a vanished or locked workspace or an index this user cannot access (crates/core/src/access.rs,
// in the core's worker), else an index the CLI cannot use, a read-only one, or a failure with its
// stderr tail. And the one way the runner asks the core's checks in its worker (coreChecked).

const os = require("node:os");
const { Problem, exhausted, osText, timedOut } = require("../../../contract/problems.js");
const { hostCore } = require("../wasm-core.js");
const { coreCheck } = require("../source-thread.js");

/**
 * One of the core's checks in its worker (src/checks.rs), given up on at `deadline` (a
 * performance.now() time): its answer, or its problem (`{ code, facts }`) rejected as a Problem; a
 * worker ended at the deadline is CODEGRAPH_TIMEOUT (the call's own bound says so first).
 */
async function coreChecked(op, args, deadline) {
  const remaining = Math.max(0, deadline - performance.now());
  const answer = await coreCheck(op, args, remaining).catch((err) => {
    throw err?.code === "CODEGRAPH_ADDON" ? coreMissing(err) : err;
  });
  if (answer?.failure) throw coreMissing(answer.failure);
  if (answer?.stopped) throw timedOut(Math.round(remaining), "", undefined, true);
  if (answer?.problem) throw new Problem(answer.problem.code, answer.problem.facts);
  return answer;
}

/**
 * The core's worker could not answer: it could not start or load the core. CODEGRAPH_RESOURCES when
 * a resource ran out (the next call tries again), else CODEGRAPH_ADDON with the worker's story.
 */
const coreMissing = (err) =>
  exhausted({ is: "loadAddon" }, err) ??
  new Problem("CODEGRAPH_ADDON", { target: "wasm32-wasi", story: osText(err), core: "wasm" });

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

/** A child's environment from the core's names and values (alternating, UTF-8). */
function childEnvOf(pairs) {
  const env = {};
  for (let i = 0; i + 1 < pairs.length; i += 2)
    env[Buffer.from(pairs[i]).toString()] = Buffer.from(pairs[i + 1]).toString();
  return env;
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

module.exports = { blockedCause, childEnvOf, classifyExit, coreChecked, withinCauseWait };
