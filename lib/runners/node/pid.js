// Whether a process id still names a process (crates/core/src/pid.rs): for CodeGraph's lock
// files (index-writer.js: is the writer still at work?) and for full-output files named after
// their host (full-output.js: is that host gone?).

const fsp = require("node:fs/promises");

/**
 * What `kill(pid, 0)` says: "delivered", "not-permitted" (EPERM, or an id that cannot be asked
 * about: it exists and is someone else's) or "no-such-process" (ESRCH).
 */
function signal0(pid) {
  try {
    process.kill(pid, 0);
    return "delivered";
  } catch (err) {
    return err?.code === "ESRCH" ? "no-such-process" : "not-permitted";
  }
}

/** Whether a process with id `pid` exists: only "no such process" (ESRCH) means it does not. */
const pidExists = (pid) => signal0(pid) !== "no-such-process";

/** A process that has exited but is not reaped yet (Linux; elsewhere never). */
async function zombie(pid) {
  const stat = await fsp.readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const state = stat.slice(stat.lastIndexOf(")") + 1).trim()[0];
  return state === "Z" || state === "X";
}

module.exports = { signal0, pidExists, zombie };
