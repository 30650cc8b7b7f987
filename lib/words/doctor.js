// The words of `pi-codegraph doctor` that only it says (bin/pi-codegraph.js).

const { SOURCE_WORDS, scanText } = require("./roots.js");
const { filesWord } = require("./staleness.js");

/**
 * doctor's status row from `codegraph status --json` (lib/index-status.js): "ready, 3 files
 * changed since the index (2 modified, 1 added; codegraph status)", "ready, the index is up to
 * date", or why the changes are not known.
 */
function pendingStatusText(status, problem) {
  if (!status?.pendingChanges)
    return `ready (changes since the index not known: ${problem ?? "codegraph status gave no counts"})`;
  const { added, modified, removed } = status.pendingChanges;
  const total = added + modified + removed;
  const rebuild = status.reindexRecommended ? "; CodeGraph recommends a rebuild (/codegraph rebuild)" : "";
  if (total === 0) return `ready, the index is up to date${rebuild}`;
  const parts = [
    [modified, "modified"],
    [added, "added"],
    [removed, "removed"],
  ]
    .filter(([n]) => n > 0)
    .map(([n, w]) => `${n} ${w}`);
  return `ready, ${filesWord(total)} changed since the index (${parts.join(", ")}; codegraph status)${rebuild}`;
}

/**
 * doctor's `roots` row: each root the Pi tools would answer from (the workspace's own, the ones
 * below it, the added ones), then what the scan did and a saved file that was ignored.
 */
function doctorRootLines({ roots, scan, savedProblem }) {
  const lines = roots.map(
    (r) => `${r.label}  ${r.dir}  (${SOURCE_WORDS[r.source] ?? r.source}${r.indexed ? "" : "; no index now"})`,
  );
  if (lines.length === 0) lines.push("none (no index here, none found below, none added)");
  lines.push(`scan: ${scanText(scan)}`);
  if (savedProblem) lines.push(`saved roots ignored: ${savedProblem}`);
  return lines;
}

module.exports = { doctorRootLines, pendingStatusText };
