// The `/codegraph` verbs that run a CodeGraph command on the index, declared once: each row is the
// command it runs, the CLI feature it needs (versions.js), whether it writes the index (then it
// asks first where a UI exists: `asks` "always", "never", or "whenLocked" for a lock it would
// remove), whether it needs `--yes` without a UI (`needYes`: it destroys what the index holds),
// whether it writes in a root outside the workspace only when that root's label is typed
// (`elsewhere`), and whether it deletes the index directory (`deletes`). Its words are
// lib/words/command.js's VERB_LINES and lib/words/verbs.js's; lib/pi/commands/ iterates the rows.
//
// None takes a path (`-p` or a positional): CodeGraph's `status`, `sync`, `uninit`, `unlock` and
// `index` walk up to an enclosing project's index, so each runs in the workspace and needs the
// workspace's own index (the runner's preflight refuses otherwise), except `init`, which creates
// it. Never `--force` to init or index (it overrides CodeGraph's refusal of $HOME and /). The
// writes refuse at once when a CodeGraph writer holds the index (CODEGRAPH_INDEX_BUSY) and may run
// up to the runner's longest write timeout; `-v` makes init and index print per-file progress.

const { codegraphCommand } = require("./commands.js");
const { MAX_WRITE_TIMEOUT_MS } = require("./limits.js");

const write = { writesIndex: true, timeoutMs: MAX_WRITE_TIMEOUT_MS };

const INDEX_VERBS = {
  status: {
    feature: "status --json",
    writes: false,
    command: () => codegraphCommand("status", { options: { json: true }, progress: "none", allowInterrupted: true }),
  },
  init: {
    feature: "init --yes",
    writes: true,
    asks: "always",
    elsewhere: false,
    command: () => codegraphCommand("init", { options: { yes: true, verbose: true }, needsIndex: false, ...write }),
  },
  sync: {
    feature: "sync",
    writes: true,
    asks: "never",
    elsewhere: true,
    command: () => codegraphCommand("sync", write),
  },
  rebuild: {
    feature: "index",
    writes: true,
    asks: "always",
    needYes: true,
    elsewhere: true,
    command: () => codegraphCommand("index", { options: { verbose: true }, ...write }),
  },
  uninit: {
    feature: "uninit --force",
    writes: true,
    asks: "always",
    needYes: true,
    elsewhere: true,
    deletes: true,
    command: () => codegraphCommand("uninit", { options: { force: true }, writesIndex: true }),
  },
  unlock: {
    feature: "unlock",
    writes: true,
    asks: "whenLocked",
    elsewhere: true,
    command: () => codegraphCommand("unlock", { writesIndex: true }),
  },
  // Several runs, composed by lib/api/changes.js (its handler is lib/pi/commands/verbs.js's).
  changes: { feature: "impact --file", writes: false },
};

/** The verbs whose row says `key`, as a set. */
const verbsWhere = (key) => new Set(Object.keys(INDEX_VERBS).filter((verb) => INDEX_VERBS[verb][key]));

/** The command description of `/codegraph <verb>`, or undefined for a verb that runs none. */
function verbCommand(verb) {
  return Object.hasOwn(INDEX_VERBS, verb) ? INDEX_VERBS[verb].command?.() : undefined;
}

module.exports = { INDEX_VERBS, verbCommand, verbsWhere };
