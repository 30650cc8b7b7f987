// Whether CodeGraph is writing the index right now (crates/core/src/index_writer.rs), judged by
// CodeGraph's own rules. `codegraph init`, `index` and `sync` hold `.codegraph/codegraph.lock`
// (the writer's pid) while they write; `codegraph index` also holds `.codegraph/rebuild.pid`
// (JSON with the pid) while it rebuilds the database from scratch. An explore meanwhile answers
// from a half-built graph and says nothing, so explore() waits for the writer, bounded, and
// otherwise says why it did not answer. Only these two small regular files are read, opened
// non-blocking. `writer.pid` is not a sign of writing: an MCP server holds it for as long as it
// runs.
//
// Liveness is CodeGraph 1.6.1's: `codegraph.lock` names `parseInt(text.trim(), 10)` and lives
// when `kill(pid, 0)` succeeds (EPERM — another user's process, pid 1, a pid reused after a
// reboot — is a stale lock, which CodeGraph writes over); `rebuild.pid` needs a numeric `pid`
// and a string `mode` and lives when `kill(pid, 0)` succeeds or fails with EPERM. As in the
// addon, a pid of 0 or below (a process group to `kill`) and an unreaped zombie are no writer.
// From the first moment of an `init`, before any lock, a database no longer than its first page
// is a writer too, with no pid (beingCreated). A pid this namespace does not run may be a writer
// in another (a dev container sharing the workspace): before such a lock is called stale, the
// lock holders of the database are asked (lock-holders.js); a writer elsewhere is live, `outside`.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { exhausted } = require("../../contract/problems.js");
const { outsideHolder } = require("./lock-holders.js");
const { signal0, zombie } = require("./pid.js");
const { readRegular } = require("../../contract/files.js");
const { SQLITE_MAGIC } = require("../../contract/limits.js");

/** CodeGraph's lock files are a few dozen bytes; anything larger is not one. */
const MAX_LOCK_BYTES = 4096;
/** How often the lock files are read again meanwhile. */
const WRITER_POLL_MS = 100;

/** A lock file's text; null when absent, special, unreadable or too large. Out of resources: throws. */
async function readLock(file) {
  try {
    const bytes = await readRegular(file, MAX_LOCK_BYTES + 1, { workspace: true });
    return bytes.length > MAX_LOCK_BYTES ? null : bytes.toString("utf8");
  } catch (err) {
    const problem = exhausted({ is: "readLock" }, err);
    if (problem) throw problem; // "no writer" could mean a half-built answer
    return null;
  }
}

/** A pid `kill` reads as one process (1 to 2^31-1), else null. */
const processId = (pid) => (Number.isSafeInteger(pid) && pid > 0 && pid <= 0x7fffffff ? pid : null);

/** The pid a lock file names, read as CodeGraph reads it. */
function lockPid(text, json) {
  if (!json) return processId(Number.parseInt(text.trim(), 10));
  try {
    const info = JSON.parse(text.trim());
    return typeof info?.pid === "number" && typeof info.mode === "string" ? processId(info.pid) : null;
  } catch {
    return null;
  }
}

/** CodeGraph's liveness for each lock file (see the top comment). */
async function alive(pid, rebuild) {
  const seen = signal0(pid);
  const exists = seen === "delivered" || (rebuild && seen === "not-permitted");
  return exists && !(await zombie(pid));
}

/** The live writer of the index in `indexDir` — `{ lock, pid, rebuild, outside? }` — or null. */
async function activeWriter(indexDir) {
  let locked = false;
  // Asked once, whichever lock names a pid that runs nowhere here.
  let elsewhere;
  for (const [name, rebuild] of [
    ["rebuild.pid", true],
    ["codegraph.lock", false],
  ]) {
    const lock = path.join(indexDir, name);
    const text = await readLock(lock);
    const pid = text === null ? null : lockPid(text, rebuild);
    if (pid === null) continue;
    if (await alive(pid, rebuild)) return { lock, pid, rebuild };
    elsewhere ??= outsideHolder(indexDir);
    const outside = await elsewhere;
    if (outside) return { lock, pid, rebuild, ...outside };
    locked = true;
  }
  // A write that took its lock (an init's codegraph.lock, a rebuild's rebuild.pid, taken before it
  // recreates the database) is past creating the database: with its writer gone, the write was
  // interrupted, however short the database it left.
  if (locked) return null;
  const db = path.join(indexDir, "codegraph.db");
  return (await beingCreated(db)) ? { lock: db, pid: 0, rebuild: false } : null;
}

/**
 * The last write of the index in `indexDir` never finished — `{ lock, pid, rebuild }` — or null:
 * `codegraph.lock` names a process that is no longer a writer (CodeGraph stopped mid-write leaves
 * its lock), `rebuild` when a stale `rebuild.pid` is beside it. Asked when activeWriter found
 * none. A lock without a pid is no sign (crates/core/src/index_writer.rs `interrupted_write`).
 */
async function interruptedWrite(indexDir) {
  const lock = path.join(indexDir, "codegraph.lock");
  const text = await readLock(lock);
  const pid = text === null ? null : lockPid(text, false);
  if (pid === null || (await alive(pid, false)) || (await outsideHolder(indexDir))) return null;
  const rebuildText = await readLock(path.join(indexDir, "rebuild.pid"));
  const rebuildPid = rebuildText === null ? null : lockPid(rebuildText, true);
  return { lock, pid, rebuild: rebuildPid !== null && !(await alive(rebuildPid, true)) };
}

/**
 * `codegraph init` creates `codegraph.db` (schema in its write-ahead log, the main file one page
 * long) about 50–100 ms before it takes `codegraph.lock`; an index that ever finished has dozens
 * of pages (the schema alone is 42). So a database exactly one page long whose valid SQLite header
 * also counts one page (offset 28) is one still being created; a shorter file, or one page of a
 * header that counts more, is a damaged index (crates/core/src/index_writer.rs `being_created`).
 */
async function beingCreated(db) {
  let header;
  let size;
  try {
    header = await readRegular(db, 32, { workspace: true });
    size = (await fsp.stat(db)).size;
  } catch (err) {
    const problem = exhausted({ is: "readIndexHeader" }, err);
    if (problem) throw problem;
    return false;
  }
  if (header.length < 32 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) return false;
  const raw = header.readUInt16BE(16);
  // The page size: a power of two from 512 to 32768, or 1 for 65536.
  const page = raw === 1 ? 65536 : raw >= 512 && (raw & (raw - 1)) === 0 ? raw : 0;
  return page > 0 && size === page && header.readUInt32BE(28) <= 1;
}

module.exports = { WRITER_POLL_MS, activeWriter, interruptedWrite };
