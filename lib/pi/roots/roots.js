// The roots a session's tools answer from: the workspace's own index (label "."), the indexes
// the bounded scan finds below it (lib/pi/roots/scan.js), and the directories the user added with
// `/codegraph projects add` (saved per project in Pi's agent directory, never in the workspace).
// CodeGraph only walks up from its cwd, and its paths are relative to the root that answered: a
// call runs with cwd = the root's directory, and an answer from any root but the workspace
// begins with one line saying how its paths become paths Pi's `read` accepts. The model picks a
// root by its label; it never names a path.

const path = require("node:path");
const { inOtherWorktree, worktreeOf } = require("./worktree-of.js");
const { invalidArgument: argumentError } = require("../../api/failures.js");
const { isWithin } = require("../../contract/files.js");
const { WORKSPACE_LABEL, markOffered, rootLabel } = require("./labels.js");
const { hasIndex } = require("./index-probe.js");
const { readSaved, savedFile, saveJson } = require("../tools/choice.js");

/** At most this many roots the user can add to one project (each is diagnosed before every turn). */
const MAX_ADDED_ROOTS = 16;

const toPosix = (p) => p.split(path.sep).join("/");
/** Whether `dir` is `workspace` or below it (the runner's rule: a `..cache` directory is inside). */
const within = (workspace, dir) => isWithin(dir, workspace);

/**
 * The roots of `workspace`: its own (when `own`), then the `scanned` directories, then the
 * `added` ones (each absolute), each `{ label, dir, source: "workspace" | "scan" | "added", inside }`.
 * A directory listed twice is one root (the first source). Its label depends on the workspace and
 * the directory only (lib/pi/roots/labels.js), never on the order the roots were found or added in;
 * two directories whose lossy labels' hashes collide are told apart by `-2`, `-3`… in the order
 * of their paths.
 */
function rootList(workspace, { own = false, scanned = [], added = [] } = {}) {
  const ws = path.resolve(workspace);
  const roots = [];
  const dirs = new Set();
  const push = (dir, source) => {
    const abs = path.resolve(dir);
    if (dirs.has(abs)) return;
    dirs.add(abs);
    roots.push({ label: rootLabel(ws, abs), dir: abs, source, inside: within(ws, abs) });
  };
  if (own) push(ws, "workspace");
  for (const dir of scanned) push(dir, "scan");
  for (const dir of added) push(dir, "added");
  const labels = new Set();
  for (const r of [...roots].sort((x, y) => (x.dir < y.dir ? -1 : x.dir > y.dir ? 1 : 0))) {
    const base = r.label;
    for (let n = 2; labels.has(r.label); n += 1) r.label = `${base}-${n}`;
    labels.add(r.label);
  }
  return roots;
}

/**
 * rootList()'s roots, each with `indexed`: whether it has an index now (the workspace's own, as
 * the caller found it; any other by its content, lib/pi/roots/scan.js), and `offered`: whether the
 * model is offered it (lib/pi/roots/labels.js markOffered). What the session re-checks before every
 * turn and doctor lists.
 */
async function indexedRoots(workspace, lists) {
  const roots = rootList(workspace, lists);
  await Promise.all(
    roots.map(async (r) => {
      r.indexed = r.source === "workspace" || (await hasIndex(r.dir));
    }),
  );
  return markOffered(roots, lists?.added ?? []);
}

/**
 * The root a tool call runs in: `project` (a label of `roots`, the indexed ones) or, without one,
 * the only root, else the workspace's own. `null`: there are no roots (the workspace as it is:
 * the runner says what is missing). A label that is not one of them, or none where the workspace
 * has no index of its own and several roots exist, is CODEGRAPH_INVALID_REQUEST for `tool`.
 */
function rootFor(roots, project, tool) {
  const values = roots.map((r) => r.label);
  if (project === undefined || project === null) {
    if (roots.length <= 1) return roots[0] ?? null;
    const own = roots.find((r) => r.label === WORKSPACE_LABEL);
    if (own) return own;
    throw argumentError(tool, "project", "required", { values });
  }
  if (typeof project !== "string") throw argumentError(tool, "project", "notString");
  const root = roots.find((r) => r.label === project);
  if (!root) throw argumentError(tool, "project", "enum", { values });
  return root;
}

/** What `/codegraph projects add` saved for `workspace`: `{ dirs }`, `{ dirs: [], problem }`, or `{ dirs: [] }`. */
function loadAddedRoots(agentDir, workspace) {
  // Anything but a regular JSON file is ignored, and said (readSaved).
  const { file, data, absent, problem } = readSaved(agentDir, workspace, "roots");
  if (absent) return { dirs: [] };
  if (problem) return { dirs: [], problem };
  if (!Array.isArray(data?.roots)) return { dirs: [], problem: `${file}: no roots list` };
  // Only absolute paths without NUL: a file edited by hand cannot add a relative or odd one.
  const dirs = data.roots.filter((d) => typeof d === "string" && path.isAbsolute(d) && !d.includes("\0"));
  // Never another worktree of the workspace's repository (its index answers for another branch).
  const own = worktreeOf(workspace);
  const ours = dirs.map((d) => path.resolve(d)).filter((d) => !inOtherWorktree(d, own));
  return { dirs: [...new Set(ours)].slice(0, MAX_ADDED_ROOTS) };
}

/** Saves the added roots of `workspace` (temp file, then rename). Returns the file or throws. */
function saveAddedRoots(agentDir, workspace, dirs) {
  const data = { project: path.resolve(workspace), roots: dirs, savedAt: new Date().toISOString() };
  return saveJson(savedFile(agentDir, workspace, "roots"), data);
}

/**
 * How a root's paths relate to the workspace: `null` for the workspace itself, else
 * `{ label, prefix }` (the workspace-relative prefix, `packages/api/`) and, for a root outside
 * the workspace, `absolute` (its absolute path with a trailing separator) — the facts of the line
 * an answer from it begins with (lib/words/roots.js).
 */
function pathFacts(root, workspace) {
  if (!root || typeof workspace !== "string") return null;
  const ws = path.resolve(workspace);
  if (root.dir === ws) return null;
  const prefix = `${toPosix(path.relative(ws, root.dir))}/`;
  return root.inside ? { label: root.label, prefix } : { label: root.label, prefix, absolute: root.dir + path.sep };
}

module.exports = {
  MAX_ADDED_ROOTS,
  WORKSPACE_LABEL,
  indexedRoots,
  loadAddedRoots,
  pathFacts,
  rootFor,
  rootList,
  saveAddedRoots,
};
