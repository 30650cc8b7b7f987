// Preflight: checks made before anything runs (crates/core/src/preflight.rs). They only read, and only
// metadata: the database header is read from a regular file opened non-blocking, so no FIFO,
// device or `/dev/stdin` symlink is ever read (or waited on). They are asynchronous (libuv's
// thread pool, as the addon's blocking pool), so explore() can bound them by its deadline and
// cancel: a stat on a hung mount ends in CODEGRAPH_TIMEOUT, not a stuck call.

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");
const { denied, ioReason, isDenied, isGone, workspaceGone } = require("./access.js");
const { badWorkspace, exhausted, invalidRequest, noIndex, shownPath } = require("./errors.js");
const { IS_WINDOWS, MAX_REQUEST_CHARS, SQLITE_MAGIC } = require("./limits.js");

const DEFAULT_INDEX_DIR = ".codegraph";
const INDEX_DB_FILE = "codegraph.db";
/** Set to `1` to accept an index whose directory or database resolves outside the workspace. */
const ALLOW_EXTERNAL_INDEX_VAR = "PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX";
/** O_NONBLOCK: a file swapped for a FIFO after the metadata check cannot block the open. */
const REGULAR_OPEN_FLAGS = IS_WINDOWS
  ? fs.constants.O_RDONLY
  : fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;

/**
 * A non-empty value of `env` (the call's snapshot of process.env, taken when the call was made,
 * as the addon takes it), as the user would mean it.
 */
const envSet = (env, key) => envGet(env, key) || undefined;

/** A value of the snapshot; Windows names are case-insensitive (a copy of process.env is not). */
function envGet(env, key) {
  if (!IS_WINDOWS || key in env) return env[key];
  const found = Object.keys(env).find((k) => k.toUpperCase() === key.toUpperCase());
  return found === undefined ? undefined : env[found];
}

/**
 * The one rule of a blank request, shared with the addon (preflight.rs `is_blank_char`): only
 * Unicode White_Space (U+0085, U+00A0, U+3000 …), controls (Cc) and format characters (Cf: U+FEFF,
 * U+200B, the bidi controls, tag characters …). String.trim() is not it: it strips U+FEFF but
 * keeps U+0085.
 */
const BLANK = /^[\p{White_Space}\p{Cc}\p{Cf}]*$/u;

function checkRequest(request) {
  if (BLANK.test(request)) throw invalidRequest("it is empty or only whitespace and invisible characters");
  if (request.includes("\0")) throw invalidRequest("it contains a NUL byte, which no command-line argument can carry");
  // UTF-16 units, as the CLI's `query.length` counts them (an emoji counts 2): JS `length`.
  if (request.length > MAX_REQUEST_CHARS)
    throw invalidRequest(
      `it is ${request.length} characters long as JavaScript counts them (UTF-16 units); the limit is ${MAX_REQUEST_CHARS}`,
    );
}

/** Names what a non-regular file is, for messages. */
function kindOfFile(st) {
  if (st.isDirectory()) return "a directory";
  if (st.isFile()) return "a regular file";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "a special file";
}

async function checkWorkspace(cwd) {
  if (cwd === "") throw badWorkspace(cwd, "no workspace directory was given");
  if (!path.isAbsolute(cwd)) throw badWorkspace(cwd, "it is not an absolute path");
  let st;
  try {
    st = await fsp.stat(cwd); // follows symlinks and never opens the target
  } catch (err) {
    if (err.code === "ENOENT") throw badWorkspace(cwd, "it does not exist");
    throw (
      exhausted("reading the workspace", err) ??
      badWorkspace(cwd, `it cannot be read (${ioReason(err)})`, isDenied(err))
    );
  }
  if (!st.isDirectory()) throw badWorkspace(cwd, `it is ${kindOfFile(st)}, not a directory`);
  try {
    await (await fsp.opendir(cwd)).close(); // a directory we cannot list would later look like "no index"
  } catch (err) {
    throw (
      exhausted("listing the workspace", err) ??
      badWorkspace(cwd, `it cannot be read (${ioReason(err)})`, isDenied(err))
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

/** `p` is `base` or inside it (by path components). */
function isWithin(p, base) {
  const rel = path.relative(base, p);
  return rel === "" || (!path.isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${path.sep}`));
}

/**
 * `CODEGRAPH_DIR` as the CLI accepts it: a plain directory name. Anything path-like is ignored
 * (the CLI warns and ignores it too), so it can never point the check outside the workspace.
 */
function indexDirName(env) {
  const v = envSet(env, "CODEGRAPH_DIR");
  return v && v !== "." && v !== ".." && !/[/\\]/.test(v) ? v : DEFAULT_INDEX_DIR;
}

/** The nearest ancestor of `workspace` that has its own `<name>/codegraph.db` (metadata only). */
async function ancestorIndex(workspace, name) {
  let dir = workspace;
  for (let i = 0; i < 64; i++) {
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
    try {
      if ((await fsp.stat(path.join(dir, name, INDEX_DB_FILE))).isFile()) return dir;
    } catch {}
  }
  return undefined;
}

/**
 * At most `maxBytes` from the start of a regular file, opened non-blocking and checked again on
 * the fd (crates/core/src/preflight.rs `open_regular`); throws for anything else.
 */
async function readRegular(file, maxBytes) {
  const handle = await fsp.open(file, REGULAR_OPEN_FLAGS);
  try {
    if (!(await handle.stat()).isFile()) throw new Error("it is not a regular file");
    const buf = Buffer.alloc(maxBytes);
    let got = 0;
    while (got < maxBytes) {
      const { bytesRead } = await handle.read(buf, got, maxBytes - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await handle.close();
  }
}

/**
 * The index must be the workspace's own: the CLI would walk up to an ancestor's index, which
 * answers with paths relative to that ancestor. `home` is the workspace with symlinks resolved;
 * `env` the call's environment snapshot.
 * Returns `{ dir, resolved }`: the index directory as the CLI opens it, and where it really is.
 */
async function checkIndex(workspace, home, env) {
  const name = indexDirName(env);
  const dir = path.join(workspace, name);
  const db = path.join(dir, INDEX_DB_FILE);
  // A path that is not there because the workspace itself vanished (deleted or renamed during
  // the call) is the workspace's problem, not a missing index.
  const missing = async (what) =>
    (await workspaceGone(workspace)) ??
    noIndex(workspace, `${shownPath(what)} does not exist`, {
      missing: true,
      ancestor: await ancestorIndex(workspace, name),
    });
  let st;
  try {
    st = await fsp.stat(dir);
  } catch (err) {
    if (isGone(err)) throw await missing(dir);
    throw (
      exhausted("reading the index directory", err) ??
      badWorkspace(workspace, `${shownPath(dir)} cannot be read (${ioReason(err)})`, isDenied(err))
    );
  }
  if (!st.isDirectory())
    throw noIndex(workspace, `${shownPath(dir)} is ${kindOfFile(st)}, not a directory`, { special: true });
  try {
    st = await fsp.stat(db);
  } catch (err) {
    if (isGone(err)) throw await missing(db);
    // `.codegraph/` may not be entered: the index may be fine, only access fails.
    if (isDenied(err)) throw denied(dir, dir, err);
    throw (
      exhausted("reading the index", err) ??
      noIndex(workspace, `${shownPath(db)} cannot be read (${ioReason(err)})`, { unusable: true, db })
    );
  }
  if (!st.isFile())
    throw noIndex(workspace, `${shownPath(db)} is ${kindOfFile(st)}, not a regular file; it was not opened`, {
      special: true,
    });
  // Without a symlink in `.codegraph` or `codegraph.db` the index is inside the workspace by
  // construction; only a link needs resolving.
  const isLink = (p) =>
    fsp.lstat(p).then(
      (l) => l.isSymbolicLink(),
      () => true,
    );
  const linked = (await isLink(dir)) || (await isLink(db));
  const resolved = linked ? await resolvedPath(dir) : path.join(home, name);
  if (linked && envSet(env, ALLOW_EXTERNAL_INDEX_VAR) !== "1") {
    for (const [what, target] of [
      [dir, resolved],
      [db, await resolvedPath(db)],
    ]) {
      if (!isWithin(target, home))
        throw noIndex(workspace, `${shownPath(what)} resolves to ${shownPath(target)}, outside the workspace`, {
          outside: true,
          resolved: target,
        });
    }
  }
  let header;
  try {
    header = await readRegular(db, 16);
  } catch (err) {
    if (isDenied(err)) throw denied(dir, db, err);
    if (isGone(err)) throw await missing(db);
    throw (
      exhausted("reading the index header", err) ??
      noIndex(workspace, `${shownPath(db)} cannot be read (${ioReason(err)})`, { unusable: true, db })
    );
  }
  if (header.length < 16) throw noIndex(workspace, `${shownPath(db)} is empty or truncated`, { unusable: true, db });
  if (!header.equals(SQLITE_MAGIC))
    throw noIndex(workspace, `${shownPath(db)} is not a SQLite database`, { unusable: true, db });
  return { dir, resolved };
}

module.exports = {
  readRegular,
  envSet,
  envGet,
  ioReason,
  kindOfFile,
  checkRequest,
  checkWorkspace,
  canonicalPath,
  resolvedPath,
  isWithin,
  checkIndex,
  indexDirName,
  ancestorIndex,
};
