// Which root a `/codegraph <verb>` acts on (lib/pi/roots/roots.js): the one its label names; without a
// label, the workspace's own (always for init), else the only root; but a verb that writes acts
// on a root outside the workspace only when the user typed that root's label.

const { verbsWhere } = require("../../contract/verbs.js");

/** The verbs that write an index (or its lock files) in a root other than the workspace (lib/contract/verbs.js). */
const WRITES_ELSEWHERE = verbsWhere("elsewhere");

/**
 * The root `verb` acts on: `{ root }` (null: the workspace), `{ unknown: labels }` when `label`
 * names none of the roots, `{ pick: labels }` when several could be meant, `{ typeLabel: root }`
 * when the only root is outside the workspace and `verb` writes: nothing runs until its label is typed.
 */
function verbTarget(verb, label, state) {
  const all = state?.roots ?? [];
  const roots = state?.verbRoots?.() ?? state?.toolRoots?.() ?? [];
  if (label !== undefined) {
    const root = all.find((r) => r.label === label);
    return root ? { root } : { unknown: all.map((r) => r.label) };
  }
  if (verb === "init" || roots.length === 0 || roots.some((r) => r.source === "workspace")) return { root: null };
  if (roots.length > 1) return { pick: roots.map((r) => r.label) };
  if (!roots[0].inside && WRITES_ELSEWHERE.has(verb)) return { typeLabel: roots[0] };
  return { root: roots[0] };
}

/**
 * The root what `verb` says is about, to name in its first line: `root` (another root than the
 * workspace), or, for a write in the workspace while the session has other roots, the workspace
 * (`{ label: ".", dir: cwd }`); null when there is nothing to tell apart.
 */
function spokenRoot(verb, root, state, cwd) {
  if (root) return root;
  const others = (state?.roots ?? []).some((r) => r.indexed && r.source !== "workspace");
  return others && (verb === "init" || WRITES_ELSEWHERE.has(verb)) ? { label: ".", dir: cwd } : null;
}

module.exports = { spokenRoot, verbTarget };
