// The one fact every `/codegraph` verb words the same way, before any dialog and before anything
// runs: the workspace's index directory is not its own to write (diagnose's `writeProblem`: the
// directory, or a file CodeGraph writes in it, is a link), or, for uninit, not CodeGraph's alone
// to delete (`removeProblem`: a mount point, files CodeGraph does not make). The runners refuse
// the same commands (CODEGRAPH_NO_INDEX, kind notOwn); this decides it first, from the diagnosis.

const fs = require("node:fs");
const path = require("node:path");
const { verbsWhere } = require("../../contract/verbs.js");
const { notOwnVerbText } = require("../../words/not-own.js");

/** The verbs that delete the index directory (CodeGraph's `uninit`; lib/contract/verbs.js). */
const DELETING_VERBS = verbsWhere("deletes");

/**
 * Whether the diagnosis found a database CodeGraph cannot open where the CLI looks (damaged, not
 * SQLite, a FIFO…): CodeGraph's init refuses it ("cannot be rebuilt in place") and its other
 * verbs call the project not initialized, so every verb says the diagnosis instead (stat only).
 */
function unusableDatabase(d) {
  if (d?.hasIndex || d?.problemCode !== "CODEGRAPH_NO_INDEX" || typeof d.indexDir !== "string") return false;
  try {
    fs.statSync(path.join(d.indexDir, "codegraph.db"));
    return true;
  } catch {
    return false;
  }
}

/** What `/codegraph <verb>` says instead of asking or running, from the diagnosis `d`; null: nothing stops it here. */
function notOwnRefusal(verb, d) {
  if (d?.writeProblem) return notOwnVerbText(verb, d.writeProblem, d.writeRemediation);
  if (DELETING_VERBS.has(verb) && d?.removeProblem) return notOwnVerbText(verb, d.removeProblem, d.removeRemediation);
  if (unusableDatabase(d)) return notOwnVerbText(verb, d.indexProblem ?? d.problem, d.remediation);
  return null;
}

module.exports = { notOwnRefusal };
