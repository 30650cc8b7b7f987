// The words of staleness: the line appended to an answer that cites files changed or deleted
// after the CodeGraph index was last written (lib/api/staleness.js finds them), and what the status
// slot, the /codegraph report and the prompt say about files Pi's own tools edited since.

const { shownPath } = require("./paths.js");

/** At most this many stale files are named in an answer's line; the rest are counted. */
const MAX_STALE_NAMED = 8;

const filesWord = (n) => `${n} ${n === 1 ? "file" : "files"}`;

/**
 * The line appended to an answer: `stale` is `[{ path, state: "changed" | "deleted" }]`, at
 * least one. "⚠ 2 files named above changed after the CodeGraph index was last written
 * (src/text.ts; src/index.ts — deleted). Results for them may be stale; the user can run
 * /codegraph sync."
 */
function staleAnswerLine(stale) {
  const named = stale
    .slice(0, MAX_STALE_NAMED)
    .map((f) => `${shownPath(f.path)}${f.state === "deleted" ? " — deleted" : ""}`);
  if (stale.length > MAX_STALE_NAMED) named.push(`and ${stale.length - MAX_STALE_NAMED} more`);
  return (
    `⚠ ${filesWord(stale.length)} named above changed after the CodeGraph index was last written ` +
    `(${named.join("; ")}). Results for them may be stale; the user can run /codegraph sync.`
  );
}

/** The tool row's tag, collapsed or not, when files the answer cites changed after its index: "⚠ 2 files changed since the index". */
const staleTagText = (count) => `⚠ ${filesWord(count)} changed since the index`;

/** `3 files`, or with `more` (past the ledger's bound: at least that many) `1000+ files`. */
const editedWord = (count, more) => (more ? `${count}+ files` : filesWord(count));

const count = (n) => n.toLocaleString("en-US");

/** How a bound ended the walk for changes: "stopped at its time bound after reading 48,211 files". */
function walkCutText(cut) {
  const files = `${count(cut.filesSeen ?? 0)} ${cut.filesSeen === 1 ? "file" : "files"}`;
  return cut.stopped === "files"
    ? `stopped at its bound of ${files}`
    : `stopped at its time bound after reading ${files}`;
}

/**
 * The status slot's tail when files changed after the index (edited by Pi's tools, or found by
 * the walk after a shell command or before a turn): " · 3 files changed since the index"
 * ("1000+ files" past the bound); when a bound cut the walk, what it counted is a lower bound,
 * said as such (" · at least 3 files changed since the index"), and with none found, that
 * changes past what it read are not counted.
 */
function editedSlotText(n, more = false, cut = null) {
  if (cut && n === 0) return ` · changes past ${count(cut.filesSeen ?? 0)} files not counted`;
  if (cut) return ` · at least ${filesWord(n)} changed since the index`;
  return n > 0 ? ` · ${editedWord(n, more)} changed since the index` : "";
}

/** At most this many edited files are named in the /codegraph report; the rest are counted. */
const MAX_EDITED_NAMED = 3;

/**
 * The /codegraph report's readiness when files changed after the index: "ready, 4 files changed
 * since the index: src/a.ts, src/b.ts, src/c.ts and 1 more". `names`: the files (relative to the
 * workspace), in the order first seen changed.
 */
function editedReportText(n, more = false, names = [], cut = null) {
  const shown = names.slice(0, MAX_EDITED_NAMED).map(shownPath);
  const rest = n - shown.length;
  const list =
    shown.length === 0 ? "" : `: ${shown.join(", ")}${rest > 0 ? ` and ${rest}${more ? "+" : ""} more` : ""}`;
  if (cut && n === 0)
    return `ready; the walk for changes ${walkCutText(cut)}, so a change past them is not counted (/codegraph status asks CodeGraph)`;
  if (cut)
    return `ready, at least ${filesWord(n)} changed since the index (the walk for changes ${walkCutText(cut)})${list}`;
  return `ready, ${editedWord(n, more)} changed since the index${list}`;
}

/**
 * The files CodeGraph counts as changed, named where lib/api/changed-files.js could tell them
 * (`names`: `{ modified?, removed? }`), the first three, then a count of the rest (added files
 * are never named): ": src/cart.ts, src/gone.ts (removed) and 1 more"; "" when none is named.
 */
function changedNamesText(pending, names = {}) {
  const all = [...(names.modified ?? []), ...(names.removed ?? []).map((p) => `${p} (removed)`)];
  if (all.length === 0) return "";
  const total = (pending.added ?? 0) + (pending.modified ?? 0) + (pending.removed ?? 0);
  const shown = all.slice(0, MAX_EDITED_NAMED).map(shownPath);
  const rest = total - shown.length;
  return `: ${shown.join(", ")}${rest > 0 ? ` and ${rest} more` : ""}`;
}

module.exports = {
  changedNamesText,
  MAX_STALE_NAMED,
  staleAnswerLine,
  staleTagText,
  editedSlotText,
  editedReportText,
  filesWord,
};
