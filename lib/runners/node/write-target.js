// Where a command that writes the index would write (crates/core/src/preflight/write_target.rs):
// CodeGraph follows links (its `mkdir -p`, its `.gitignore`, SQLite's database and sidecars), so a
// link a repository ships as `.codegraph` (or as one of CodeGraph's files in it) would put the
// index outside the workspace. And `uninit` deletes the whole directory, so it may only delete
// what CodeGraph made: not a mounted directory, not a file of someone else's. Metadata only.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { noIndex } = require("../../contract/problems.js");
const { IS_WINDOWS } = require("../../contract/limits.js");
const { allowExternal } = require("./preflight.js");
const { isWithin, resolvedPath } = require("../../contract/files.js");

/**
 * The entries CodeGraph itself writes in its index directory (CodeGraph 1.6: directory.js's
 * `.gitignore`, db/index.js's database and its sidecars, utils.js's lock, mcp/writer-lock.js,
 * mcp/daemon-paths.js and mcp/index.js's pid, socket and log, bin/codegraph.js's errors.log,
 * ui-server's trails under `ui/`).
 */
const CODEGRAPH_ENTRIES = [
  "codegraph.db",
  "codegraph.db-wal",
  "codegraph.db-shm",
  "codegraph.db-journal",
  ".gitignore",
  "codegraph.lock",
  "rebuild.pid",
  "writer.pid",
  "daemon.pid",
  "daemon.sock",
  "daemon.log",
  "errors.log",
  "ui",
];
/** What SQLite writes beside the database even for a read (CodeGraph opens it read-write). */
const SIDECARS = ["codegraph.db-wal", "codegraph.db-shm", "codegraph.db-journal"];
const UI_DIR = "ui";
const TRAILS_DIR = "trails";
/** The most entries looked at for `uninit` (a directory that holds more is not only CodeGraph's). */
const MAX_INDEX_ENTRIES = 10000;
/** The subcommands that delete the index directory (CodeGraph's `removeDirectory`). */
const REMOVES_INDEX_DIR = ["uninit"];
/** A temp file CodeGraph writes before renaming it (`writer.pid.<pid>.tmp`, `….ready.tmp`). */
const PID_TEMP = /^(writer|daemon|rebuild)\.pid\.\d+(\.ready)?\.tmp$/;

const lstatOrNull = (p) => fsp.lstat(p, { bigint: true }).catch(() => null);
/** Strictly inside `home` (the workspace itself is not a place for the index's files). */
const strictlyInside = (p, home) => path.relative(home, p) !== "" && isWithin(p, home);
const notOwn = (workspace, dir, reason) => noIndex(workspace, reason, { is: "notOwn", dir });

/** Why the link `p` is refused: it resolves outside the workspace, or (inside, or nowhere) it is a link all the same. */
async function linkReason(p, home) {
  try {
    const target = await fsp.realpath(p);
    return { is: strictlyInside(target, home) ? "linked" : "outside", path: p, target };
  } catch {
    const written = await fsp.readlink(p).catch(() => "");
    return { is: "linked", path: p, target: path.resolve(path.dirname(p), written) };
  }
}

/**
 * A command that writes the index writes only into a real directory `<workspace>/<name>` (or
 * creates it), never through a link: the directory and each of CodeGraph's entries in it must not
 * be a symlink, and the directory must resolve inside the workspace (`home`). `acceptLinks`: the
 * user accepted an existing index outside the workspace.
 */
async function checkWriteTarget(workspace, home, name, acceptLinks) {
  const dir = path.join(workspace, name);
  const st = await lstatOrNull(dir);
  if (st?.isSymbolicLink()) {
    if (acceptLinks) return;
    throw notOwn(workspace, dir, await linkReason(dir, home));
  }
  if (!st?.isDirectory() || acceptLinks) return;
  const resolved = await resolvedPath(dir);
  if (!strictlyInside(resolved, home)) throw notOwn(workspace, dir, { is: "outside", path: dir, target: resolved });
  await checkEntries(workspace, dir, home, CODEGRAPH_ENTRIES);
}

/**
 * The index checkIndex() found, when none of SQLite's sidecars in it is a link (unless the user
 * accepts an index outside the workspace): CodeGraph writes them even to read.
 */
async function ownEntries(workspace, home, env, index) {
  if (!allowExternal(env)) await checkEntries(workspace, index.dir, home, SIDECARS);
  return index;
}

/** None of `entries` in the index directory `dir` is a symlink, which CodeGraph would write through. */
async function checkEntries(workspace, dir, home, entries) {
  for (const entry of entries) {
    const p = path.join(dir, entry);
    if ((await lstatOrNull(p))?.isSymbolicLink()) throw notOwn(workspace, dir, await linkReason(p, home));
  }
}

/** The mount points the OS lists (Linux: /proc/self/mountinfo, octal-escaped; elsewhere none). */
async function mountPoints() {
  if (process.platform !== "linux") return new Set();
  const text = await fsp.readFile("/proc/self/mountinfo", "latin1").catch(() => "");
  const unescaped = (f) => f.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(Number.parseInt(o, 8)));
  return new Set(
    text
      .split("\n")
      .map((line) => line.split(" ")[4])
      .filter(Boolean)
      .map((f) => Buffer.from(unescaped(f), "latin1").toString("utf8")),
  );
}

/** `p` (lstat `st`) is a mount point: another device than its parent's, or listed. */
async function isMountPoint(p, st, parent, mounts) {
  if (!IS_WINDOWS && parent && parent.dev !== st.dev) return true;
  return mounts.size > 0 && mounts.has(await resolvedPath(p));
}

/** In `ui/`: only `trails/`, and in it only CodeGraph's trail files. The first other entry: `{ path, mounted }`. */
async function foreignInUi(ui, uiStat, mounts) {
  for (const name of (await fsp.readdir(ui).catch(() => [])).slice(0, MAX_INDEX_ENTRIES)) {
    const p = path.join(ui, name);
    const st = await lstatOrNull(p);
    if (!st) continue;
    if (name !== TRAILS_DIR || !st.isDirectory()) return { path: p, mounted: false };
    if (await isMountPoint(p, st, uiStat, mounts)) return { path: p, mounted: true };
    for (const trail of (await fsp.readdir(p).catch(() => [])).slice(0, MAX_INDEX_ENTRIES)) {
      const t = await lstatOrNull(path.join(p, trail));
      if (t && !t.isFile() && !t.isSymbolicLink()) return { path: path.join(p, trail), mounted: false };
    }
  }
  return null;
}

/**
 * `uninit` deletes `<workspace>/<name>` recursively: refused when the directory is a mount point
 * (a container volume: its source would be emptied) or holds anything CodeGraph does not make. A
 * link there is CodeGraph's to unlink (it never follows one), so it passes.
 */
async function checkRemovable(workspace, name) {
  const dir = path.join(workspace, name);
  const st = await lstatOrNull(dir);
  if (!st?.isDirectory()) return;
  const mounts = await mountPoints();
  const refuse = (is, p) => notOwn(workspace, dir, { is, path: p });
  if (await isMountPoint(dir, st, await fsp.stat(workspace, { bigint: true }).catch(() => null), mounts))
    throw refuse("mountPoint", dir);
  const names = await fsp.readdir(dir).catch(() => []);
  for (const [n, entry] of names.entries()) {
    const p = path.join(dir, entry);
    if (n >= MAX_INDEX_ENTRIES) throw refuse("foreignEntry", p);
    const e = await lstatOrNull(p);
    if (!e) continue;
    if (entry === UI_DIR && e.isDirectory()) {
      if (await isMountPoint(p, e, st, mounts)) throw refuse("mountPoint", p);
      const bad = await foreignInUi(p, e, mounts);
      if (bad) throw refuse(bad.mounted ? "mountPoint" : "foreignEntry", bad.path);
    } else if (e.isDirectory() || !((entry !== UI_DIR && CODEGRAPH_ENTRIES.includes(entry)) || PID_TEMP.test(entry))) {
      throw refuse("foreignEntry", p);
    }
  }
}

/**
 * A command that writes the index writes only into the workspace's own index directory (a link is
 * accepted only for an existing index the user accepts outside the workspace), and one that
 * deletes it deletes only what CodeGraph made (crates/core/src/command_run/checks.rs `check_writes`).
 */
async function checkWrites(workspace, home, env, indexDir, { needsIndex, subcommand }) {
  const name = path.basename(indexDir);
  await checkWriteTarget(workspace, home, name, needsIndex && allowExternal(env));
  if (REMOVES_INDEX_DIR.includes(subcommand)) await checkRemovable(workspace, name);
}

module.exports = { checkRemovable, checkWriteTarget, checkWrites, ownEntries };
