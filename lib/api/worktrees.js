// The git worktrees of the workspace's repository (`git worktree list --porcelain`, through the
// runner's git with CodeGraph's rules), the indexes of the other worktrees a new one may start
// from, and whether a copied index is this repository's (its files are here). Facts only: the
// flow and its words are lib/pi/commands/worktree-init.js's.

const fs = require("node:fs");
const path = require("node:path");
const { methodOf } = require("../contract/runner-methods.js");
const { indexFilesCommand } = require("../contract/commands.js");
const { toplevelCommand, worktreesCommand } = require("../contract/git.js");
const { canonicalPath, isWithin } = require("../contract/files.js");
const { indexedFiles } = require("./changed-files.js");

/** At most this many of a copied index's files are looked for in the worktree. */
const MAX_FILES_CHECKED = 400;
/** A copied index is this repository's when at least this share of its files checked are here. */
const HERE_AT_LEAST = 0.5;

/** `git worktree list --porcelain` → `[{ dir, head, branch, bare, detached, prunable }]` (branch without refs/heads/). */
function parseWorktrees(text) {
  const list = [];
  for (const block of String(text).split(/\n\s*\n/)) {
    const entry = {};
    for (const line of block.split("\n")) {
      const space = line.indexOf(" ");
      const [key, value] = space === -1 ? [line, ""] : [line.slice(0, space), line.slice(space + 1)];
      if (key === "worktree") entry.dir = value;
      else if (key === "HEAD") entry.head = value;
      else if (key === "branch") entry.branch = value.replace(/^refs\/heads\//, "");
      else if (key === "bare" || key === "detached" || key === "prunable" || key === "locked") entry[key] = true;
    }
    if (entry.dir && path.isAbsolute(entry.dir)) list.push(entry);
  }
  return list;
}

/** `p` (made absolute) with its links resolved (contract/files.js canonicalPath). */
const real = (p) => canonicalPath(path.resolve(p));

/**
 * The worktree `cwd` is in and the repository's others: `{ own: { dir, branch? }, others: [...],
 * relative }` (`relative`: `cwd` below its worktree's top, "" at the top), or null where git
 * cannot say (no git, not a repository, a runner without git). Bare and prunable entries are
 * left out of `others`.
 */
async function worktreesOf(runner, cwd, signal) {
  const runGit = methodOf(runner, "runGit");
  if (!runGit) return null;
  let top;
  let list;
  try {
    top = (await runGit(toplevelCommand(), cwd, signal ?? null)).text.trim();
    list = parseWorktrees((await runGit(worktreesCommand(), cwd, signal ?? null)).text);
  } catch {
    return null;
  }
  if (!top || !path.isAbsolute(top)) return null;
  const ownReal = real(top);
  const own = list.find((w) => real(w.dir) === ownReal) ?? { dir: top };
  const others = list.filter((w) => real(w.dir) !== ownReal && !w.bare && !w.prunable);
  return { own, others, relative: path.relative(ownReal, real(cwd)) };
}

/**
 * The other worktrees' indexes `cwd` could start from: for each other worktree, the directory
 * that is `cwd`'s counterpart there, diagnosed by `diagnose(dir)` (read-only); those with a
 * ready index of their own, as `{ worktree, dir, diagnosis }`, in git's order (the main one first).
 */
async function siblingIndexes(worktrees, diagnose) {
  if (!worktrees || worktrees.relative.startsWith("..")) return [];
  const found = await Promise.all(
    worktrees.others.map(async (worktree) => {
      const dir = path.join(worktree.dir, worktrees.relative);
      const diagnosis = await diagnose(dir).catch(() => null);
      return diagnosis?.ready && diagnosis.hasIndex ? { worktree, dir, diagnosis } : null;
    }),
  );
  return found.filter(Boolean);
}

/**
 * Whether the index in `cwd` (just copied there) is this repository's: its files, as `codegraph
 * files` lists them (`run`: the package's run()), looked for in `cwd` (at most MAX_FILES_CHECKED,
 * spread over the list). `{ listed, checked, here, ours }`; `ours` false also when the list
 * cannot be read.
 */
async function indexFilesHere(run, cwd, signal) {
  let rows = null;
  try {
    rows = indexedFiles((await run(indexFilesCommand(), cwd, signal)).text);
  } catch {}
  if (!rows || rows.length === 0) return { listed: rows?.length ?? 0, checked: 0, here: 0, ours: false };
  const step = Math.max(1, Math.floor(rows.length / MAX_FILES_CHECKED));
  const sample = rows.filter((_, i) => i % step === 0).slice(0, MAX_FILES_CHECKED);
  // Here: a file of that name below the workspace (its size may differ on this branch).
  const isHere = async (rel) => {
    const file = path.resolve(cwd, rel);
    if (!isWithin(file, cwd) || file === path.resolve(cwd)) return false;
    return (await fs.promises.stat(file).catch(() => null))?.isFile() === true;
  };
  const here = (await Promise.all(sample.map((row) => isHere(row.path)))).filter(Boolean).length;
  return { listed: rows.length, checked: sample.length, here, ours: here >= sample.length * HERE_AT_LEAST };
}

module.exports = { indexFilesHere, parseWorktrees, siblingIndexes, worktreesOf };
