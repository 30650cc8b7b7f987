// Where a truncated answer's full stdout goes, so the model can `read` the rest
// (crates/core/src/full_output.rs). A private per-user directory (`<temp>/pi-codegraph-<uid>`, mode 0700,
// ours, never inside the workspace) holds one 0600 file per truncated answer, cleaned like the
// answer text. A path handed to the model stays valid until its session releases it
// (releaseFullOutputs([path]) at session_shutdown), the process exits, or a later process sweeps
// the files of hosts that died without cleaning up. Nothing is rotated away early: when the
// process budget is spent, a new answer gets no file and its marker says why.

const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { onHostExit } = require("./host-watch.js");
const { pidExists } = require("./pid.js");
const { DRAIN_LIMIT_BYTES, IS_WINDOWS } = require("../../contract/limits.js");
const { ioReason } = require("./preflight.js");
const { canonicalPath, isWithin } = require("../../contract/files.js");
const { TextCleaner } = require("./sanitize.js");

/** All full-output files of this process together hold at most this much. */
const SPILL_BUDGET_BYTES = 64 * 1024 * 1024;
const SPILL_FILE_PREFIX = "explore-";
/** Kept files (path → bytes), and the bytes held by them plus those being written. */
const keptFullOutputs = new Map();
const spillBudget = { bytes: 0 };
let sweptSpillDir = false;

const currentUid = () => (typeof process.getuid === "function" ? process.getuid() : null);

/** Why no full-output file was kept (crates/core/src/full_output.rs `NotKeptReason`), thrown. */
class NotKept extends Error {
  constructor(reason) {
    super(reason.is);
    this.reason = reason;
  }
}

/** Creates `dir` 0700, or accepts it if it is a real directory (not a symlink) of ours, closed to others. */
function ensurePrivateDir(dir) {
  const unusable = (err) => new NotKept({ is: "dirUnusable", dir, error: ioReason(err) });
  if (IS_WINDOWS) {
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw unusable(err);
    }
    return dir;
  }
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (err.code !== "EEXIST") throw new NotKept({ is: "dirCreate", dir, error: ioReason(err) });
  }
  let st;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    throw unusable(err);
  }
  if (!st.isDirectory() || st.uid !== currentUid()) throw new NotKept({ is: "dirNotOurs", dir });
  if ((st.mode & 0o077) !== 0) {
    try {
      fs.chmodSync(dir, 0o700);
    } catch (err) {
      throw new NotKept({ is: "dirPrivate", dir, error: ioReason(err) });
    }
  }
  return dir;
}

/** The first usable private directory among TMPDIR, /tmp and /var/tmp that is not inside the workspace. */
function privateSpillDir({ workspace, tmpdir: tmpdirVar }) {
  const home = canonicalPath(workspace);
  const tmpdir = tmpdirVar || undefined;
  const candidates = tmpdir && path.isAbsolute(tmpdir) ? [tmpdir] : [];
  candidates.push(...(IS_WINDOWS ? [os.tmpdir()] : ["/tmp", "/var/tmp"]));
  const name = IS_WINDOWS ? "pi-codegraph" : `pi-codegraph-${currentUid()}`;
  let last = { is: "allTempInWorkspace" };
  for (const base of candidates) {
    if (isWithin(canonicalPath(base), home)) continue;
    try {
      return ensurePrivateDir(path.join(base, name));
    } catch (err) {
      if (!(err instanceof NotKept)) throw err;
      last = err.reason;
    }
  }
  throw new NotKept(last);
}

/** This process's pid namespace (Linux: the inode of /proc/self/ns/pid), or null. */
let pidNamespace;
function ownPidNamespace() {
  if (pidNamespace === undefined) {
    try {
      pidNamespace = /^pid:\[(\d+)\]$/.exec(fs.readlinkSync("/proc/self/ns/pid"))?.[1] ?? null;
    } catch {
      pidNamespace = null;
    }
  }
  return pidNamespace;
}

/** `explore-<pid>-ns<pid namespace>-` (Linux): a sweep judges a pid only where it means the same process. */
function ownerPrefix() {
  const ns = ownPidNamespace();
  return `${SPILL_FILE_PREFIX}${process.pid}-${ns === null ? "" : `ns${ns}-`}`;
}

/**
 * Whether the host that named a file is provably gone: its pid no longer exists in its own pid
 * namespace, which must be ours (crates/core/src/full_output/dir.rs `owner_gone`). A file from
 * another namespace (a container, a bwrap sandbox sharing /tmp) is never swept; names without a
 * namespace (older versions) are judged by the pid alone.
 */
function ownerGone(name) {
  const m = /^explore-(\d+)-(?:ns(\d+)-)?/.exec(name);
  if (!m || Number(m[1]) === process.pid) return false;
  if (m[2] !== undefined && m[2] !== ownPidNamespace()) return false;
  return !pidExists(Number(m[1]));
}

/** Once per process: deletes the files of hosts that are gone (ownerGone). */
function sweepSpillDir(dir) {
  if (sweptSpillDir || IS_WINDOWS) return;
  sweptSpillDir = true;
  let entries = [];
  try {
    entries = fs.readdirSync(dir);
  } catch {}
  for (const name of entries) {
    if (!name.startsWith(SPILL_FILE_PREFIX)) continue;
    const file = path.join(dir, name);
    try {
      const st = fs.lstatSync(file);
      if (!st.isFile() || st.uid !== currentUid()) continue;
    } catch {
      continue;
    }
    if (ownerGone(name)) fs.rmSync(file, { force: true });
  }
}

/** Deletes every kept file (at exit: one registration). */
function releaseAllFullOutputs() {
  const n = keptFullOutputs.size;
  for (const file of keptFullOutputs.keys()) fs.rmSync(file, { force: true });
  keptFullOutputs.clear();
  spillBudget.bytes = 0;
  return n;
}

/** The spill file while a run writes it; `discard()` deletes it and gives its bytes back. */
class Spill {
  /** A new spill file in `target` ({ workspace, tmpdir }), or `{ reason }` (a NotKeptReason) saying why none can be made. */
  static create(target) {
    if (spillBudget.bytes >= SPILL_BUDGET_BYTES)
      return { reason: { is: "budget", mib: SPILL_BUDGET_BYTES / (1024 * 1024) } };
    let dir;
    try {
      dir = privateSpillDir(target);
    } catch (err) {
      if (!(err instanceof NotKept)) throw err;
      return { reason: err.reason };
    }
    sweepSpillDir(dir);
    for (let attempt = 0; attempt < 8; attempt++) {
      const name = `${ownerPrefix()}${crypto.randomBytes(6).toString("hex")}.txt`;
      const file = path.join(dir, name);
      try {
        return new Spill(fs.openSync(file, "wx", 0o600), file); // wx: never an existing file
      } catch (err) {
        if (err.code !== "EEXIST") return { reason: { is: "fileCreate", dir, error: ioReason(err) } };
      }
    }
    return { reason: { is: "fileCreate", dir } };
  }

  constructor(fd, file) {
    Object.assign(this, { fd, file, written: 0, cut: false, cleaner: new TextCleaner() });
    onHostExit(releaseAllFullOutputs);
  }

  /** Appends the cleaned chunk within the per-file and process bounds; throws on a write error. */
  write(chunk) {
    this.append(this.cleaner.push(chunk));
  }

  append(text) {
    if (!text) return;
    let buf = Buffer.from(text);
    const room = Math.max(0, Math.min(DRAIN_LIMIT_BYTES - this.written, SPILL_BUDGET_BYTES - spillBudget.bytes));
    if (buf.length > room) {
      let take = room;
      while (take > 0 && (buf[take] & 0xc0) === 0x80) take -= 1; // a character boundary
      buf = buf.subarray(0, take);
      this.cut = true;
    }
    spillBudget.bytes += buf.length;
    this.written += buf.length;
    for (let off = 0; off < buf.length; ) off += fs.writeSync(this.fd, buf, off, buf.length - off);
  }

  /** `{ path, bytes, complete }` once kept, or `{ reason }` when the last write failed. */
  finish(complete) {
    try {
      this.append(this.cleaner.finish());
      fs.closeSync(this.fd);
    } catch (err) {
      this.discard();
      return { reason: { is: "write", error: ioReason(err) } };
    }
    keptFullOutputs.set(this.file, this.written);
    return { path: this.file, bytes: this.written, complete: complete && !this.cut };
  }

  /** A run that failed keeps no file. */
  discard() {
    try {
      fs.closeSync(this.fd);
    } catch {}
    fs.rmSync(this.file, { force: true });
    spillBudget.bytes = Math.max(0, spillBudget.bytes - this.written);
  }
}

/**
 * Deletes full-output files: the listed paths (one session's), or with no list every file this
 * process keeps. Returns how many were deleted.
 */
function releaseFullOutputs(paths) {
  if (paths === undefined || paths === null) return releaseAllFullOutputs();
  let n = 0;
  for (const p of Array.isArray(paths) ? paths : []) {
    const bytes = keptFullOutputs.get(p);
    if (bytes === undefined) continue;
    keptFullOutputs.delete(p);
    fs.rmSync(p, { force: true });
    spillBudget.bytes = Math.max(0, spillBudget.bytes - bytes);
    n += 1;
  }
  return n;
}

module.exports = { Spill, releaseFullOutputs, SPILL_BUDGET_BYTES };
