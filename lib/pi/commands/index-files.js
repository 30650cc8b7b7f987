// The index's own files as the verbs look at them (stat only): CodeGraph's lock files and its
// database, in the directory the diagnosis found (`indexDir`: the one the CLI opens, by its own
// rule, crates/core/src/index_dir.rs), never a directory guessed here.

const fs = require("node:fs");
const path = require("node:path");

/**
 * The lock every CodeGraph write holds (crates/core/src/index_writer.rs), and the only file
 * `codegraph unlock` removes (besides its daemon's files): a stale one blocks CodeGraph's next write.
 */
const LOCK_FILE = "codegraph.lock";
/**
 * What `codegraph index` holds for a whole rebuild and removes when it ends, however it ends; left
 * behind only when the rebuild was stopped (killed, cancelled). CodeGraph replaces it at the next
 * rebuild and `unlock` leaves it, so it is no lock to remove: it says the index is unfinished.
 */
const REBUILD_FILE = "rebuild.pid";

const fileIn = (indexDir, name) => {
  if (typeof indexDir !== "string" || indexDir === "") return null;
  const file = path.join(indexDir, name);
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
};

/** CodeGraph's lock file in the index directory `indexDir` (what `unlock` would remove), or null. */
const lockFileIn = (indexDir) => fileIn(indexDir, LOCK_FILE);

/** No writer runs on the diagnosed index (the core judged it, crates/core/src/index_writer.rs). */
const noWriter = (diagnosis) => diagnosis?.problemCode !== "CODEGRAPH_INDEX_BUSY";

/** The lock as the status report shows it: a live writer, a stale lock (its path), or none. */
function lockState(diagnosis) {
  if (!noWriter(diagnosis)) return { live: diagnosis.indexProblem ?? diagnosis.problem };
  const stale = lockFileIn(diagnosis?.indexDir);
  return stale ? { stale } : null;
}

/**
 * The `rebuild.pid` a stopped rebuild left, when no writer runs: the index holds what that rebuild
 * had written (part of the project) until a rebuild finishes; null otherwise.
 */
function unfinishedRebuild(diagnosis) {
  return noWriter(diagnosis) ? fileIn(diagnosis?.indexDir, REBUILD_FILE) : null;
}

/**
 * The index directory of the diagnosed workspace when it has an index of its own: a usable one
 * (`hasIndex`), or any codegraph.db in the directory the CLI opens (`indexDir`); else null.
 */
function ownIndexPath(diagnosis) {
  if (diagnosis?.hasIndex) return diagnosis.indexDir;
  const dir = diagnosis?.indexDir;
  return typeof dir === "string" && dir !== "" && fs.existsSync(path.join(dir, "codegraph.db")) ? dir : null;
}

module.exports = { lockFileIn, lockState, ownIndexPath, unfinishedRebuild };
