// Discovery of the indexes below the workspace (issue 24): a bounded, breadth-first scan for
// `<dir>/.codegraph/codegraph.db`, the rule of CodeGraph's own sub-project scan (1.6.1
// dist/directory.js `findIndexedSubprojectRoots`, gated by `eligibleForSubprojectScan`) with hard
// bounds of our own on directories read and time. Metadata and a bounded read of the schema pages only (lib/pi/roots/index-probe.js): no SQLite is
// opened (this process holds no SQLite connection, so closing our descriptor drops no lock), no
// symlink is followed and no FIFO, socket or device is opened, so nothing in the tree can make it
// block or loop. It never throws: what could not be read is counted and skipped.

const fsp = require("node:fs/promises");
const os = require("node:os");
const path = require("node:path");
const { IS_WINDOWS, MAX_TIMEOUT_MS } = require("../../contract/limits.js");
const { DEFAULT_INDEX_DIR, WSL_INDEX_DIR, indexDirName } = require("../../contract/index-dir.js");
const { isWithin, resolvedPath } = require("../../contract/files.js");
const { hasIndex } = require("./index-probe.js");
const { inOtherWorktree, worktreeOf } = require("./worktree-of.js");

/**
 * Depth and count are upstream's (maxDepth 4: an index in a directory four levels below the
 * workspace is found; max 64 roots). maxDirs and deadlineMs are ours: upstream's walk is bounded
 * by depth alone, which on a wide tree (thousands of packages) is still a crawl.
 */
const SCAN_LIMITS = Object.freeze({ maxDepth: 4, maxRoots: 64, maxDirs: 20000, deadlineMs: 2000 });
/** Directories listed at once: keeps libuv's pool busy without taking all of it from the session. */
const SCAN_CONCURRENCY = 8;

/** Upstream's SUBPROJECT_SCAN_SKIP: heavy or generated directories never descended into. */
const SCAN_SKIP = new Set([
  "node_modules",
  ".git",
  ".svn",
  ".hg",
  "dist",
  "build",
  "out",
  "target",
  "vendor",
  "bin",
  "obj",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".cache",
  "coverage",
  ".venv",
  "venv",
  "__pycache__",
  ".turbo",
  ".idea",
  ".vscode",
  "tmp",
  "temp",
]);

/**
 * Upstream's WORKSPACE_ROOT_MANIFESTS plus `.git` (a file in a git worktree or submodule, else a
 * directory), as eligibleForSubprojectScan accepts: a workspace holding only agent config and a
 * `.git`, its manifests in the indexed children, is still a project.
 */
const PROJECT_MARKERS = Object.freeze([
  "package.json",
  "pnpm-workspace.yaml",
  "lerna.json",
  "nx.json",
  "turbo.json",
  "go.work",
  "go.mod",
  "Cargo.toml",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "pyproject.toml",
  "composer.json",
  "Gemfile",
  "rush.json",
  "WORKSPACE",
  "WORKSPACE.bazel",
  ".git",
]);

/** A number option, else the default. */
const scanLimit = (options, key, fallback) =>
  typeof options[key] === "number" && !Number.isNaN(options[key]) ? options[key] : fallback;

/**
 * Upstream's unsafeIndexRootReason: never a filesystem root, the user's home or an ancestor of it
 * (`/home`), compared with symlinks resolved (case-folded where the filesystem usually is).
 */
async function scanGate(workspace, home) {
  const fold = (p) => (IS_WINDOWS || process.platform === "darwin" ? p.toLowerCase() : p);
  const ws = fold(await resolvedPath(workspace));
  if (path.parse(ws).root === ws) return "filesystemRoot";
  if (typeof home === "string" && home !== "" && isWithin(fold(await resolvedPath(path.resolve(home))), ws))
    return "home";
  return null;
}

/**
 * One directory looked at: its entries (readdir with file types: a symlink is a symlink, never
 * its target), and whether it has an index (probed only when the listing shows one of `names`:
 * `indexDir`, or without one, the names the CLI's rule can choose). A
 * directory that cannot be listed (EACCES, ENOTDIR, ELOOP, vanished) is still probed: a
 * directory that may be entered but not listed (mode 711) can hold an index.
 */
async function visitDir(dir, indexDir, names) {
  let entries;
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch {
    return { unreadable: true, indexed: await hasIndex(dir, indexDir), entries: [] };
  }
  const indexed = entries.some((e) => names.includes(e.name)) && (await hasIndex(dir, indexDir));
  return { unreadable: false, indexed, entries };
}

/**
 * The subdirectories to descend into: real directories only (not symlinks: no loop can form), no
 * dot-directory (`.codegraph`, `.git` …) and nothing on the skip list, by name in code-unit order
 * (libuv sorts a listing on Unix but not on Windows; sorted here, the order is the same anywhere).
 */
const scanChildren = (dir, entries) =>
  entries
    .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !SCAN_SKIP.has(e.name))
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => path.join(dir, name));

/**
 * Looks at one level's directories, SCAN_CONCURRENCY at a time. Each is claimed in order and
 * charged to maxDirs before it is read, so the directories read are always the first ones in
 * breadth-first order whatever order the reads finish in. A slot left empty was not read (the
 * budget was spent, or the deadline stopped the scan).
 */
async function visitLevel(level, state) {
  const visits = new Array(level.length);
  let next = 0;
  const worker = async () => {
    while (next < level.length && !state.stopped) {
      if (state.dirsRead >= state.maxDirs) return;
      const i = next++;
      state.dirsRead++;
      visits[i] = await visitDir(level[i], state.indexDir, state.indexNames);
      if (visits[i].unreadable) state.unreadable++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(state.concurrency, level.length) }, worker));
  return visits;
}

/** The scan proper; writes into `state`, stopping as soon as `state.stopped` is set. */
async function scanWalk(base, home, state) {
  state.own = await hasIndex(base, state.indexDir);
  const gate = await scanGate(base, home);
  if (gate) {
    state.gated = gate;
    return;
  }
  state.worktree = worktreeOf(base);
  const [top] = await visitLevel([base], state);
  if (!top) {
    state.truncated = "dirs";
    return;
  }
  if (top.unreadable) return;
  // Upstream's gate: a directory that no manifest or `.git` marks as a project is not scanned.
  if (!top.entries.some((e) => PROJECT_MARKERS.includes(e.name))) {
    state.gated = "notAProject";
    return;
  }
  let level = state.maxDepth >= 1 ? scanChildren(base, top.entries) : [];
  for (let depth = 1; level.length > 0; depth++) {
    const visits = await visitLevel(level, state);
    if (state.stopped) return;
    const deeper = [];
    for (let i = 0; i < level.length; i++) {
      const visit = visits[i];
      if (!visit) {
        state.truncated = "dirs";
        return;
      }
      // Another worktree of the workspace's repository: neither a project nor entered (its index
      // answers for another branch). Asked only of a directory whose listing shows a `.git`.
      const gitMarked = visit.entries.some((e) => e.name === ".git");
      if (gitMarked && inOtherWorktree(level[i], state.worktree)) continue;
      if (visit.indexed) {
        // A project's own subdirectories are not separate projects: an indexed one is not entered.
        if (state.roots.length >= state.maxRoots) {
          state.truncated = "roots";
          return;
        }
        state.roots.push(level[i]);
      } else if (depth < state.maxDepth) {
        for (const child of scanChildren(level[i], visit.entries)) deeper.push(child);
      }
    }
    level = deeper;
  }
}

/**
 * The indexes at and below `workspace`: `{ own, roots, gated, truncated, dirsRead, unreadable, ms }`.
 * `own`: the workspace has its own index. `roots`: absolute directories strictly below it that
 * have one, breadth-first (shallowest first), by name within a directory. `gated`: why nothing
 * below was looked at ("home", "filesystemRoot", "notAProject"), else null. `truncated`: which
 * bound stopped the scan early ("roots": a root past maxRoots was left out; "dirs"; "time"),
 * else null. `dirsRead`: directories listed (the workspace included); `unreadable`: how many of
 * them could not be. Options: SCAN_LIMITS' keys, `home` (default os.homedir()), `indexDir`
 * (default: the CLI's own rule in each directory) and `concurrency`.
 */
async function scanRoots(workspace, options = {}) {
  const started = performance.now();
  const opts = options ?? {};
  const state = {
    maxDepth: scanLimit(opts, "maxDepth", SCAN_LIMITS.maxDepth),
    maxRoots: scanLimit(opts, "maxRoots", SCAN_LIMITS.maxRoots),
    maxDirs: scanLimit(opts, "maxDirs", SCAN_LIMITS.maxDirs),
    deadlineMs: scanLimit(opts, "deadlineMs", SCAN_LIMITS.deadlineMs),
    concurrency: Math.max(1, scanLimit(opts, "concurrency", SCAN_CONCURRENCY)),
    indexDir: typeof opts.indexDir === "string" && opts.indexDir !== "" ? opts.indexDir : undefined,
    own: false,
    roots: [],
    gated: null,
    truncated: null,
    dirsRead: 0,
    unreadable: 0,
    stopped: false,
  };
  // The names a listing must show before a directory is probed: the given one, else every name
  // the CLI's rule can choose there (decided per directory by hasIndex).
  state.indexNames = state.indexDir ? [state.indexDir] : [indexDirName(process.env), DEFAULT_INDEX_DIR, WSL_INDEX_DIR];
  let timer;
  try {
    if (typeof workspace === "string" && path.isAbsolute(workspace)) {
      let home = opts.home;
      if (home === undefined) {
        try {
          home = os.homedir();
        } catch {
          home = undefined;
        }
      }
      // The deadline is a hard one: a listing stuck on a hung mount is abandoned, not awaited.
      const expired = new Promise((resolve) => {
        // Node fires a timer past 2^31−1 ms at once: a longer deadline is that long.
        const left = Math.min(MAX_TIMEOUT_MS, state.deadlineMs - (performance.now() - started));
        timer = setTimeout(() => resolve(true), Math.max(0, left));
      });
      const walk = scanWalk(path.resolve(workspace), home, state).then(
        () => false,
        () => false,
      );
      if (await Promise.race([walk, expired])) {
        state.stopped = true;
        state.truncated = "time";
      }
    }
  } catch {
    // Never thrown: what was found so far is the answer.
  } finally {
    clearTimeout(timer);
  }
  return {
    own: state.own,
    roots: [...state.roots],
    gated: state.gated,
    truncated: state.truncated,
    dirsRead: state.dirsRead,
    unreadable: state.unreadable,
    ms: performance.now() - started,
  };
}

module.exports = { SCAN_LIMITS, SCAN_SKIP, PROJECT_MARKERS, scanRoots };
