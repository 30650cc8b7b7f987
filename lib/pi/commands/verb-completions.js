// Pi's argument completion for `/codegraph ` (lib/pi/commands/table.js): the verbs, the roots'
// labels after a verb, `--yes` after a writing verb and a dash.

const { VERB_LINES } = require("../../words/command.js");
const { YES_LINE } = require("../../words/verbs.js");
const { runningWrites } = require("./running-writes.js");
const { SYNC_MODE_LINES } = require("../../words/auto-sync.js");

/** The completions of `/codegraph sync `'s modes. */
const SYNC_MODE_ITEMS = Object.entries(SYNC_MODE_LINES).map(([mode, line]) => ({
  value: `sync ${mode}`,
  label: mode,
  description: line,
}));
const { VERB_FEATURES, WRITE_VERBS, leadingVerbs, verbSupport } = require("./verb-rules.js");

/**
 * Pi's argument completion for `/codegraph `: the verbs matching `prefix` (minus those the
 * installed CLI lacks); after a verb, the labels of the `roots` (lib/pi/roots/roots.js) when there are
 * several or the only one is not the workspace's own; after a writing verb and a dash, `--yes`.
 */
function verbCompletions(prefix, cliVersion, roots = [], now = {}) {
  const text = String(prefix ?? "");
  const space = text.search(/\s/);
  if (space === -1) {
    // A verb typed in full: nothing to complete, so Enter runs it (Pi's editor applies a shown
    // argument completion on Enter instead of submitting).
    if (Object.hasOwn(VERB_LINES, text)) return null;
    const first = leadingVerbs({ problemCode: now.problemCode, writing: runningWrites.has(now.cwd) });
    const verbs = [...first, ...Object.keys(VERB_LINES).filter((v) => !first.includes(v))];
    const items = verbs
      .map((verb) => [verb, VERB_LINES[verb]])
      .filter(([verb]) => verb.startsWith(text.toLowerCase()) && verbSupport(verb, cliVersion).ok)
      .map(([verb, line]) => ({ value: verb, label: verb, description: line }));
    return items.length ? items : null;
  }
  const verb = text.slice(0, space).toLowerCase();
  const rest = text.slice(space).trim();
  // After `sync `: its modes (lib/pi/auto-sync.js), after the roots' labels when there are any.
  const modes =
    verb === "sync" && !rest.startsWith("-")
      ? SYNC_MODE_ITEMS.filter((m) => m.label.startsWith(rest) && m.label !== rest)
      : [];
  const labelled = roots.length > 1 || roots.some((r) => r.source !== "workspace");
  if (labelled && !rest.startsWith("-") && verb !== "init" && Object.hasOwn(VERB_FEATURES, verb)) {
    const items = roots
      .filter((r) => r.label.startsWith(rest) && r.label !== rest)
      .map((r) => ({ value: `${verb} ${r.label}`, label: r.label, description: r.dir }));
    return items.length + modes.length ? [...items, ...modes] : null;
  }
  if (modes.length > 0) return modes;
  // Only once a dash is typed: Enter on a shown `--yes` would fill it in unasked.
  if (!WRITE_VERBS.has(verb) || !verbSupport(verb, cliVersion).ok || !rest || !"--yes".startsWith(rest)) return null;
  return [{ value: `${verb} --yes`, label: "--yes", description: YES_LINE }];
}

module.exports = { verbCompletions };
