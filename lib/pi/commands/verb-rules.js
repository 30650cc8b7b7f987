// The rules of the `/codegraph` verbs, apart from running them (lib/pi/commands/verbs.js): which
// verbs write, which ask first and which need `--yes` without a UI, what each needs of the CLI,
// how the typed words are read, and when CodeGraph turns file watching off.

const { isWslWindowsDrive } = require("../../contract/index-dir.js");
const { INDEX_VERBS, verbsWhere } = require("../../contract/verbs.js");
const { supports } = require("../../words/versions.js");
const { lockFileIn } = require("./index-files.js");

/** The verbs that write the index (or its lock files): they ask first where a UI exists (lib/contract/verbs.js). */
const WRITE_VERBS = verbsWhere("writes");
/** Without a UI these need `--yes`: they destroy what the index holds. */
const NEED_YES = verbsWhere("needYes");

/**
 * Whether the user has something to decide before `verb` runs on the index in `indexDir`, by its
 * row's `asks`: sync only brings it up to date and never asks; unlock asks only when it would
 * remove a lock file (otherwise it clears CodeGraph's stale daemon files); init, rebuild and uninit always.
 */
function asksFirst(verb, indexDir) {
  const asks = INDEX_VERBS[verb]?.asks ?? "always";
  if (asks === "whenLocked") return lockFileIn(indexDir) !== null;
  return asks === "always";
}
/**
 * The verbs a user most likely wants now, in order, before the rest (Pi's completion list shows
 * five at a time by default): cancel while a write runs; init without an index; rebuild and
 * unlock after an interrupted write; else the everyday reads and sync.
 */
function leadingVerbs({ problemCode, writing }) {
  if (writing) return ["cancel", "status", "doctor"];
  if (problemCode === "CODEGRAPH_NO_INDEX") return ["init", "projects", "doctor", "help"];
  if (problemCode === "CODEGRAPH_INDEX_INTERRUPTED") return ["rebuild", "unlock", "status", "doctor"];
  if (problemCode === "CODEGRAPH_NOT_FOUND") return ["doctor", "help"];
  return ["sync", "changes", "status", "doctor", "help"];
}

/** The feature each verb needs of the CLI (lib/contract/versions.js), from its row. */
const VERB_FEATURES = Object.fromEntries(Object.entries(INDEX_VERBS).map(([verb, row]) => [verb, row.feature]));
/** `"init --yes"` → `{ verb: "init", yes: true, extra: [] }`. */
function parseVerbArgs(args) {
  const parts = String(args ?? "")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const [verb = "", ...rest] = parts;
  const yes = rest.some((w) => w === "--yes" || w === "-y");
  const extra = rest.filter((w) => w !== "--yes" && w !== "-y");
  return { verb: verb.toLowerCase(), yes, extra };
}

/** No CodeGraph CLI that can run here (none found, or no runner to run it): every verb says so first. */
const cliUnusable = (d) => !d.executable && ["CODEGRAPH_NOT_FOUND", "CODEGRAPH_ADDON"].includes(d.problemCode);

/** Whether the installed CLI (`cliVersion`) has what `verb` runs. */
function verbSupport(verb, cliVersion) {
  const feature = VERB_FEATURES[verb];
  if (!feature) return { ok: true };
  try {
    const r = supports(cliVersion, feature);
    return r && r.ok === false ? r : { ok: true };
  } catch {
    return { ok: true };
  }
}

/**
 * Why CodeGraph turns file watching off here (its init then offers git hooks), or null: its own
 * rule (1.6.1 sync/watch-policy.js `watchDisabledReason`): CODEGRAPH_NO_WATCH=1, unless that,
 * CODEGRAPH_FORCE_WATCH=1 keeps it on, else a Windows drive under WSL (lib/contract/index-dir.js).
 */
function watchOff(cwd, env = process.env) {
  if (env.CODEGRAPH_NO_WATCH === "1") return { is: "env", value: "1" };
  if (env.CODEGRAPH_FORCE_WATCH === "1" || !isWslWindowsDrive(cwd, env)) return null;
  return { is: "wsl", mount: /^\/mnt\/[a-z]/i.exec(cwd)[0] };
}

module.exports = {
  leadingVerbs,
  NEED_YES,
  VERB_FEATURES,
  WRITE_VERBS,
  asksFirst,
  cliUnusable,
  parseVerbArgs,
  verbSupport,
  watchOff,
};
