// The source search begun with a call, while CodeGraph answers: the lines that mention the names
// the call asks about (lib/contract/call-sites.js `mentionScan`, the runner's `scanSource`, each
// match with its context). Once CodeGraph has answered, the places a callers or impact answer
// leaves out (lib/api/call-sites.js) and the definitions a not-found answer lacks
// (lib/api/blind-spots.js) are picked from it, so neither waits for a search of its own after
// the answer. A search no note used is cancelled (`end()`), ending the runner's walk at its next file.

const path = require("node:path");
const { SEARCHED_SUBCOMMANDS, mentionScan } = require("../contract/call-sites.js");
const { isScannableName } = require("../contract/definitions.js");
const { DEFAULT_INDEX_DIR } = require("../contract/index-dir.js");

/** `Inventory.add`, `task::spawn`, `A#b`: the last part. */
const shortName = (name) => name.split(/::|\.|#/u).at(-1);

/**
 * `search(signal)` (a source scan) begun now: `{ found, end }` (`found`: a promise of its outcome,
 * null when it failed; `end()` aborts its signal).
 */
function begun(search) {
  const controller = new AbortController();
  const found = Promise.resolve()
    .then(() => search(controller.signal))
    .catch(() => null);
  return { found, end: () => controller.abort() };
}

/**
 * The search for `command`'s names in `cwd` (`asked(command)`: the names a not-found answer to it
 * can be about; a callers or impact answer's symbol by its short name first), begun now:
 * `{ names, found, end }` (`found`: a promise of the scan's outcome, null when it failed), or
 * null when there is no name to look for or no `scan`.
 */
function searchWhileRunning(command, cwd, scan, asked) {
  try {
    if (typeof scan !== "function") return null;
    const own = SEARCHED_SUBCOMMANDS.has(command?.subcommand) && typeof command.positional === "string";
    const names = [...new Set([...(own ? [shortName(command.positional)] : []), ...asked(command)])]
      .filter(isScannableName)
      .slice(0, 3);
    if (names.length === 0) return null;
    return { names, ...begun((signal) => scan(cwd, mentionScan(names), signal)) };
  } catch {
    return null; // a description that cannot be read: nothing begun
  }
}

/**
 * What `early` found, when it looked for every one of `names` and skipped the index directory
 * the answer used (`indexDir`; it began before that was known, with CodeGraph's default); else null.
 */
async function searched(early, names, indexDir) {
  if (!early || !names.every((n) => early.names.includes(n))) return null;
  if (path.basename(indexDir ?? DEFAULT_INDEX_DIR) !== DEFAULT_INDEX_DIR) return null;
  return early.found;
}

module.exports = { begun, searchWhileRunning, searched, shortName };
