// Whether a process id still names a process (crates/core/src/pid.rs): for CodeGraph's lock
// files (index-writer.js: is the writer still at work?) and for full-output files named after
// their host (spill.js: is that host gone?).

const fsp = require("node:fs/promises");

/**
 * Whether a process with id `pid` exists, as `kill(pid, 0)` says: only "no such process"
 * (ESRCH) means it does not; one we may not signal, or an id that cannot be asked about, exists.
 */
function pidExists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err?.code !== "ESRCH";
  }
}

/** Whether `pid` (a single process, 1 to 2^31-1) runs: it exists and is not an unreaped zombie. */
async function pidRunning(pid) {
  // 0 and negative ids address process groups, not a process.
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid > 0x7fffffff || !pidExists(pid)) return false;
  // A process that has exited but is not reaped yet is done (Linux).
  const stat = await fsp.readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const state = stat.slice(stat.lastIndexOf(")") + 1).trim()[0];
  return state !== "Z" && state !== "X";
}

module.exports = { pidExists, pidRunning };
