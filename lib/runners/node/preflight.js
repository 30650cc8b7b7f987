// Preflight: checks made before anything runs (crates/core/src/preflight.rs). They only read, and only
// metadata: the database header is read from a regular file opened non-blocking, so no FIFO,
// device or `/dev/stdin` symlink is ever read (or waited on). They are asynchronous (libuv's
// thread pool, as the addon's blocking pool), so explore() can bound them by its deadline and
// cancel: a stat on a hung mount ends in CODEGRAPH_TIMEOUT, not a stuck call.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { denied, ioReason, isDenied, isGone, workspaceGone } = require("./access.js");
const { badWorkspace, exhausted, invalidRequest, noIndex } = require("../../contract/problems.js");
const { envSet } = require("../../contract/env-snapshot.js");
const { indexDirNameFor, indexDirOf } = require("../../contract/index-dir.js");
const { MAX_REQUEST_CHARS, SQLITE_MAGIC } = require("../../contract/limits.js");
const { BLANK, INDEX_DB_FILE, isWithin, kindOfFile, readRegular, resolvedPath } = require("../../contract/files.js");

/** Set to `1` to accept an index whose directory or database resolves outside the workspace. */
const ALLOW_EXTERNAL_INDEX_VAR = "PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX";

/** `PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1`: the user accepts an existing index that resolves outside the workspace. */
const allowExternal = (env) => envSet(env, ALLOW_EXTERNAL_INDEX_VAR) === "1";

function checkRequest(request) {
  if (BLANK.test(request)) throw invalidRequest({ is: "blank" });
  if (request.includes("\0")) throw invalidRequest({ is: "nul" });
  // UTF-16 units, as the CLI's `query.length` counts them (an emoji counts 2): JS `length`.
  if (request.length > MAX_REQUEST_CHARS)
    throw invalidRequest({ is: "tooLong", units: request.length, limit: MAX_REQUEST_CHARS });
}

async function checkWorkspace(cwd) {
  if (cwd === "") throw badWorkspace(cwd, { is: "none" });
  if (!path.isAbsolute(cwd)) throw badWorkspace(cwd, { is: "relative" });
  let st;
  try {
    st = await fsp.stat(cwd); // follows symlinks and never opens the target
  } catch (err) {
    if (err.code === "ENOENT") throw badWorkspace(cwd, { is: "missing" });
    throw (
      exhausted({ is: "readWorkspace" }, err) ??
      badWorkspace(cwd, { is: "unreadable", os: ioReason(err) }, isDenied(err))
    );
  }
  if (!st.isDirectory()) throw badWorkspace(cwd, { is: "notDirectory", fileKind: kindOfFile(st) });
  try {
    await (await fsp.opendir(cwd)).close(); // a directory we cannot list would later look like "no index"
  } catch (err) {
    throw (
      exhausted({ is: "listWorkspace" }, err) ??
      badWorkspace(cwd, { is: "unreadable", os: ioReason(err) }, isDenied(err))
    );
  }
  return cwd;
}

/**
 * The directories whose code the child must not run: the workspace it runs in (`home`) and, for
 * a call in another root, Pi's workspace (`onBehalfOf`), resolved as `home` is.
 */
async function homesOf(home, onBehalfOf) {
  return onBehalfOf === undefined ? [home] : [home, await resolvedPath(onBehalfOf)];
}

/**
 * The nearest ancestor of `workspace` that has its own `<index dir>/codegraph.db` (the directory
 * each ancestor's own, by the CLI's rule; metadata only).
 */
async function ancestorIndex(workspace, env) {
  let dir = workspace;
  for (let i = 0; i < 64; i++) {
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
    try {
      if ((await fsp.stat(path.join(dir, await indexDirNameFor(dir, env), INDEX_DB_FILE))).isFile()) return dir;
    } catch {}
  }
  return undefined;
}

/**
 * The index must be the workspace's own: the CLI would walk up to an ancestor's index, which
 * answers with paths relative to that ancestor. `home` is the workspace with symlinks resolved;
 * `env` the call's environment snapshot.
 * Returns `{ dir, resolved, bytes }`: the index directory as the CLI opens it, where it really
 * is, and the database's size (the parallel limit weighs it).
 */
async function checkIndex(workspace, home, env) {
  const dir = await indexDirOf(workspace, home, env);
  const name = path.basename(dir);
  const db = path.join(dir, INDEX_DB_FILE);
  // A path that is not there because the workspace itself vanished (deleted or renamed during
  // the call) is the workspace's problem, not a missing index.
  const missing = async (what) =>
    (await workspaceGone(workspace)) ??
    // `ancestor` null when none, as the addon hands it over (an Option).
    noIndex(
      workspace,
      { is: "missing", path: what },
      { is: "missing", ancestor: (await ancestorIndex(workspace, env)) ?? null },
    );
  let st;
  try {
    st = await fsp.stat(dir);
  } catch (err) {
    if (isGone(err)) throw await missing(dir);
    throw (
      exhausted({ is: "readIndexDir" }, err) ??
      badWorkspace(workspace, { is: "indexDirUnreadable", dir, os: ioReason(err) }, isDenied(err))
    );
  }
  if (!st.isDirectory())
    throw noIndex(workspace, { is: "notDirectory", path: dir, fileKind: kindOfFile(st) }, { is: "special" });
  try {
    st = await fsp.stat(db);
  } catch (err) {
    if (isGone(err)) throw await missing(db);
    // `.codegraph/` may not be entered: the index may be fine, only access fails.
    if (isDenied(err)) throw denied(dir, dir, err);
    throw (
      exhausted({ is: "readIndex" }, err) ??
      noIndex(workspace, { is: "unreadable", path: db, os: ioReason(err) }, { is: "unusable", db })
    );
  }
  if (!st.isFile())
    throw noIndex(workspace, { is: "notRegular", path: db, fileKind: kindOfFile(st) }, { is: "special" });
  // Without a symlink in `.codegraph` or `codegraph.db` the index is inside the workspace by
  // construction; only a link needs resolving.
  const isLink = (p) =>
    fsp.lstat(p).then(
      (l) => l.isSymbolicLink(),
      () => true,
    );
  const linked = (await isLink(dir)) || (await isLink(db));
  const resolved = linked ? await resolvedPath(dir) : path.join(home, name);
  if (linked && !allowExternal(env)) {
    for (const [what, target] of [
      [dir, resolved],
      [db, await resolvedPath(db)],
    ]) {
      if (!isWithin(target, home))
        throw noIndex(workspace, { is: "outside", path: what, target }, { is: "outside", resolved: target });
    }
  }
  let header;
  try {
    header = await readRegular(db, 16, { workspace: true });
  } catch (err) {
    if (isDenied(err)) throw denied(dir, db, err);
    if (isGone(err)) throw await missing(db);
    throw (
      exhausted({ is: "readIndexHeader" }, err) ??
      noIndex(workspace, { is: "unreadable", path: db, os: ioReason(err) }, { is: "unusable", db })
    );
  }
  if (header.length < 16) throw noIndex(workspace, { is: "truncated", path: db }, { is: "unusable", db });
  if (!header.equals(SQLITE_MAGIC)) throw noIndex(workspace, { is: "notSqlite", path: db }, { is: "unusable", db });
  return { dir, resolved, bytes: st.size };
}

module.exports = {
  homesOf,
  allowExternal,
  ioReason,
  checkRequest,
  checkWorkspace,
  checkIndex,
  ancestorIndex,
};
