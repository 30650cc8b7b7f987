// diagnose(): read-only readiness of a workspace, as the addon's: what an explore would find,
// without running one and without writing anything. The checks and what they make of it are the
// core's (crates/core/src/ready.rs `survey`, diagnosis.rs, in its worker); this adds the CLI's
// version, which takes a process (version.js). Its problems are facts (`{ code, facts }`), as
// the addon's are; lib/api/failures.js words them.

const path = require("node:path");
const { Problem, badWorkspace, osText } = require("../../../contract/problems.js");
const { withoutUndefined } = require("../../../contract/text.js");
const { startVersionProbe } = require("../version.js");
const { coreChecked, childEnvOf } = require("../source-thread.js");

/** How long diagnose() waits for a `--version` probe: a slow CLI must not stall session_start. */
const DIAGNOSE_VERSION_WAIT_MS = 1000;
/** The bound on a diagnosis's own filesystem checks. */
const DIAGNOSE_CHECKS_TIMEOUT_MS = 5000;

/**
 * Read-only readiness of a workspace `cwd` (checked on behalf of Pi's `workspace` when it is
 * another root), with `packageCli` the CLI beside the package, when set: which `codegraph` would
 * run (and its version), the index, and the first problem (not installed before not indexed).
 */
async function diagnose(cwd, workspace, packageCli) {
  const here = typeof cwd === "string" ? cwd : "";
  // Pi's workspace, when cwd is another root: only an absolute path counts, as in the addon.
  const onBehalfOf = typeof workspace === "string" && path.isAbsolute(workspace) ? workspace : null;
  const args = [here, onBehalfOf, Object.entries({ ...process.env }).flat(), packageCli ?? null];
  let found;
  try {
    found = await coreChecked("surveyWorkspace", args, performance.now() + DIAGNOSE_CHECKS_TIMEOUT_MS);
  } catch (p) {
    // The checks did not answer in time (a hung mount), or the core could not run them.
    const problem =
      p?.code === "CODEGRAPH_TIMEOUT"
        ? badWorkspace("", { is: "unanswered" })
        : p instanceof Problem
          ? p
          : badWorkspace("", { is: "other", text: osText(p) });
    const empty = { executableInWorkspace: false, executableBesidePackage: false, envDropped: [] };
    return { cwd: here, ready: false, ...empty, problem: { code: problem.code, facts: problem.facts } };
  }
  const d = found.diagnosis;
  if (found.launch) {
    const deadline = performance.now() + DIAGNOSE_VERSION_WAIT_MS;
    const probe = startVersionProbe(found.launch, found.workspace, childEnvOf(found.childEnv), deadline);
    const v = await probe.within(DIAGNOSE_VERSION_WAIT_MS + 600);
    Object.assign(d, { cliVersion: v?.text, cliVersionSource: v?.source });
  }
  return withoutUndefined(d);
}

module.exports = { diagnose };
