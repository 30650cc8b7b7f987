// The words of `pi-codegraph doctor` that only it says (bin/pi-codegraph.js).

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

module.exports = { pendingStatusText };
