// The words of the `/codegraph` command that Pi needs at session_start (its description) and
// the verbs' completion lines; the rest of the verbs' words (lib/words/verbs.js) load when a verb
// is first typed.

/** The verbs as the completion lists them: name → one line. */
const VERB_LINES = {
  status: "CodeGraph's own index report: pending changes, state, versions, lock (read-only)",
  init: "Create this workspace's CodeGraph index (codegraph init)",
  sync: "Bring the index up to date with the changed files (codegraph sync)",
  rebuild: "Recreate the index from scratch (codegraph index)",
  uninit: "Delete this workspace's index and CodeGraph's git hooks (codegraph uninit)",
  unlock: "Remove a stale CodeGraph lock left by an interrupted write (codegraph unlock)",
  cancel: "Stop the index write running in this workspace",
  tools: "Focused CodeGraph tools for the model: list, or all | none | on/off <names> (saved for this project)",
  roots: "The CodeGraph projects the tools answer from: list, or add <dir> | remove <label> (saved for this project)",
};

/** The command's description as Pi lists it. */
const COMMAND_DESCRIPTION =
  "CodeGraph for this workspace: readiness report; verbs status, init, sync, rebuild, uninit, unlock, cancel (writes only when you type a verb); tools; roots";

module.exports = { COMMAND_DESCRIPTION, VERB_LINES };
