// Preflight: checks made before anything runs (crates/core/src/preflight.rs). They only read, and only
// metadata: the database header is read from a regular file opened non-blocking, so no FIFO,
// device or `/dev/stdin` symlink is ever read (or waited on). They are asynchronous (libuv's
// thread pool, as the addon's blocking pool), so explore() can bound them by its deadline and
// cancel: a stat on a hung mount ends in CODEGRAPH_TIMEOUT, not a stuck call.

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");
const { denied, ioReason, isDenied, isGone, workspaceGone } = require("./access.js");
const { badWorkspace, exhausted, invalidRequest, noIndex } = require("./errors.js");
const { envSet } = require("./env-snapshot.js");
const { indexDirNameFor, indexDirOf } = require("./index-dir.js");
const { IS_WINDOWS, MAX_REQUEST_CHARS, SQLITE_MAGIC } = require("./limits.js");

const INDEX_DB_FILE = "codegraph.db";
/** Set to `1` to accept an index whose directory or database resolves outside the workspace. */
const ALLOW_EXTERNAL_INDEX_VAR = "PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX";
/** O_NONBLOCK: a file swapped for a FIFO after the metadata check cannot block the open. */
const REGULAR_OPEN_FLAGS = IS_WINDOWS
  ? fs.constants.O_RDONLY
  : fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;

/** `PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1`: the user accepts an existing index that resolves outside the workspace. */
const allowExternal = (env) => envSet(env, ALLOW_EXTERNAL_INDEX_VAR) === "1";

/**
 * The one rule of a blank request, shared with the addon (preflight/request.rs `is_blank_char`): only
 * Unicode White_Space (U+0085, U+00A0, U+3000 …), controls (Cc) and format characters (Cf: U+FEFF,
 * U+200B, the bidi controls, tag characters …). String.trim() is not it: it strips U+FEFF but
 * keeps U+0085.
 */
const BLANK = /^[\p{White_Space}\p{Cc}\p{Cf}]*$/u;

function checkRequest(request) {
  if (BLANK.test(request)) throw invalidRequest({ is: "blank" });
  if (request.includes("\0")) throw invalidRequest({ is: "nul" });
  // UTF-16 units, as the CLI's `query.length` counts them (an emoji counts 2): JS `length`.
  if (request.length > MAX_REQUEST_CHARS)
    throw invalidRequest({ is: "tooLong", units: request.length, limit: MAX_REQUEST_CHARS });
}

/** What a file is (preflight.rs `FileKind`); lib/words names it. */
function kindOfFile(st) {
  if (st.isDirectory()) return "directory";
  if (st.isFile()) return "regularFile";
  if (st.isFIFO()) return "fifo";
  if (st.isCharacterDevice()) return "charDevice";
  if (st.isBlockDevice()) return "blockDevice";
  if (st.isSocket()) return "socket";
  return "special";
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

/** `p` with every symlink resolved, or `p` itself when that fails (synchronous, for the spill). */
function canonicalPath(p) {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

/** canonicalPath(), asynchronously. */
const resolvedPath = (p) => fsp.realpath(p).catch(() => p);

/**
 * The directories whose code the child must not run: the workspace it runs in (`home`) and, for
 * a call in another root, Pi's workspace (`onBehalfOf`), resolved as `home` is.
 */
async function homesOf(home, onBehalfOf) {
  return onBehalfOf === undefined ? [home] : [home, await resolvedPath(onBehalfOf)];
}

/** `p` is `base` or inside it (by path components). */
function isWithin(p, base) {
  const rel = path.relative(base, p);
  return rel === "" || (!path.isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${path.sep}`));
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
 * At most `maxBytes` from the start of a regular file, opened non-blocking and checked again on
 * the fd (crates/core/src/preflight.rs `open_regular`); throws for anything else.
 */
async function readRegular(file, maxBytes) {
  const { handle } = await openRegular(file);
  try {
    return await readAt(handle, 0, maxBytes);
  } finally {
    await handle.close();
  }
}

/**
 * A regular file opened non-blocking and checked again on the fd: `{ handle, stat }` (the
 * caller closes it); throws for anything else, closing what it opened.
 */
async function openRegular(file) {
  const handle = await fsp.open(file, REGULAR_OPEN_FLAGS);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error("it is not a regular file");
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** At most `length` bytes of `handle` from `position` (fewer at the end of the file). */
async function readAt(handle, position, length) {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
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
    noIndex(workspace, { is: "missing", path: what }, { is: "missing", ancestor: await ancestorIndex(workspace, env) });
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
    header = await readRegular(db, 16);
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
  BLANK,
  INDEX_DB_FILE,
  REGULAR_OPEN_FLAGS,
  openRegular,
  readAt,
  readRegular,
  allowExternal,
  ioReason,
  kindOfFile,
  checkRequest,
  checkWorkspace,
  canonicalPath,
  resolvedPath,
  isWithin,
  checkIndex,
  ancestorIndex,
};
