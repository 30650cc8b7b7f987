// Whether CodeGraph is writing the index right now (crates/core/src/index_writer.rs).
// `codegraph init`, `index` and `sync` hold `.codegraph/codegraph.lock` (the writer's pid) while
// they write; `codegraph index` also holds `.codegraph/rebuild.pid` (JSON with the pid) while it
// rebuilds the database from scratch. An explore meanwhile answers from a half-built graph and
// says nothing, so explore() waits for the writer, bounded, and otherwise says why it did not
// answer. Only these two small regular files are read, opened non-blocking; a lock whose pid no
// longer runs is stale and ignored. `writer.pid` is not a sign of writing: an MCP server holds it
// for as long as it runs.

const path = require("node:path");
const { pidRunning } = require("./pid.js");
const { readRegular } = require("./preflight.js");

/** CodeGraph's lock files are a few dozen bytes; anything larger is not one. */
const MAX_LOCK_BYTES = 4096;
/** How long an explore waits for CodeGraph to finish writing the index. */
const WRITER_WAIT_MS = 10000;
/** How often the lock files are read again meanwhile. */
const WRITER_POLL_MS = 100;

/** The pid a lock file names, when it is a small regular file in CodeGraph's format; else null. */
async function readPid(file, json) {
  try {
    const text = (await readRegular(file, MAX_LOCK_BYTES)).toString("utf8");
    const pid = json ? JSON.parse(text)?.pid : /^\s*\d+\s*$/.test(text) ? Number(text) : null;
    // 0 (and anything past an i32) would address a process group or nothing at all.
    return Number.isSafeInteger(pid) && pid > 0 && pid <= 0x7fffffff ? pid : null;
  } catch {
    return null;
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
    if (pid !== null && (await pidRunning(pid))) return { lock, pid, rebuild };
  }
  return null;
}

module.exports = { WRITER_WAIT_MS, WRITER_POLL_MS, activeWriter };
