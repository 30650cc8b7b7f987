// Whether CodeGraph is writing the index right now (crates/core/src/index_writer.rs).
// `codegraph init`, `index` and `sync` hold `.codegraph/codegraph.lock` (the writer's pid) while
// they write; `codegraph index` also holds `.codegraph/rebuild.pid` (JSON with the pid) while it
// rebuilds the database from scratch. An explore meanwhile answers from a half-built graph and
// says nothing, so explore() waits for the writer, bounded, and otherwise says why it did not
// answer. Only these two small regular files are read, opened non-blocking; a lock whose pid no
// longer runs is stale and ignored. `writer.pid` is not a sign of writing: an MCP server holds it
// for as long as it runs.

const fsp = require("node:fs/promises");
const path = require("node:path");
const { HEADER_OPEN_FLAGS } = require("./preflight.js");

/** CodeGraph's lock files are a few dozen bytes; anything larger is not one. */
const MAX_LOCK_BYTES = 4096;
/** How long an explore waits for CodeGraph to finish writing the index. */
const WRITER_WAIT_MS = 10000;
/** How often the lock files are read again meanwhile. */
const WRITER_POLL_MS = 100;

/** Whether process `pid` runs (one we may not signal counts; an unreaped zombie does not). */
async function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err?.code !== "EPERM") return false;
  }
  // A process that has exited but is not reaped yet has finished writing (Linux).
  const stat = await fsp.readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const state = stat.slice(stat.lastIndexOf(")") + 1).trim()[0];
  return state !== "Z" && state !== "X";
}

/** The pid a lock file names, when it is a small regular file in CodeGraph's format; else null. */
async function readPid(file, json) {
  let handle;
  try {
    handle = await fsp.open(file, HEADER_OPEN_FLAGS);
    if (!(await handle.stat()).isFile()) return null;
    const buf = Buffer.alloc(MAX_LOCK_BYTES);
    let got = 0;
    while (got < MAX_LOCK_BYTES) {
      const { bytesRead } = await handle.read(buf, got, MAX_LOCK_BYTES - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const text = buf.subarray(0, got).toString("utf8");
    const pid = json ? JSON.parse(text)?.pid : /^\s*\d+\s*$/.test(text) ? Number(text) : null;
    // 0 (and anything past an i32) would address a process group or nothing at all.
    return Number.isSafeInteger(pid) && pid > 0 && pid <= 0x7fffffff ? pid : null;
  } catch {
    return null;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/** The live writer of the index in `indexDir` — `{ lock, pid, rebuild }` — or null. */
async function activeWriter(indexDir) {
  for (const [name, rebuild] of [
    ["rebuild.pid", true],
    ["codegraph.lock", false],
  ]) {
    const lock = path.join(indexDir, name);
    const pid = await readPid(lock, rebuild);
    if (pid !== null && (await alive(pid))) return { lock, pid, rebuild };
  }
  return null;
}

module.exports = { WRITER_WAIT_MS, WRITER_POLL_MS, activeWriter };
