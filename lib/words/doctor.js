// The words of `pi-codegraph doctor` that only it says (bin/pi-codegraph.js).

const { SOURCE_WORDS, scanText } = require("./roots.js");
const { changedNamesText, filesWord } = require("./staleness.js");

/**
 * doctor's status row from `codegraph status --json` (lib/contract/index-status.js): "ready, 3 files
 * changed since the index (2 modified, 1 added; codegraph status)", "ready, the index is up to
 * date", or why the changes are not known; `names`: the changed files lib/api/changed-files.js
 * could name (": src/cart.ts, src/gone.ts (removed) and 1 more" after the counts).
 */
function pendingStatusText(status, problem, names) {
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
  const named = changedNamesText(status.pendingChanges, names);
  return `ready, ${filesWord(total)} changed since the index (${parts.join(", ")}; codegraph status)${named}${rebuild}`;
}

/**
 * doctor's `projects` row: each project the Pi tools would answer from (the workspace's own, the ones
 * below it, the added ones), then what the scan did and a saved file that was ignored.
 */
function doctorRootLines({ roots, scan, savedProblem }) {
  const lines = roots.map(
    (r) => `${r.label}  ${r.dir}  (${SOURCE_WORDS[r.source] ?? r.source}${r.indexed ? "" : "; no index now"})`,
  );
  if (lines.length === 0) lines.push("none (no index here, none found below, none added)");
  lines.push(`scan: ${scanText(scan)}`);
  if (savedProblem) lines.push(`saved projects ignored: ${savedProblem}`);
  return lines;
}

/** At most this many links are named on doctor's `outside` row. */
const MAX_SHOWN_LINKS = 5;

/**
 * doctor's `outside` row (lib/api/outside-files.js outsideFiles' result), or null when every indexed
 * file it resolved is inside the workspace: which links the indexer followed out, how many indexed
 * files each brought in, and how to keep them out.
 */
function outsideFilesLines(found) {
  if (!found || found.links.length === 0) return null;
  const shown = found.links.slice(0, MAX_SHOWN_LINKS);
  const lines = [
    `${filesWord(found.files)} in the index come from outside the workspace through symbolic links (CodeGraph's indexer follows them, so their code reaches the model through search, node and explore):`,
    ...shown.map((l) => `${l.link} -> ${l.target} (${filesWord(l.files)})`),
  ];
  if (found.links.length > shown.length) lines.push(`and ${found.links.length - shown.length} more links`);
  if (found.cut)
    lines.push(
      found.cut === "listing"
        ? `(checked the first ${found.checked} indexed files: CodeGraph's listing passed the 16 MiB a command may print)`
        : `(checked ${found.checked} of ${found.total} indexed files: stopped at the ${found.cut} bound)`,
    );
  lines.push(
    'To keep them out: list the link in "exclude" in codegraph.json at the project root, then /codegraph rebuild; or remove the link.',
  );
  return lines;
}

/** What CI runs the suites on: the floor's Node.js line and the newest one. */
const NODE_TESTED = "Node.js 22 and 24";

/** How to get a Node.js the floor allows: a version manager, or npm alone (the npm package `node@22`, as CI does). */
const NODE_HOW =
  "`nvm install 22` (or fnm, Volta, the system's packages); with npm alone, `npm install --prefix ~/.node22 node@22`, then `~/.node22/node_modules/.bin` first on PATH";

/** The runtime row's note for a Node.js below the floor (`hosts`: lib/contract/hosts.js testedHosts), else "". */
function belowNodeFloorText(hosts, version) {
  if (!hosts.belowNodeFloor(version)) return "";
  const { range, version: floor } = hosts.nodeFloor;
  return `: below the supported floor, Node.js ${floor.join(".")} (package.json engines ${range}); known to work: ${NODE_TESTED}. Run pi-codegraph and Pi on one of those: ${NODE_HOW}`;
}

/** doctor's `pi` row: "@earendil-works/pi-coding-agent 1.0.3 to 1.6.0 (tested; they need Node.js >=22.19.0); …". */
function piTestedText(hosts) {
  const { lowest, latest } = hosts.piTested;
  const range = lowest && lowest !== latest ? `${lowest} to ${latest}` : latest;
  return `@earendil-works/pi-coding-agent ${range} (tested; they need Node.js ${hosts.nodeFloor.range}); install this package in Pi with \`pi install npm:pi-codegraph\``;
}

/** After the executable's path, when it is the CLI installed beside this package (lib/runners: discovery's last place). */
const BESIDE_PACKAGE_TEXT = " (installed beside pi-codegraph: none on PATH)";

module.exports = {
  BESIDE_PACKAGE_TEXT,
  belowNodeFloorText,
  piTestedText,
  doctorRootLines,
  outsideFilesLines,
  pendingStatusText,
};
