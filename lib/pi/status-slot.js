// The status slot: what the user sees of readiness at a glance, from the same diagnosis the
// guidance comes from (the bare `/codegraph` report: lib/pi/commands/status.js). Loaded at
// session_start, which shows it; the report loads when first asked for.

const { printable } = require("../contract/text.js");
const { editedSlotText } = require("../words/staleness.js");

/**
 * The status slot: the real state in a few words, the runner when it is a fallback, and when
 * ready how many files this session's edit/write tools changed after the index (`edited`; with
 * `editedMore`, at least that many: the ledger's bound was passed).
 */
function statusText(diagnosis, runner, edited = 0, roots = [], editedMore = false) {
  const fallback = runner?.fallback ? ` (${runner.name} runner)` : "";
  // Which roots the tools answer from, when it is not simply the workspace's own index.
  const where =
    roots.length > 1
      ? ` · ${roots.length} projects`
      : roots.length === 1 && roots[0].source !== "workspace"
        ? ` · ${printable(roots[0].label)}`
        : "";
  if (diagnosis.ready) return `⬡ codegraph${where}${fallback}${editedSlotText(edited, editedMore)}`;
  const words = {
    CODEGRAPH_NO_INDEX: diagnosis.ancestorIndex ? "no index here (parent project has one)" : "no index",
    CODEGRAPH_NOT_FOUND: "not installed",
    CODEGRAPH_ADDON: "addon missing",
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

module.exports = { statusText };
