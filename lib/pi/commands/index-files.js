// The index's own files as the verbs look at them (stat only): CodeGraph's lock files and its
// database, in the directory the diagnosis found (`indexDir`: the one the CLI opens, by its own
// rule, crates/core/src/index_dir.rs), never a directory guessed here.

const fs = require("node:fs");
const path = require("node:path");

/** CodeGraph's lock files (lib/runners/node/index-writer.js). */
const LOCK_FILES = ["codegraph.lock", "rebuild.pid"];

/** CodeGraph's lock files present in the index directory `indexDir` (none without one). */
function lockFilesIn(indexDir) {
  if (typeof indexDir !== "string" || indexDir === "") return [];
  return LOCK_FILES.map((name) => path.join(indexDir, name)).filter((file) => {
    try {
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/** The lock as the status report shows it: a live writer, stale files, or none. */
function lockState(diagnosis) {
  if (diagnosis?.problemCode === "CODEGRAPH_INDEX_BUSY") return { live: diagnosis.indexProblem ?? diagnosis.problem };
  const stale = lockFilesIn(diagnosis?.indexDir);
  return stale.length ? { stale } : null;
}

/**
 * The index directory of the diagnosed workspace when it has an index of its own: a usable one
 * (`indexPath`), or any codegraph.db in the directory the CLI opens (`indexDir`); else null.
 */
function ownIndexPath(diagnosis) {
  if (diagnosis?.indexPath) return diagnosis.indexPath;
  const dir = diagnosis?.indexDir;
  return typeof dir === "string" && dir !== "" && fs.existsSync(path.join(dir, "codegraph.db")) ? dir : null;
}

module.exports = { lockFilesIn, lockState, ownIndexPath };
