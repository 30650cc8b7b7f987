// The status slot: what the user sees of readiness at a glance, from the same diagnosis the
// guidance comes from (the bare `/codegraph` report: lib/pi/commands/status.js). Loaded at
// session_start, which shows it; the report loads when first asked for.

const { printable } = require("../contract/text.js");
const { editedSlotText } = require("../words/staleness.js");
const { autoSlotText } = require("../words/auto-sync.js");

/**
 * The status slot: the real state in a few words, the runner when it is a fallback, and when
 * ready how many files this session's edit/write tools changed after the index (`edited`; with
 * `editedMore`, at least that many: the ledger's bound was passed; `walkCut`: a bound ended the
 * walk for changes, which then counts at least that many), and auto sync when on (`sync`:
 * lib/pi/auto-sync.js, `{ on, syncing }`).
 */
function statusText(diagnosis, runner, edited = 0, roots = [], editedMore = false, walkCut = null, sync = null) {
  const fallback = runner?.fallback ? ` (${runner.name} runner)` : "";
  // Which roots the tools answer from, when it is not simply the workspace's own index.
  const where =
    roots.length > 1
      ? ` · ${roots.length} projects`
      : roots.length === 1 && roots[0].source !== "workspace"
        ? ` · ${printable(roots[0].label)}`
        : "";
  if (diagnosis.ready)
    return `⬡ codegraph${where}${fallback}${editedSlotText(edited, editedMore, walkCut)}${autoSlotText(sync)}`;
  const words = {
    CODEGRAPH_NO_INDEX: diagnosis.ancestorIndex ? "no index here (parent project has one)" : "no index",
    CODEGRAPH_NOT_FOUND: "CLI not installed",
    CODEGRAPH_ADDON: "addon missing",
    CODEGRAPH_UNTRUSTED: "project not trusted",
    CODEGRAPH_WORKSPACE: "workspace unusable",
    CODEGRAPH_INDEX_BUSY: "indexing",
    CODEGRAPH_INDEX_INTERRUPTED: "index unfinished",
  };
  const problem =
    words[diagnosis.problemCode] ??
    String(diagnosis.problemCode)
      .replace(/^CODEGRAPH_/, "")
      .toLowerCase();
  return `⬡ codegraph: ${problem}${fallback}`;
}

/** What cannot work until something is installed; every other problem is a step the user takes. */
const ERROR_CODES = new Set(["CODEGRAPH_NOT_FOUND", "CODEGRAPH_ADDON", "CODEGRAPH_WORKSPACE"]);

/**
 * The theme colour of the slot (Pi's own names): none when ready and current, `warning` when
 * files changed since the index or a step is needed (no index, an unfinished write), `muted`
 * while CodeGraph writes, `error` when something is missing.
 */
function statusColour(diagnosis, edited = 0) {
  if (diagnosis.ready) return edited > 0 ? "warning" : null;
  if (diagnosis.problemCode === "CODEGRAPH_INDEX_BUSY") return "muted";
  return ERROR_CODES.has(diagnosis.problemCode) ? "error" : "warning";
}

module.exports = { statusColour, statusText };
