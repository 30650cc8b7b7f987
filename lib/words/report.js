// The words of bare `/codegraph`: readiness in at most three lines, the next step among them
// (`/codegraph doctor` says everything: lib/pi/commands/status.js).

const { forUser } = require("./messages.js");
const { shownPath } = require("./paths.js");

const SYNC_STEP = "Next: /codegraph sync brings the index up to date.";
/**
 * The sync step naming the projects whose indexes the changed files are in (`labels`, lib/pi/roots
 * labels): the plain step for the workspace's own alone, else `/codegraph sync <label>` for each.
 */
function syncStepText(labels) {
  const named = labels.filter((l) => l !== ".");
  if (named.length === 0) return SYNC_STEP;
  if (labels.length === 1) return `Next: /codegraph sync ${named[0]} brings its index up to date.`;
  return `Next: /codegraph sync <name> for each project with changes: ${labels.join(", ")}.`;
}
/** Ready, but from the part of the project a stopped rebuild wrote (lib/pi/commands/index-files.js unfinishedRebuild). */
const UNFINISHED_READY = "ready, from an unfinished index (its last rebuild was stopped before the end)";
const UNFINISHED_STEP = "Next: /codegraph rebuild builds the whole project's index.";
const MORE_LINE = "/codegraph doctor shows the details, /codegraph help the verbs.";

/** The user's next step for the states a newcomer meets first, shorter than the model's remediation. */
const USER_STEPS = {
  CODEGRAPH_NOT_FOUND:
    "Next: install the CodeGraph CLI (npm install -g @colbymchenry/codegraph), or set PI_CODEGRAPH_BIN; from a checkout of pi-codegraph, `npm install` there.",
  CODEGRAPH_NO_INDEX: "Next: /codegraph init indexes this workspace.",
  CODEGRAPH_INDEX_INTERRUPTED: "Next: /codegraph rebuild, or /codegraph unlock to use the index as it is.",
};

/**
 * "Next: <what to do>": the user's own step for `code` where there is one and it holds (`plain`:
 * no enclosing project's index to choose from, and no verb refused here), else the first line of
 * the diagnosis' remediation, which says why and what instead.
 */
const nextStepText = (code, remediation, { plain = true } = {}) =>
  (plain && USER_STEPS[code]) || `Next: ${forUser(remediation).split("\n")[0]}`;

/** The next step where the enclosing project has an index and this directory none: /codegraph init asks which. */
const enclosingStepText = (ancestorIndex) =>
  `Next: /codegraph init offers the enclosing project's index (${shownPath(ancestorIndex)}) or a new one here.`;

/** "pi-codegraph: not ready (CODEGRAPH_NO_INDEX): <the problem's first line>". */
const notReadyText = (code, problem) =>
  `pi-codegraph: not ready (${code})${problem ? `: ${String(problem).split("\n")[0]}` : ""}`;

module.exports = {
  MORE_LINE,
  SYNC_STEP,
  syncStepText,
  UNFINISHED_READY,
  UNFINISHED_STEP,
  enclosingStepText,
  nextStepText,
  notReadyText,
};
