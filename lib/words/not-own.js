// The words of an index directory that is not the workspace's own to write or delete (CODEGRAPH_NO_INDEX
// with `kind.is === "notOwn"`: crates/core/src/preflight/write_target.rs): a link where CodeGraph
// would write, a mount point or someone else's file where `uninit` would delete.

const { shownPath } = require("./paths.js");

/** The reasons that stop a delete (the others stop any write). */
const DELETE_REASONS = new Set(["mountPoint", "foreignEntry"]);

/** The headline's lead for a notOwn refusal, before the reason's words. */
function notOwnLead(f) {
  const dir = shownPath(f.kind?.dir ?? "");
  return DELETE_REASONS.has(f.reason?.is)
    ? `the index directory ${dir} is not CodeGraph's alone to delete`
    : `the index directory ${dir} is not this workspace's own to write`;
}

/** One remediation per reason. */
function notOwnRemediation(f) {
  const r = f.reason ?? {};
  const p = shownPath(r.path ?? "");
  const dir = shownPath(f.kind?.dir ?? "");
  if (r.is === "mountPoint")
    return `${p} is mounted from elsewhere: unmount it (or start without that volume), or delete CodeGraph's own files in it yourself (codegraph.db with its -wal and -shm, codegraph.lock, .gitignore).`;
  if (r.is === "foreignEntry")
    return `Move ${p} out of ${dir} (uninit deletes the whole directory), then run \`/codegraph uninit\` again.`;
  return `Remove the link ${p} (\`rm\` on a link removes only the link), then run \`/codegraph init\` in Pi for an index of the workspace's own; or start Pi in the project that owns that index. If that index is yours, PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1 lets pi-codegraph use an existing one outside the workspace (never to create one).`;
}

/**
 * A refusal a write would meet, as a diagnosis's fields: `<field>Problem` (the headline) and
 * `<field>Remediation`, from a runner's `{ code, facts }` and the words' own functions.
 */
function refusalFields(field, code, facts, { headline, remediation }) {
  return { [`${field}Problem`]: headline(code, facts), [`${field}Remediation`]: remediation(code, facts) };
}

/**
 * What every `/codegraph <verb>` says, before it asks or runs anything, when the index directory
 * is not the workspace's own: the diagnosis's one fact (`problem`, `remediation`), the same words
 * for every verb.
 */
function notOwnVerbText(verb, problem, remediation) {
  const said = String(problem);
  return `/codegraph ${verb}: refused; nothing was run. ${said.charAt(0).toUpperCase()}${said.slice(1)}. ${remediation}`;
}

module.exports = { notOwnLead, notOwnRemediation, notOwnVerbText, refusalFields };
