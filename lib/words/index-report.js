// The words of `/codegraph status` (lib/pi/commands/verbs.js): CodeGraph's own report of the index,
// from the facts lib/contract/index-status.js reads out of `codegraph status --json`, with what
// the lock files say.

const { shownPath } = require("./paths.js");
const { changedNamesText } = require("./staleness.js");
const { bytesText } = require("./verbs.js");

/** The lock line of the status report: `lock` is { live: problem } | { stale: path } | null. */
function lockLine(lock) {
  if (!lock) return "lock: none (no CodeGraph writer runs)";
  if (lock.live) return `lock: held by a live CodeGraph writer (${lock.live})`;
  return `lock: stale (${shownPath(lock.stale)}): no CodeGraph writer runs; /codegraph unlock removes it`;
}

const STATES = {
  complete: "complete",
  partial: "partial (an index write did not finish: /codegraph rebuild)",
  failed: "failed (the last index write failed: /codegraph rebuild)",
};

/**
 * Whether the index is unfinished, from CodeGraph's `index.state` and the lock files: "indexing"
 * with no live writer, or a stopped rebuild's rebuild.pid left (its state may be null: stopped
 * before it marked the run) on an index CodeGraph does not call complete.
 */
const isUnfinished = (s, f) =>
  !f.lock?.live && (s.state === "indexing" || (Boolean(f.unfinished) && s.state !== "complete"));

/** CodeGraph's `index.state` in words (`unfinished`: isUnfinished); null when nothing is known. */
function stateText(s, unfinished) {
  if (unfinished)
    return "unfinished (the last index write was stopped before its end, so the index may hold only part of the project: /codegraph rebuild builds it whole)";
  if (s.state === "indexing") return "indexing (a CodeGraph write is running now)";
  return s.state ? (STATES[s.state] ?? s.state) : null;
}

/** Why CodeGraph recommends a rebuild: no build of this index ever finished, or its extractor changed since. */
const rebuildWhyText = (s) =>
  s.builtWithExtractionVersion === undefined
    ? "rebuild recommended: no build of this index has finished; run /codegraph rebuild (sync will not fix this)"
    : "rebuild recommended: CodeGraph's extractor changed since this index was built; run /codegraph rebuild (sync will not fix this)";

/**
 * When CodeGraph last wrote the index, as a person reads it: "5 min ago (2026-12-06 09:14 UTC)";
 * CodeGraph's own text when it is no time; "unknown" without one.
 */
function whenText(iso, nowMs = Date.now()) {
  const at = Date.parse(iso ?? "");
  if (!Number.isFinite(at)) return iso ?? "unknown";
  const minutes = Math.round((nowMs - at) / 60000);
  const ago =
    minutes < 1
      ? "just now"
      : minutes < 60
        ? `${minutes} min ago`
        : minutes < 48 * 60
          ? `${Math.round(minutes / 60)} h ago`
          : `${Math.round(minutes / 1440)} days ago`;
  return `${ago} (${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC)`;
}

/** The `/codegraph status` report from the parsed `status --json` facts `s` plus what we know. */
function indexReport(s, f) {
  const lines = [`CodeGraph index of ${shownPath(s.projectPath ?? f.cwd)}`];
  const cli = f.cliVersion ?? s.version ?? "unknown";
  const built = s.builtWithVersion ?? "unknown";
  const differ = s.builtWithVersion && cli !== "unknown" && s.builtWithVersion !== cli;
  lines.push(`versions: CLI ${cli}; index built with ${built}${differ ? " (they differ)" : ""}`);
  const unfinished = isUnfinished(s, f);
  const state = stateText(s, unfinished);
  if (state) lines.push(`state: ${state}`);
  // An unfinished index's state line says it already.
  if (s.reindexRecommended && !unfinished) lines.push(rebuildWhyText(s));
  const p = s.pendingChanges;
  if (p) {
    const total = (p.added ?? 0) + (p.modified ?? 0) + (p.removed ?? 0);
    lines.push(
      total
        ? `pending changes: ${p.added ?? 0} added, ${p.modified ?? 0} modified, ${p.removed ?? 0} removed since the last write${changedNamesText(p, f.changedNames)}; run /codegraph sync`
        : "pending changes: none (the index matches the files)",
    );
  } else lines.push("pending changes: not reported");
  if (Number.isFinite(s.pendingRefs) && s.pendingRefs > 0)
    lines.push(`pending references: ${s.pendingRefs} not yet resolved`);
  if (s.worktreeMismatch)
    lines.push(
      `worktree mismatch: ${typeof s.worktreeMismatch === "string" ? s.worktreeMismatch : JSON.stringify(s.worktreeMismatch)}`,
    );
  lines.push(lockLine(f.lock));
  lines.push(`last indexed: ${whenText(s.lastIndexed)}`);
  const count = (n, what) => (Number.isFinite(n) ? `${n} ${what}` : `? ${what}`);
  lines.push(
    `size: ${count(s.fileCount, "files")}, ${count(s.nodeCount, "nodes")}, ${count(s.edgeCount, "edges")}; database ${bytesText(s.dbSizeBytes)}`,
  );
  lines.push(
    "note: CodeGraph opens the index read-write even for status and explore, and migrates an index built by an older CodeGraph in place.",
  );
  return lines.join("\n");
}

/** `status --json` printed something that is not its JSON line. */
const unreadableStatusText = (text) =>
  `/codegraph status: CodeGraph's status output could not be read as JSON; it said:\n${String(text).slice(0, 2000)}`;

module.exports = { indexReport, unreadableStatusText };
