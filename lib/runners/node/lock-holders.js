// Whether a process outside this pid namespace may hold the index database open: the twin of
// crates/core/src/lock_holders.rs, from /proc/locks (plain Node has no fcntl). SQLite holds POSIX
// record locks on `codegraph.db` and `codegraph.db-shm` while a connection is open; /proc/locks
// lists them by device and inode with the holder's pid, but leaves out the locks of processes
// this pid namespace cannot see. So: a holder in another pid namespace (one we can see, from a
// parent namespace) is a writer elsewhere; and where this is not the initial pid namespace, a
// process we cannot see may hold one unlisted, which is said as such ("unseen"), never as gone.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { readAt } = require("../../contract/files.js");

/** The initial pid namespace's inode (PROC_PID_INIT_INO): from it, every process is visible. */
const INIT_PID_NAMESPACE = "pid:[4026531836]";
const LOCKED_FILES = ["codegraph.db-shm", "codegraph.db"];
const MAX_PROC_LOCKS_BYTES = 4 * 1024 * 1024;

const readLink = (p) => fsp.readlink(p).catch(() => null);

/** `maj:min:inode` as /proc/locks prints a file's (hex device numbers). */
function lockKey(stat) {
  const dev = BigInt(stat.dev);
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major.toString(16).padStart(2, "0")}:${minor.toString(16).padStart(2, "0")}:${stat.ino}`;
}

/** The pids /proc/locks lists as holding a lock on one of `keys` (waiters left out). */
async function holders(keys) {
  const handle = await fsp.open("/proc/locks", "r").catch(() => null);
  if (!handle) return null;
  let text;
  try {
    text = (await readAt(handle, 0, MAX_PROC_LOCKS_BYTES)).toString("latin1");
  } finally {
    await handle.close();
  }
  const pids = new Set();
  for (const line of text.split("\n")) {
    // "1: POSIX  ADVISORY  READ 3734 fe:00:10011387 128 128"; a waiter's line has "->".
    const fields = line.trim().split(/\s+/u);
    if (fields.length < 6 || fields[1] === "->") continue;
    if (keys.has(fields[5])) pids.add(Number(fields[4]));
  }
  return pids;
}

/**
 * Who holds the database in `indexDir` open, besides this process: `{ outside: "holder" }` (a
 * process of another pid namespace), `{ outside: "unseen" }` (none seen, but this namespace
 * cannot see every process), or null (none, and every holder would be seen). Linux only; null
 * elsewhere.
 */
async function outsideHolder(indexDir) {
  if (process.platform !== "linux") return null;
  const keys = new Set();
  for (const name of LOCKED_FILES) {
    const stat = await fsp.lstat(path.join(indexDir, name)).catch(() => null);
    if (stat?.isFile()) keys.add(lockKey(stat));
  }
  if (keys.size === 0) return null;
  const own = await readLink("/proc/self/ns/pid");
  const pids = (await holders(keys)) ?? new Set();
  for (const pid of pids) {
    if (pid === process.pid || pid <= 0) continue;
    const theirs = await readLink(`/proc/${pid}/ns/pid`);
    if (own !== null && theirs !== null && theirs !== own) return { outside: "holder" };
  }
  return own === INIT_PID_NAMESPACE ? null : { outside: "unseen" };
}

module.exports = { outsideHolder };
