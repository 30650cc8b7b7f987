// The words of the `/codegraph` command that Pi needs at session_start (its description) and
// the verbs' completion lines; the rest of the verbs' words (lib/words/verbs.js) load when a verb
// is first typed.

/** The verbs as the completion lists them: name → one line. */
const VERB_LINES = {
  status: "CodeGraph's own index report: pending changes, state, versions, lock (read-only)",
  init: "Create this workspace's CodeGraph index (codegraph init)",
  sync: "Bring the index up to date with the changed files (codegraph sync); auto | manual: after every turn, or only when typed",
  rebuild: "Recreate the index from scratch (codegraph index)",
  uninit: "Delete this workspace's index and CodeGraph's git hooks (codegraph uninit)",
  unlock: "Remove a stale CodeGraph lock left by an interrupted write (codegraph unlock)",
  cancel: "Stop the index write running in this workspace",
  changes: "What the working tree's changes touch and break, and which tests cover them (read-only)",
  tools: "Focused CodeGraph tools for the model: list, or all | none | on/off <names> (kept for this workspace)",
  projects:
    "The CodeGraph projects the tools answer from: list, or add <dir> | remove <name> (kept for this workspace)",
  doctor: "Everything pi-codegraph knows here: runner, CLI, index, limits, last error",
  help: "The verbs, a line each",
};

/** The words `/codegraph help` also answers to. */
const HELP_WORDS = ["help", "--help", "-h", "?"];

/** The command's description as Pi lists it: at most 8 words, as Pi's own are short. */
const COMMAND_DESCRIPTION = "CodeGraph index and tools (/codegraph help)";

/** `/codegraph help`: what bare /codegraph does, then each verb on a line of its own. */
function helpText() {
  const width = Math.max(...Object.keys(VERB_LINES).map((v) => v.length));
  return [
    "/codegraph: whether CodeGraph is ready here, and the next step",
    ...Object.entries(VERB_LINES).map(([verb, line]) => `/codegraph ${verb.padEnd(width)}  ${line}`),
    // The verbs' rows load when help is first asked for: Pi's start reads only this file's lines.
    `Only the verbs you type here (${[...require("../contract/verbs.js").verbsWhere("writes")].join(", ")}) write the index.`,
  ].join("\n");
}

/** What /codegraph says when another extension (`owner`, its path) registered codegraph_explore first. */
function notServingText(owner, extension) {
  return [
    `codegraph_explore is registered by another extension (${owner}), so this copy of ${extension.name} ${extension.version} (${extension.path}) serves nothing in this session.`,
    "Remove one of the two (or leave only one enabled in `pi config`) and run /reload.",
  ].join("\n");
}

/** What is said once when the session's start failed (`err`: why); the tools are then missing. */
function startFailedText(err) {
  return `pi-codegraph could not start in this session: ${err?.message ?? err}\nIts tools are not registered; run \`pi-codegraph doctor\` in the workspace.`;
}

module.exports = { COMMAND_DESCRIPTION, HELP_WORDS, VERB_LINES, helpText, notServingText, startFailedText };
