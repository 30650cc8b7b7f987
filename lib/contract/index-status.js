// Facts read out of CodeGraph's own output for the `/codegraph` verbs: the `status --json` line
// (missing fields tolerated), the progress of a write (its phase and "3/7 (42%)" counts), and
// the summary lines a write ends with. No words here (lib/words/verbs.js words them).

/** Lines as CodeGraph prints them, without Clack's frame characters and blank lines. */
function contentLines(text) {
  return String(text ?? "")
    .split("\n")
    .map((l) => l.replace(/^[\s│┌└◆●◇▲■ℹ✓✗⚠]+/u, "").trimEnd())
    .filter((l) => l.trim() !== "");
}

/**
 * The facts of `codegraph status --json`: the first line that parses as a JSON object, flattened
 * to what the report uses; null when there is none.
 */
function parseIndexStatus(text) {
  for (const line of String(text ?? "").split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    let raw;
    try {
      raw = JSON.parse(t);
    } catch {
      continue;
    }
    if (!raw || typeof raw !== "object") continue;
    const index = raw.index && typeof raw.index === "object" ? raw.index : {};
    const num = (v) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
    const str = (v) => (typeof v === "string" && v ? v : undefined);
    const pending = raw.pendingChanges && typeof raw.pendingChanges === "object" ? raw.pendingChanges : undefined;
    return {
      initialized: raw.initialized !== false,
      version: str(raw.version),
      projectPath: str(raw.projectPath),
      indexDir: str(raw.indexPath), // CodeGraph's own name for its index directory
      lastIndexed: str(raw.lastIndexed),
      fileCount: num(raw.fileCount),
      nodeCount: num(raw.nodeCount),
      edgeCount: num(raw.edgeCount),
      dbSizeBytes: num(raw.dbSizeBytes),
      pendingChanges: pending && {
        added: num(pending.added) ?? 0,
        modified: num(pending.modified) ?? 0,
        removed: num(pending.removed) ?? 0,
      },
      worktreeMismatch: raw.worktreeMismatch ?? null,
      builtWithVersion: str(index.builtWithVersion),
      // null once a build started and never finished (CodeGraph records it when one finishes).
      builtWithExtractionVersion: num(index.builtWithExtractionVersion),
      reindexRecommended: index.reindexRecommended === true,
      state: str(index.state),
      pendingRefs: num(index.pendingRefs),
    };
  }
  return null;
}

const PHASE_LINE = /Phase:\s*([a-z][a-z -]*)/i;
const COUNT_LINE = /(\d+)\/(\d+)\s+\((\d+)%\)/;
const STEP_LINE = /^(Scanning|Parsing|Resolving|Linking|Syncing|Indexing)\b/i;

/**
 * Where a write stands, from the last lines it printed: `{ phase?, done?, total?, percent? }`
 * (`index -v`/`init -v` print "[0.1s] Phase: parsing" and "[0.5s]   3/7 (42%) — src/cart.ts";
 * without -v, "Parsing code...").
 */
function writeProgress(text) {
  const lines = String(text ?? "").split("\n");
  const found = {};
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (found.done === undefined && found.phase === undefined) {
      const c = COUNT_LINE.exec(line);
      if (c) Object.assign(found, { done: Number(c[1]), total: Number(c[2]), percent: Number(c[3]) });
    }
    const p = PHASE_LINE.exec(line);
    if (p) {
      found.phase = p[1].trim().toLowerCase();
      break;
    }
    const s = STEP_LINE.exec(line.replace(/^[\s│◆●]+/u, ""));
    if (s) {
      found.phase = s[1].toLowerCase();
      break;
    }
  }
  return found;
}

/** The last lines of `text` (at most `n`), for the progress of a run whose text hit the caps. */
function lastLines(text, n = 20) {
  return String(text ?? "")
    .split("\n")
    .slice(-n)
    .join("\n");
}

/**
 * CodeGraph's summary of a write: its result lines ("Indexed 7 files", "43 nodes, 81 edges in
 * 264ms", "Already up to date", "Synced 1 changed files", hooks installed), without the progress
 * and its debug lines.
 */
function writeSummary(text) {
  return contentLines(text).filter(
    (l) =>
      !/^\[\d/.test(l) &&
      !/^\[[a-z][a-z-]*\]/.test(l) && // CodeGraph's debug lines: `[worker] …`, `[wal-valve] …`
      !/^(Scanning|Parsing|Resolving|Linking)\b.*\.\.\.$/.test(l) &&
      !/^(Initializing CodeGraph|Indexing project|Syncing CodeGraph|Done)$/.test(l),
  );
}

/** CodeGraph's own time in a result line ("43 nodes, 81 edges in 642ms"): the verb says the one we measured. */
const OWN_TIME = /\s+in\s+\d+(?:\.\d+)?\s*(?:ms|s|m)$/;

/**
 * What a finished write said, as facts: `summary` (its last result lines, without CodeGraph's own
 * time and its "Initialized in <workspace>"), `upToDate` (a sync that found nothing to do),
 * `nothingToDo` (an unlock that found no stale lock).
 */
function writeOutcome(text) {
  const summary = writeSummary(text)
    .filter((l) => !/^Initialized in /.test(l))
    .map((l) => l.replace(OWN_TIME, ""))
    .slice(-8);
  return { summary, upToDate: /Already up to date/.test(text), nothingToDo: /nothing to do/i.test(text) };
}

module.exports = { contentLines, parseIndexStatus, writeProgress, lastLines, writeOutcome, writeSummary };
