// Failures as the addon's crates/core/src/errors.rs has them: a stable CODEGRAPH_* code and the
// facts (paths raw, a tag for each kind of reason, the OS's own text). No words here: the public
// Error is built from code + facts once, by lib/api/failures.js (through lib/words/messages.js),
// for the addon's rejections and the Node runner's alike.

/** errno → the resource it reports running out of (crates/core/src/errors/facts.rs `Resource`). */
const RESOURCE_CODES = new Set(["EMFILE", "ENFILE", "EAGAIN", "ENOMEM"]);

/** The resource an error reports running out of (its code, or the text of a dlopen failure). */
function resourceOf(err) {
  if (RESOURCE_CODES.has(err?.code ?? "")) return err.code;
  const text = String(err?.message ?? "");
  if (/Too many open files in system|\bENFILE\b/.test(text)) return "ENFILE";
  if (/Too many open files|\bEMFILE\b/.test(text)) return "EMFILE";
  if (/Cannot allocate memory|\bENOMEM\b/.test(text)) return "ENOMEM";
  if (/Resource temporarily unavailable|\bEAGAIN\b/.test(text)) return "EAGAIN";
  return null;
}

/**
 * A failure: `{ code, facts }`, and `details` (what the run knew: durations, the executable, the
 * index) once a runner hands it over, as the addon's rejections carry them. lib/api/failures.js
 * turns it into the public Error.
 */
class Problem extends Error {
  constructor(code, facts = {}, details = undefined) {
    super(code);
    Object.assign(this, { code, facts });
    if (details !== undefined) this.details = details;
  }
}
/** CODEGRAPH_UNTRUSTED: Pi does not trust the project `path` (ctx.isProjectTrusted()), so nothing runs there. */
const untrusted = (path) => new Problem("CODEGRAPH_UNTRUSTED", { path });
/** CODEGRAPH_NO_INDEX; `kind.is`: missing (+ ancestor), unusable (+ db), special, outside (+ resolved). */
const noIndex = (path, reason, kind = { is: "missing" }) => new Problem("CODEGRAPH_NO_INDEX", { path, kind, reason });
/** The OS's own words for `err`, as a message shows them: one bounded line. */
const osText = (err) =>
  String(err?.message ?? err)
    .split("\n")[0]
    .slice(0, 200);

/** CODEGRAPH_RESOURCES when `err`, met during `step` (`{ is: "readIndex" | … }`), is a resource running out; else null. */
function exhausted(step, err) {
  const resource = resourceOf(err);
  return resource ? new Problem("CODEGRAPH_RESOURCES", { resource, step, os: osText(err) }) : null;
}

module.exports = {
  untrusted,
  Problem,
  noIndex,
  osText,
  exhausted,
};
