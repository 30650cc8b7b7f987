// codegraph_changes: what the working tree's changes touch, and what that breaks. The changes are
// git's (`diff HEAD --unified=0`, staged and unstaged, plus untracked files; a repository without
// a commit: every file new), or, outside git (or without git), the files written since the index
// (lib/api/disk-changes.js). Their changed lines are mapped to the definitions that hold them (the
// runner's outline of each file), and for each such symbol CodeGraph's `impact --json` says what
// depends on it and `affected --json` which test files depend on its file. Where the graph has
// nothing (a symbol the index lacks, an index older than the change, no dependents), the source
// scan says where the name is mentioned, as text matches. Nothing here writes the index.
//
// Every process is bounded: at most MAX_IMPACTS impacts and MAX_AFFECTED affected runs, at most
// PARALLEL at once (and the index's admission queue on top), each run once.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { affectedDataCommand, impactDataCommand } = require("../contract/commands.js");
const { diffHeadCommand, headCommand, trackedCommand, untrackedCommand } = require("../contract/git.js");
const { callerTests, mentions, placeMentions, rankTests } = require("./change-mentions.js");
const { IMPACT_KINDS, impactOf, testsOf, touchedDefinitions } = require("./changed-symbols.js");
const { isIndexedLanguage, parseDiff, parseFileList } = require("./git-diff.js");
const { indexWrittenAt } = require("./staleness.js");
const { DEFAULT_INDEX_DIR } = require("../contract/index-dir.js");

/** At most this many changed files are outlined and listed (the outline's own bound is 500). */
const MAX_FILES = 200;
/** At most this many `impact` runs a call, and this many `affected` runs (one a file). */
const MAX_IMPACTS = 8;
const MAX_AFFECTED = 6;
/** Runs at once (the index's admission queue bounds them again). */
const PARALLEL = 3;
/** The default depth of impact (CodeGraph's own), and the most a call may ask. */
const DEFAULT_DEPTH = 2;
const MAX_DEPTH = 4;

/** `items` through `fn`, at most `limit` at once, results in order. */
async function pooled(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The git reason of a CODEGRAPH_GIT failure (`rev-parse --verify --quiet HEAD` exits 1, silent, without a commit). */
function gitReason(err) {
  if (err?.code !== "CODEGRAPH_GIT") return null;
  const r = err.facts?.reason ?? err.details?.reason;
  if (r?.is === "exit" && r.exitCode === 1 && !String(r.stderrTail ?? "").trim()) return "noHead";
  return r?.is ?? "exit";
}

/**
 * What changed, from git: `{ source: "git" | "gitNoHead", files: [{ path, ranges, whole, state }],
 * cut }`; or `{ source: "index", gitProblem }` when git cannot say (not a repository, no git).
 * Any other git failure rejects.
 */
async function gitChanges(deps, cwd, signal) {
  let head = true;
  try {
    await deps.runGit(headCommand(), cwd, signal);
  } catch (err) {
    const reason = gitReason(err);
    if (reason === "noHead") head = false;
    else if (reason === "notRepository" || reason === "notFound") return { source: "index", gitProblem: err };
    else throw err;
  }
  const [diff, untracked, tracked] = await Promise.all([
    head ? deps.runGit(diffHeadCommand(), cwd, signal) : null,
    deps.runGit(untrackedCommand(), cwd, signal),
    head ? null : deps.runGit(trackedCommand(), cwd, signal),
  ]);
  const files = [];
  for (const f of diff ? parseDiff(diff.text) : []) {
    const state = f.deleted ? "deleted" : f.added ? "added" : "modified";
    files.push({ path: f.path, ranges: f.ranges, whole: f.added, state });
  }
  for (const p of parseFileList(untracked.text)) files.push({ path: p, ranges: [], whole: true, state: "untracked" });
  for (const p of tracked ? parseFileList(tracked.text) : [])
    files.push({ path: p, ranges: [], whole: true, state: "added" });
  const cut = Boolean(diff?.truncated || untracked.truncated || tracked?.truncated);
  return { source: head ? "git" : "gitNoHead", files, cut };
}

/** The files written since the index (outside git): whole files, workspace-relative. */
async function indexChanges(deps, cwd) {
  const diagnosis = await deps.diagnose(cwd).catch(() => null);
  const indexDir = diagnosis?.indexDir;
  if (!indexDir) return { files: [], indexDir: null, cut: false };
  const [found] = await deps.changedSince([{ dir: cwd, indexDir }]).catch(() => []);
  const files = (found?.files ?? []).map((abs) => ({
    path: path.relative(cwd, abs).split(path.sep).join("/"),
    ranges: [],
    whole: true,
    state: "changedSinceIndex",
  }));
  return { files, indexDir, cut: Boolean(found?.more || found?.cut) };
}

/** Which of `files` were written after the index was (`indexMs`), by their mtimes. */
async function newerThanIndex(cwd, files, indexMs) {
  if (indexMs === null) return [];
  const newer = await Promise.all(
    files.map((f) =>
      f.state === "deleted"
        ? false
        : fsp.stat(path.join(cwd, ...f.path.split("/"))).then(
            (st) => st.mtimeMs > indexMs,
            () => false,
          ),
    ),
  );
  return files.filter((_, i) => newer[i]).map((f) => f.path);
}

/**
 * The answer's facts for the workspace `cwd` (see lib/words/changes.js for how they read). `deps`:
 * `{ runGit, runData, outline?, scan?, diagnose, changedSince }` (lib/api/calls.js passes the
 * runner's); `params`: `{ depth? }`.
 */
async function changesFacts(deps, cwd, params, signal) {
  const depth = Math.min(MAX_DEPTH, Math.max(1, Number.isInteger(params?.depth) ? params.depth : DEFAULT_DEPTH));
  const fromGit = await gitChanges(deps, cwd, signal);
  let { files, cut } = fromGit;
  let indexDir = null;
  if (fromGit.source === "index") ({ files, indexDir, cut } = await indexChanges(deps, cwd));
  const facts = { source: fromGit.source, depth, gitProblem: fromGit.gitProblem, cut };
  const own = files.filter((f) => !f.path.startsWith(`${DEFAULT_INDEX_DIR}/`));
  const indexed = own.filter((f) => isIndexedLanguage(f.path));
  facts.otherFiles = own.length - indexed.length;
  facts.filesNotListed = Math.max(0, indexed.length - MAX_FILES);
  const listed = indexed.slice(0, MAX_FILES);
  const readable = listed.filter((f) => f.state !== "deleted").map((f) => f.path);
  const outline =
    typeof deps.outline === "function" && readable.length
      ? await deps.outline(cwd, { paths: readable }, signal).catch(() => null)
      : null;
  facts.outlined = outline !== null;
  const byPath = new Map((outline?.files ?? []).map((o) => [o.path, o]));
  facts.files = listed.map((f) => ({ ...f, ...touchedDefinitions(f, byPath.get(f.path)) }));

  // What CodeGraph says: impact of the first MAX_IMPACTS symbols, affected tests of the first files.
  const asked = facts.files.flatMap((f) =>
    f.symbols.filter((s) => IMPACT_KINDS.has(s.kind) && f.state !== "untracked").map((s) => ({ f, s })),
  );
  const impacts = asked.slice(0, MAX_IMPACTS);
  facts.impactsNotAsked = asked.length - impacts.length;
  const testable = facts.files.filter((f) => f.state !== "untracked" && f.state !== "added");
  const affected = testable.slice(0, MAX_AFFECTED);
  facts.testsNotAsked = testable.length - affected.length;
  // The source scan for the changed names begins with CodeGraph's runs (one scan for all): where
  // the graph is blind it says where the names are; elsewhere, the lines the graph does not list.
  const searchedNames = [...new Set(facts.files.flatMap((f) => f.symbols.map((s) => s.name)))];
  const scanning = mentions(deps, cwd, searchedNames, signal);
  // The repository's files: test files named like a changed file that affected does not list.
  const trackedList = fromGit.source === "git" ? deps.runGit(trackedCommand(), cwd, signal).catch(() => null) : null;
  const jobs = [
    ...impacts.map(({ f, s }) => async () => {
      const out = await deps.runData(impactDataCommand(s.name, f.path, depth), cwd, signal).catch((err) => {
        s.impact = { failed: String(err?.code ?? "CODEGRAPH_SPAWN") };
        throw err;
      });
      indexDir ??= out.details?.indexDir ?? null;
      s.impact = out.details?.truncated ? null : impactOf(out.text, f.path, s.line);
    }),
    ...affected.map((f) => async () => {
      const out = await deps.runData(affectedDataCommand(f.path), cwd, signal).catch((err) => {
        f.testsFailed = String(err?.code ?? "CODEGRAPH_SPAWN");
        throw err;
      });
      indexDir ??= out.details?.indexDir ?? null;
      f.tests = out.details?.truncated ? null : testsOf(out.text);
    }),
  ];
  // One failed run leaves its symbol or file unanswered (said); a call whose every run failed (no
  // CLI, no index, cancelled) is that failure.
  const failed = await pooled(jobs, PARALLEL, (job) =>
    job().then(
      () => null,
      (err) => err,
    ),
  );
  const errors = failed.filter(Boolean);
  const cancelled = errors.find((e) => e?.code === "CODEGRAPH_CANCELLED");
  if (cancelled || (jobs.length > 0 && errors.length === jobs.length)) throw cancelled ?? errors[0];

  // The index's age against the change: answers from an older index are said to be.
  const indexMs = indexDir ? await indexWrittenAt(indexDir) : null;
  facts.indexMs = indexMs;
  facts.newerThanIndex = await newerThanIndex(cwd, facts.files, indexMs);
  // Where the graph is blind, the scan's lines for the name; where it answered, the lines it does not list.
  const stale = new Set(facts.newerThanIndex);
  const found = await scanning;
  for (const f of facts.files) {
    for (const s of f.symbols) {
      if (!found.searched.includes(s.name)) continue;
      const blind =
        s.impact === undefined ||
        s.impact === null ||
        s.impact.found === false ||
        s.impact.failed ||
        s.impact.dependents.length === 0 ||
        stale.has(f.path);
      const listed = new Set(blind ? [] : s.impact.dependents.map((d) => d.callAt).filter(Boolean));
      const own = found.byName
        .get(s.name)
        .filter(
          (m) => (m.line < s.line || m.line > s.endLine || m.path !== f.path) && !listed.has(`${m.path}:${m.line}`),
        );
      if (!blind && own.length === 0) continue;
      s.mentions = own;
      if (!blind) s.mentionsBeyond = true;
      if (found.cut) s.mentionsCut = found.cut;
    }
  }
  // Each text match with the definition that holds it (the outline's), the likeliest uses first;
  // each file's tests, those that cover a changed symbol first, and those that name its callers most.
  await placeMentions(deps, cwd, facts.files, signal);
  await callerTests(deps, cwd, facts.files, signal);
  const tracked = parseFileList((await trackedList)?.text ?? "");
  for (const f of facts.files) if (Array.isArray(f.tests)) f.ranked = rankTests(f, tracked);
  return facts;
}

module.exports = { DEFAULT_DEPTH, MAX_DEPTH, changesFacts };
