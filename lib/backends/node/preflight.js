// Preflight: checks made before anything runs (src/preflight.rs). They only read, and only
// metadata: the database header is read from a regular file opened non-blocking, so no FIFO,
// device or `/dev/stdin` symlink is ever read (or waited on).

const fs = require("node:fs");
const path = require("node:path");
const { badWorkspace, invalidRequest, noIndex, shownPath } = require("./errors.js");
const { IS_WINDOWS, MAX_REQUEST_CHARS, QUIET_DEFAULTS, SQLITE_MAGIC } = require("./limits.js");

const DEFAULT_INDEX_DIR = ".codegraph";
const INDEX_DB_FILE = "codegraph.db";
/** Set to `1` to accept an index whose directory or database resolves outside the workspace. */
const ALLOW_EXTERNAL_INDEX_VAR = "PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX";
/** O_NONBLOCK: a file swapped for a FIFO after the metadata check cannot block the open. */
const HEADER_OPEN_FLAGS = IS_WINDOWS
  ? fs.constants.O_RDONLY
  : fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;

/** A non-empty value, as the user would mean it. */
const envSet = (key) => (process.env[key] ? process.env[key] : undefined);

function checkRequest(request) {
  if (!request.trim()) throw invalidRequest("it is empty or only whitespace");
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

/**
 * An OS error as a short reason, e.g. "permission denied (EACCES)": without the path Node puts
 * in its message (paths reach messages only through shownPath()).
 */
function ioReason(err) {
  const m = /^([A-Z0-9]+): ([^,]*)/.exec(String(err?.message ?? err));
  return m
    ? `${m[2]} (${m[1]})`
    : String(err?.code ?? err?.message ?? err)
        .split("\n")[0]
        .slice(0, 200);
}

function checkWorkspace(cwd) {
  if (cwd === "") throw badWorkspace(cwd, "no workspace directory was given");
  if (!path.isAbsolute(cwd)) throw badWorkspace(cwd, "it is not an absolute path");
  let st;
  try {
    st = fs.statSync(cwd); // follows symlinks and never opens the target
  } catch (err) {
    throw badWorkspace(cwd, err.code === "ENOENT" ? "it does not exist" : `it cannot be read (${ioReason(err)})`);
  }
  if (!st.isDirectory()) throw badWorkspace(cwd, `it is ${kindOfFile(st)}, not a directory`);
  try {
    fs.opendirSync(cwd).closeSync(); // a directory we cannot list would later look like "no index"
  } catch (err) {
    throw badWorkspace(cwd, `it cannot be read (${ioReason(err)})`);
  }
  return cwd;
}

/** `p` with every symlink resolved, or `p` itself when that fails. */
function canonicalPath(p) {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

/** `p` is `base` or inside it (by path components). */
function isWithin(p, base) {
  const rel = path.relative(base, p);
  return rel === "" || (!path.isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${path.sep}`));
}

/**
 * `CODEGRAPH_DIR` as the CLI accepts it: a plain directory name. Anything path-like is ignored
 * (the CLI warns and ignores it too), so it can never point the check outside the workspace.
 */
function indexDirName() {
  const v = envSet("CODEGRAPH_DIR");
  return v && v !== "." && v !== ".." && !/[/\\]/.test(v) ? v : DEFAULT_INDEX_DIR;
}

/** The nearest ancestor of `workspace` that has its own `<name>/codegraph.db` (metadata only). */
function ancestorIndex(workspace, name) {
  let dir = workspace;
  for (let i = 0; i < 64; i++) {
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
    try {
      if (fs.statSync(path.join(dir, name, INDEX_DB_FILE)).isFile()) return dir;
    } catch {}
  }
  return undefined;
}

/** The first 16 bytes of a regular file, opened non-blocking and checked again on the fd. */
function readIndexHeader(db) {
  const fd = fs.openSync(db, HEADER_OPEN_FLAGS);
  try {
    if (!fs.fstatSync(fd).isFile()) throw Object.assign(new Error("it is not a regular file"), { code: "ENOTREG" });
    const header = Buffer.alloc(16);
    let got = 0;
    while (got < 16) {
      const n = fs.readSync(fd, header, got, 16 - got, got);
      if (n === 0) break;
      got += n;
    }
    return header.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The index must be the workspace's own: the CLI would walk up to an ancestor's index, which
 * answers with paths relative to that ancestor. `home` is the workspace with symlinks resolved.
 * Returns `{ dir, resolved }`: the index directory as the CLI opens it, and where it really is.
 */
function checkIndex(workspace, home) {
  const name = indexDirName();
  const dir = path.join(workspace, name);
  const db = path.join(dir, INDEX_DB_FILE);
  const missing = (what) =>
    noIndex(workspace, `${shownPath(what)} does not exist`, {
      missing: true,
      ancestor: ancestorIndex(workspace, name),
    });
  let st;
  try {
    st = fs.statSync(dir);
  } catch (err) {
    if (err.code === "ENOENT" || err.code === "ENOTDIR") throw missing(dir);
    throw badWorkspace(workspace, `${shownPath(dir)} cannot be read (${ioReason(err)})`);
  }
  if (!st.isDirectory())
    throw noIndex(workspace, `${shownPath(dir)} is ${kindOfFile(st)}, not a directory`, { special: true });
  try {
    st = fs.statSync(db);
  } catch (err) {
    if (err.code === "ENOENT") throw missing(db);
    throw noIndex(workspace, `${shownPath(db)} cannot be read (${ioReason(err)})`, { unusable: true, db });
  }
  if (!st.isFile())
    throw noIndex(workspace, `${shownPath(db)} is ${kindOfFile(st)}, not a regular file; it was not opened`, {
      special: true,
    });
  // Without a symlink in `.codegraph` or `codegraph.db` the index is inside the workspace by
  // construction; only a link needs resolving.
  const isLink = (p) => {
    try {
      return fs.lstatSync(p).isSymbolicLink();
    } catch {
      return true;
    }
  };
  const linked = isLink(dir) || isLink(db);
  const resolved = linked ? canonicalPath(dir) : path.join(home, name);
  if (linked && envSet(ALLOW_EXTERNAL_INDEX_VAR) !== "1") {
    for (const [what, target] of [
      [dir, resolved],
      [db, canonicalPath(db)],
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
    header = readIndexHeader(db);
  } catch (err) {
    throw noIndex(workspace, `${shownPath(db)} cannot be read (${ioReason(err)})`, { unusable: true, db });
  }
  if (header.length < 16) throw noIndex(workspace, `${shownPath(db)} is empty or truncated`, { unusable: true, db });
  if (!header.equals(SQLITE_MAGIC))
    throw noIndex(workspace, `${shownPath(db)} is not a SQLite database`, { unusable: true, db });
  return { dir, resolved };
}

/** The user's environment plus the quiet defaults they did not set (DO_NOT_TRACK counts as theirs). */
function childEnv() {
  const env = { ...process.env };
  for (const [key, value] of Object.entries(QUIET_DEFAULTS)) {
    const userDecided =
      process.env[key] !== undefined || (key === "CODEGRAPH_TELEMETRY" && process.env.DO_NOT_TRACK !== undefined);
    if (!userDecided) env[key] = value;
  }
  return env;
}

module.exports = {
  envSet,
  ioReason,
  kindOfFile,
  checkRequest,
  checkWorkspace,
  canonicalPath,
  isWithin,
  checkIndex,
  childEnv,
  ancestorIndex,
};
