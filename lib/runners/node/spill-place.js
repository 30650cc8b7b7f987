// Where the WebAssembly core keeps a truncated answer's full output (crates/core/src/full_output.rs
// writes it; its dir.rs finds the place natively): a private per-user directory
// (`<temp>/pi-codegraph-<uid>`, mode 0700, ours, never inside the workspace) and the files' name
// prefix. Found here because WASI reads no owner or mode and knows no pid: these are the host's
// facts. Once per process, the files of hosts that died without cleaning up are swept.

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { pidExists } = require("./pid.js");
const { IS_WINDOWS } = require("../../contract/limits.js");
const { ioReason } = require("./access.js");
const { canonicalPath, isWithin } = require("../../contract/files.js");

const SPILL_FILE_PREFIX = "explore-";
let swept = false;

const currentUid = () => (typeof process.getuid === "function" ? process.getuid() : null);

/** `dir` created 0700, or accepted if it is a real directory (not a symlink) of ours, closed to others; else a NotKeptReason. */
function privateDir(dir) {
  const unusable = (err) => ({ is: "dirUnusable", dir, error: ioReason(err) });
  if (IS_WINDOWS) {
    try {
      fs.mkdirSync(dir, { recursive: true });
      return { dir };
    } catch (err) {
      return { reason: unusable(err) };
    }
  }
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (err.code !== "EEXIST") return { reason: { is: "dirCreate", dir, error: ioReason(err) } };
  }
  let st;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    return { reason: unusable(err) };
  }
  if (!st.isDirectory() || st.uid !== currentUid()) return { reason: { is: "dirNotOurs", dir } };
  if ((st.mode & 0o077) !== 0) {
    try {
      fs.chmodSync(dir, 0o700);
    } catch (err) {
      return { reason: { is: "dirPrivate", dir, error: ioReason(err) } };
    }
  }
  return { dir };
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

/**
 * Whether the host that named a file is provably gone: its pid no longer exists in its own pid
 * namespace, which must be ours (dir.rs `owner_gone`). A file from another namespace (a container,
 * a bwrap sandbox sharing /tmp) is never swept; names without a namespace are judged by the pid.
 */
function ownerGone(name) {
  const m = /^explore-(\d+)-(?:ns(\d+)-)?/.exec(name);
  if (!m || Number(m[1]) === process.pid) return false;
  if (m[2] !== undefined && m[2] !== ownPidNamespace()) return false;
  return !pidExists(Number(m[1]));
}

/** Once per process: deletes the files of hosts that are gone (ownerGone). */
function sweepOnce(dir) {
  if (swept || IS_WINDOWS) return;
  swept = true;
  let entries = [];
  try {
    entries = fs.readdirSync(dir);
  } catch {}
  for (const name of entries) {
    if (!name.startsWith(SPILL_FILE_PREFIX)) continue;
    const file = path.join(dir, name);
    try {
      const st = fs.lstatSync(file);
      if (st.isFile() && st.uid === currentUid() && ownerGone(name)) fs.rmSync(file, { force: true });
    } catch {}
  }
}

/**
 * The place for a run's full output (`{ workspace it must stay out of, tmpdir }`): `{ dir, prefix }`
 * in the first usable private directory among TMPDIR, /tmp and /var/tmp, or `{ reason }`.
 */
function spillPlace({ workspace, tmpdir }) {
  const home = canonicalPath(workspace);
  const candidates = tmpdir && path.isAbsolute(tmpdir) ? [tmpdir] : [];
  candidates.push(...(IS_WINDOWS ? [os.tmpdir()] : ["/tmp", "/var/tmp"]));
  const name = IS_WINDOWS ? "pi-codegraph" : `pi-codegraph-${currentUid()}`;
  let reason = { is: "allTempInWorkspace" };
  for (const base of candidates) {
    if (isWithin(canonicalPath(base), home)) continue;
    const found = privateDir(path.join(base, name));
    if (found.reason) {
      reason = found.reason;
      continue;
    }
    sweepOnce(found.dir);
    const ns = ownPidNamespace();
    return { dir: found.dir, prefix: `${SPILL_FILE_PREFIX}${process.pid}-${ns === null ? "" : `ns${ns}-`}` };
  }
  return { reason };
}

module.exports = { spillPlace };
