// Paths and files as every layer reads them: the index database's name, "inside" by path
// components, symlinks resolved, and a regular file opened so that a FIFO or device swapped in
// cannot block (crates/core/src/files.rs `open_regular`). Facts only; imports nothing of ours.

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");
const { IS_WINDOWS } = require("./limits.js");

const INDEX_DB_FILE = "codegraph.db";

/** O_NONBLOCK: a file swapped for a FIFO after the metadata check cannot block the open. */
const REGULAR_OPEN_FLAGS = IS_WINDOWS
  ? fs.constants.O_RDONLY
  : fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;
/**
 * A workspace's file: as REGULAR_OPEN_FLAGS, never through a link (O_NOFOLLOW: a repository can
 * commit `.gitignore -> /dev/tty`); crates/core/src/files.rs `open_workspace_file`.
 */
const WORKSPACE_OPEN_FLAGS = IS_WINDOWS ? REGULAR_OPEN_FLAGS : REGULAR_OPEN_FLAGS | fs.constants.O_NOFOLLOW;

/**
 * The one rule of a blank request, shared with the addon (preflight/request.rs `is_blank_char`): only
 * Unicode White_Space (U+0085, U+00A0, U+3000 …), controls (Cc) and format characters (Cf: U+FEFF,
 * U+200B, the bidi controls, tag characters …). String.trim() is not it: it strips U+FEFF but
 * keeps U+0085.
 */
const BLANK = /^[\p{White_Space}\p{Cc}\p{Cf}]*$/u;

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
 * A regular file opened non-blocking and checked again on the fd: `{ handle, stat }` (the
 * caller closes it); throws for anything else, closing what it opened.
 */
async function openRegular(file, { workspace = false } = {}) {
  // Windows has no O_NOFOLLOW: the link is looked for first.
  if (workspace && IS_WINDOWS && (await fsp.lstat(file)).isSymbolicLink()) throw new Error("a symbolic link");
  const handle = await fsp.open(file, workspace ? WORKSPACE_OPEN_FLAGS : REGULAR_OPEN_FLAGS);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error("it is not a regular file");
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * When a file was last written, in ms (a `fs.Stats`): its modification time, or on POSIX its
 * change time when that is earlier. A modification time set in the future (`touch -d`, an
 * archive's dates, a skewed clock) is no write after the index, and the change time cannot be
 * set. The addon's twin: crates/core/src/files.rs `written_ms`.
 */
const writtenMs = (stat) => Math.floor(IS_WINDOWS ? stat.mtimeMs : Math.min(stat.mtimeMs, stat.ctimeMs));

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

module.exports = {
  BLANK,
  INDEX_DB_FILE,
  REGULAR_OPEN_FLAGS,
  canonicalPath,
  isWithin,
  openRegular,
  readAt,
  resolvedPath,
  writtenMs,
};
