// diagnose(): read-only readiness of a workspace, as the addon's (crates/core/src/command_run/diagnose.rs): what an
// explore would find, without running one and without writing anything. Its problems are facts
// (`{ code, facts }`), as the addon's are; lib/api/failures.js words them.

const path = require("node:path");
const { discover } = require("../discovery.js");
const { Problem, badWorkspace, indexBusy, indexInterrupted, osText } = require("../../../contract/problems.js");
const { withoutUndefined } = require("../../../contract/text.js");
const { indexDirOf } = require("../../../contract/index-dir.js");
const { activeWriter, interruptedWrite } = require("../index-writer.js");
const { childEnv } = require("../environment.js");
const { allowExternal, checkIndex, checkWorkspace, homesOf } = require("../preflight.js");
const { resolvedPath } = require("../../../contract/files.js");
const { checkRemovable, checkWriteTarget, ownEntries } = require("../write-target.js");
const { ownGitHooks } = require("../git-hooks.js");
const { packageVersion, startVersionProbe } = require("../version.js");

/** How long diagnose() waits for a `--version` probe: a slow CLI must not stall session_start. */
const DIAGNOSE_VERSION_WAIT_MS = 1000;
/** The bound on a diagnosis's own filesystem checks. */
const DIAGNOSE_CHECKS_TIMEOUT_MS = 5000;

/**
 * Read-only readiness of a workspace, without running an explore: which `codegraph` would run
 * (and its version), the index, and the first problem (not installed before not indexed).
 */
async function diagnose(cwd, workspace) {
  const userEnv = { ...process.env };
  // Pi's workspace, when cwd is another root: only an absolute path counts, as in the addon.
  const onBehalfOf = typeof workspace === "string" && path.isAbsolute(workspace) ? workspace : undefined;
  const d = {
    cwd: typeof cwd === "string" ? cwd : "",
    ready: false,
    executableInWorkspace: false,
    executableBesidePackage: false,
    envDropped: [],
  };
  let problem;
  const checks = (async () => {
    const workspace = await checkWorkspace(d.cwd);
    const home = await resolvedPath(workspace);
    const homes = await homesOf(home, onBehalfOf);
    const indexDir = await indexDirOf(workspace, home, userEnv);
    const index = await checkIndex(workspace, home, userEnv)
      .then((found) => ownEntries(workspace, home, userEnv, found))
      .catch((p) => ({ problem: p }));
    const name = path.basename(indexDir);
    // As a write would be checked: a link is accepted only for an index the user accepts.
    const accept = !index.problem && allowExternal(userEnv);
    const refusals = {
      write: await checkWriteTarget(workspace, home, name, accept).catch((p) => p),
      remove: await checkRemovable(workspace, name).catch((p) => p),
    };
    const launch = await discover(homes, userEnv)
      .then(async (l) => Object.assign(l, { packageVersion: await packageVersion(l) }))
      .catch((p) => ({ problem: p }));
    const writer = index.problem ? null : await activeWriter(index.dir);
    // No writer now, but its lock is left: the last write never finished.
    const interrupted = index.problem || writer ? null : await interruptedWrite(index.dir).catch(() => null);
    const child = await childEnv(userEnv, homes);
    const gitHooksDir = await ownGitHooks(workspace, home);
    return { workspace, indexDir, index, launch, writer, interrupted, child, refusals, gitHooksDir };
  })();
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(badWorkspace("", { is: "unanswered" })), DIAGNOSE_CHECKS_TIMEOUT_MS);
  });
  try {
    const { workspace, indexDir, index, launch, writer, interrupted, child, refusals, gitHooksDir } =
      await Promise.race([checks, late]);
    clearTimeout(timer);
    d.envDropped = child.dropped;
    d.indexDir = indexDir;
    if (gitHooksDir) d.gitHooksDir = gitHooksDir;
    for (const [field, p] of [
      ["write", refusals.write],
      ["remove", refusals.remove],
    ])
      if (p) d[`${field}Problem`] = factsOf(asProblem(p, workspace));
    if (launch.problem) {
      problem = launch.problem;
      d.executableProblem = factsOf(launch.problem);
    } else {
      const probe = startVersionProbe(launch, workspace, child.env, performance.now() + DIAGNOSE_VERSION_WAIT_MS);
      const v = await probe.within(DIAGNOSE_VERSION_WAIT_MS + 600);
      Object.assign(d, { cliVersion: v?.text, cliVersionSource: v?.source });
      d.executableInWorkspace = launch.inWorkspace;
      d.executableBesidePackage = launch.besidePackage === true;
      if (launch.bundle) d.launcher = launch.bundle.launcher;
      d.executable = launch.executable;
    }
    if (index.problem) {
      const p = asProblem(index.problem, workspace);
      const kind = p.facts.kind;
      if (kind?.is === "missing" && kind.ancestor) d.ancestorIndex = kind.ancestor;
      d.indexProblem = factsOf(p);
      problem ??= p;
    } else Object.assign(d, { indexPath: index.dir, indexResolved: index.resolved, indexBytes: index.bytes });
    // An explore now would wait for the writer and may give up: not ready, and why.
    if (writer) {
      const busy = indexBusy(writer, 0);
      d.indexProblem = factsOf(busy);
      problem ??= busy;
    }
    if (interrupted) {
      const unfinished = indexInterrupted(interrupted);
      d.indexProblem = factsOf(unfinished);
      problem ??= unfinished;
    }
  } catch (p) {
    clearTimeout(timer);
    problem = p;
  }
  d.ready = !problem;
  if (problem) d.problem = factsOf(asProblem(problem, ""));
  return withoutUndefined(d);
}

/** A Problem as the addon hands one over: `{ code, facts }`. */
const factsOf = (p) => ({ code: p.code, facts: p.facts });

/** A Problem as it is; anything else (a bug) as the workspace's problem, in its own words. */
const asProblem = (p, workspace) =>
  p instanceof Problem ? p : badWorkspace(workspace, { is: "other", text: osText(p) });

module.exports = { diagnose };
