// Which files CodeGraph counts as changed since the index, by name where that can be told truly.
// CodeGraph's `status --json` gives counts only (added, modified, removed: it compares content
// hashes); its `files --json` lists the index's files with their sizes. A listed file the disk
// lacks is removed; one whose size differs, or that was written after the index, is a modified
// candidate. A kind's names are told only when as many were found as CodeGraph counts (a touched
// file whose content is the same is no change to CodeGraph); added files are counted, not named
// (finding them needs CodeGraph's own walk of the tree).

const fsp = require("node:fs/promises");
const path = require("node:path");
const { indexFilesCommand } = require("../contract/commands.js");
const { isWithin, writtenMs } = require("../contract/files.js");

/** The `files --json` rows: `[{ path, size }]`; null when the text is not that list. */
function indexedFiles(text) {
  try {
    const rows = JSON.parse(String(text).slice(String(text).indexOf("[")));
    if (!Array.isArray(rows)) return null;
    return rows
      .filter((r) => typeof r?.path === "string" && r.path !== "")
      .map((r) => ({ path: r.path, size: r.size }));
  } catch {
    return null;
  }
}

/** What became of the indexed `row` under `root`: "removed", "modified" (a candidate), or null. */
async function rowState(root, row, indexedAtMs) {
  const file = path.resolve(root, row.path);
  if (!isWithin(file, root)) return null;
  let st;
  try {
    st = await fsp.stat(file);
  } catch (err) {
    return err?.code === "ENOENT" || err?.code === "ENOTDIR" ? "removed" : null;
  }
  if (!st.isFile()) return "removed";
  const resized = typeof row.size === "number" && st.size !== row.size;
  return resized || (indexedAtMs !== null && writtenMs(st) > indexedAtMs) ? "modified" : null;
}

/**
 * The names of the files CodeGraph counts as changed in `cwd`'s index: `{ modified: [...],
 * removed: [...] }` (relative, as CodeGraph lists them), each present only when the names found
 * match CodeGraph's count (`status`: parseIndexStatus' facts: `pendingChanges`, `lastIndexed`).
 * `run` is the package's run(); `options` go to it. `{}` when nothing changed or the list fails.
 */
async function changedFileNames(run, cwd, status, options) {
  const pending = status?.pendingChanges;
  if (!pending || pending.modified + pending.removed === 0) return {};
  let rows;
  try {
    rows = indexedFiles((await run(indexFilesCommand(), cwd, undefined, options)).text);
  } catch {
    return {};
  }
  if (!rows) return {};
  const at = Date.parse(status.lastIndexed ?? "");
  const indexedAtMs = Number.isFinite(at) ? at : null;
  const states = await Promise.all(rows.map((row) => rowState(cwd, row, indexedAtMs).catch(() => null)));
  const named = {};
  for (const kind of ["modified", "removed"]) {
    const paths = rows.filter((_, i) => states[i] === kind).map((r) => r.path);
    if (pending[kind] > 0 && paths.length === pending[kind]) named[kind] = paths;
  }
  return named;
}

module.exports = { changedFileNames, indexedFiles };
