// The session's ledger of files changed after the index that covers them: those Pi's own edit
// and write tools report (`tool_result`), and those the walk after a shell command or before a
// turn finds (lib/api/disk-changes.js). Nothing is read but the index files' mtimes.

const os = require("node:os");
const path = require("node:path");
const { STALE_CHECK_MS, indexWrittenAt, isInside, namesOf, notCode, staleCheckBy } = require("./staleness.js");

/** Pi's own path rule for its edit/write tools: a leading `@` dropped, `~` the home directory. */
function piToolPath(p, cwd) {
  let s = p.startsWith("@") ? p.slice(1) : p;
  if (s === "~") s = os.homedir();
  else if (s.startsWith("~/")) s = os.homedir() + s.slice(1);
  return path.resolve(cwd, s);
}

/** The deepest of `dirs` that holds `file` (each absolute), or undefined. */
function coveringDir(dirs, file) {
  let best;
  for (const dir of dirs) if ((file === dir || isInside(dir, file)) && (!best || dir.length > best.length)) best = dir;
  return best;
}

/**
 * At most this many edited files are tracked one by one. The count only says "the index is
 * behind"; past a thousand files (a mass rename, generated code) the answer is the same
 * (/codegraph sync), while every file kept costs memory and the turn's recheck a pass over it,
 * and every new count a status update (a message to an rpc client). Past it the count shows as
 * "1000+" and only the latest untracked edit per root is kept (as many as there are roots).
 */
const MAX_EDITS_TRACKED = 1000;

/**
 * A session's ledger of the files Pi's own `edit` and `write` tools changed after the index that
 * covers them was last written. `note(event, cwd, roots)` takes a `tool_result` event (an error
 * result, another tool, a path outside every root in `roots` (the directories the tools answer
 * from; none: the workspace `cwd`, against which a relative path is resolved), or under a
 * .codegraph/, an index directory the last recheck was told of, or .git/ there is not counted)
 * and says whether it counted; `recheck(roots)` (the roots with an index, each `{ dir, indexDir }`
 * with the index directory its diagnosis found; a bare directory has none) stats each root's
 * index (bounded) and drops the
 * edits its index is newer than, and those no root covers; `count()` is how many unique files
 * are counted now (the tracked ones, at most MAX_EDITS_TRACKED), `files()` which (absolute, in
 * the order first edited), and `more()` whether edits past
 * that bound are still newer than their index (`count()` is then "at least", and at least 1).
 * Nothing is read but the index files' mtimes.
 */
function createEditLedger({ deadlineMs = STALE_CHECK_MS, maxTracked = MAX_EDITS_TRACKED } = {}) {
  const edits = new Map(); // absolute path → when the tool reported it (ms)
  const untracked = new Map(); // root → the latest edit there past the bound (ms)
  const cuts = new Map(); // root → how the last walk there was cut ({ stopped, filesSeen })
  let indexed = new Map(); // root directory → when its index was last written (ms), or null
  let indexNames = []; // the names of the roots' index directories, as the last recheck was told
  /** Whether an edit at `at` in `root` (undefined: no root covers it) is not newer than that root's index. */
  const behind = (root, at) => root === undefined || (indexed.get(root) !== null && at <= indexed.get(root));
  const drop = () => {
    if (indexed.size === 0) return;
    const dirs = [...indexed.keys()];
    for (const [file, at] of edits) if (behind(coveringDir(dirs, file), at)) edits.delete(file);
    for (const [root, at] of untracked) if (behind(coveringDir(dirs, root), at)) untracked.delete(root);
  };
  return {
    note(event, cwd, roots = []) {
      if (!event || event.isError || (event.toolName !== "edit" && event.toolName !== "write")) return false;
      const p = event.input?.path;
      if (typeof p !== "string" || p === "" || p.includes("\0") || typeof cwd !== "string") return false;
      const file = piToolPath(p, cwd);
      // As recheck() sees them: an edit no root covers (a monorepo's own files) is not counted.
      const within = roots.length > 0 ? roots.map((r) => path.resolve(r)) : [path.resolve(cwd)];
      const root = coveringDir(within, file);
      if (root === undefined || root === file) return false;
      const first = path.relative(root, file).split(path.sep)[0];
      if (notCode(first, indexNames)) return false;
      if (edits.has(file) || edits.size < maxTracked) edits.set(file, Date.now());
      else untracked.set(root, Date.now());
      return true;
    },
    /**
     * Files a walk found written after `root`'s index (absolute; `more`: it found more than it
     * listed), counted as edits from now; `cut` (`{ stopped, filesSeen }` or null): how a bound
     * ended that walk, kept until the next walk of `root`. True when the count or the cut changed.
     */
    noteChanged(root, files, more = false, cut = null) {
      const before = edits.size + untracked.size;
      const dir = path.resolve(root);
      const cutBefore = JSON.stringify(cuts.get(dir) ?? null);
      if (cut) cuts.set(dir, cut);
      else cuts.delete(dir);
      const cutChanged = JSON.stringify(cut ?? null) !== cutBefore;
      for (const file of files) {
        if (edits.has(file)) continue;
        if (edits.size < maxTracked) edits.set(file, Date.now());
        else untracked.set(dir, Date.now());
      }
      if (more) untracked.set(dir, Date.now());
      return edits.size + untracked.size !== before || cutChanged;
    },
    async recheck(roots) {
      const list = (typeof roots === "string" ? [roots] : Array.isArray(roots) ? roots : []).map((r) =>
        typeof r === "string" ? { dir: r } : r,
      );
      const dirs = list.map((r) => path.resolve(r.dir));
      indexNames = [...new Set(list.flatMap((r) => namesOf(r.indexDir)))];
      if ((edits.size > 0 || untracked.size > 0) && dirs.length > 0) {
        const at = await staleCheckBy(
          () => Promise.all(list.map((r) => indexWrittenAt(r.indexDir))),
          deadlineMs,
          undefined,
        );
        // A check that did not answer keeps what was known.
        if (at !== undefined) indexed = new Map(dirs.map((d, i) => [d, at[i]]));
        drop();
      }
      return edits.size;
    },
    count: () => (edits.size === 0 && untracked.size > 0 ? 1 : edits.size),
    /** The tracked files counted now (absolute), in the order first edited. */
    files: () => [...edits.keys()],
    /** The tracked files counted now that were noted after `ms` (a Date.now() time). */
    filesNotedAfter: (ms) => [...edits].filter(([, at]) => at > ms).map(([file]) => file),
    more: () => untracked.size > 0 || cuts.size > 0,
    /** How the last walk was cut (`{ stopped, filesSeen }`: the first root's), or null: then the count is a lower bound. */
    cut: () => cuts.values().next().value ?? null,
  };
}

module.exports = { MAX_EDITS_TRACKED, coveringDir, createEditLedger };
