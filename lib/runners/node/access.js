// Why a workspace or index that looked fine cannot be used (crates/core/src/access.rs): it vanished
// during the call, this user may not access it, or it is on a read-only mount. Asked only after
// something failed, so the answer names the real cause instead of "install CodeGraph" or "move
// the index away".

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");
const { badWorkspace, indexReadOnly, noIndex } = require("../../contract/problems.js");

/** `err` says a path (or one of its parents) is not there. */
const isGone = (err) => err?.code === "ENOENT" || err?.code === "ENOTDIR";
/** `err` is a permission refusal (EACCES, or EPERM from a security module). */
const isDenied = (err) => err?.code === "EACCES" || err?.code === "EPERM";

/**
 * An OS error as a short reason, e.g. "permission denied (EACCES)": without the path Node puts
 * in its message (paths reach messages only through lib/words).
 */
function ioReason(err) {
  const m = /^([A-Z0-9]+): ([^,]*)/.exec(String(err?.message ?? err));
  return m
    ? `${m[2]} (${m[1]})`
    : String(err?.code ?? err?.message ?? err)
        .split("\n")[0]
        .slice(0, 200);
}

/** CODEGRAPH_WORKSPACE when the workspace no longer exists as a directory, else null. */
async function workspaceGone(workspace) {
  try {
    if ((await fsp.stat(workspace)).isDirectory()) return null;
  } catch (err) {
    if (!isGone(err)) return null;
  }
  return badWorkspace(workspace, { is: "removed" });
}

/**
 * workspaceGone(), or CODEGRAPH_WORKSPACE with a permissions remediation when this user may no
 * longer read or enter it (a chmod during the call; a spawn's chdir then fails with EACCES).
 */
async function workspaceBlocked(workspace) {
  const gone = await workspaceGone(workspace);
  if (gone) return gone;
  try {
    await fsp.access(workspace, fs.constants.R_OK | fs.constants.X_OK);
  } catch (err) {
    if (isDenied(err)) return badWorkspace(workspace, { is: "blocked", os: ioReason(err) }, true);
  }
  return null;
}

/** CODEGRAPH_INDEX_READONLY for a path of the index this user may not access. */
const denied = (dir, p, err) =>
  indexReadOnly(dir, { is: "denied", path: p, os: ioReason(err) }, { is: "denied", path: p });

/**
 * After the CLI failed to open its database: what in `<workspace>/.codegraph` this user cannot
 * read and write (the directory, the db and its -wal/-shm when they exist), or null when every
 * access is allowed. Checked with access(2), which also reports a read-only mount (EROFS).
 */
async function indexBlocked(workspace, dir) {
  const blocked = await workspaceBlocked(workspace);
  if (blocked) return blocked;
  const { R_OK, W_OK, X_OK } = fs.constants;
  const checks = [
    [dir, true],
    [path.join(dir, "codegraph.db"), true],
    [path.join(dir, "codegraph.db-wal"), false],
    [path.join(dir, "codegraph.db-shm"), false],
  ];
  for (const [p, required] of checks) {
    try {
      const isDir = (await fsp.stat(p)).isDirectory();
      await fsp.access(p, R_OK | W_OK | (isDir ? X_OK : 0));
    } catch (err) {
      if (isGone(err)) {
        if (!required) continue;
        return noIndex(workspace, { is: "removed", path: p }, { is: "missing" });
      }
      if (err.code === "EROFS") return indexReadOnly(dir, { is: "readOnlyMount", path: p }, { is: "readOnlyMount" });
      if (isDenied(err)) return denied(dir, p, err);
    }
  }
  return null;
}

module.exports = { ioReason, isGone, isDenied, workspaceGone, workspaceBlocked, denied, indexBlocked };
