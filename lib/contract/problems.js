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
/** `reason`: `{ is: "blank" | "nul" | "tooLong" | … }` (lib/words/reasons.js names them all). */
const invalidOptions = (reason) => new Problem("CODEGRAPH_INVALID_OPTIONS", { reason });
/** CODEGRAPH_WORKSPACE; `denied`: this user may not read or enter it (a permissions remediation). */
const badWorkspace = (path, reason, denied = false) => new Problem("CODEGRAPH_WORKSPACE", { path, denied, reason });
/** CODEGRAPH_UNTRUSTED: Pi does not trust the project `path` (ctx.isProjectTrusted()), so nothing runs there. */
const untrusted = (path) => new Problem("CODEGRAPH_UNTRUSTED", { path });
const notFound = (reason) => new Problem("CODEGRAPH_NOT_FOUND", { reason });
const spawnFailed = (reason) => new Problem("CODEGRAPH_SPAWN", { reason });
/** CODEGRAPH_NO_INDEX; `kind.is`: missing (+ ancestor), unusable (+ db), special, outside (+ resolved). */
const noIndex = (path, reason, kind = { is: "missing" }) => new Problem("CODEGRAPH_NO_INDEX", { path, kind, reason });
/** The last write of the index never finished (crates/core/src/index_writer.rs `interrupted_write`). */
const indexInterrupted = (w) =>
  new Problem("CODEGRAPH_INDEX_INTERRUPTED", { lock: w.lock, pid: w.pid, rebuild: w.rebuild });
/**
 * CodeGraph is writing the index (a live `writer`: crates/core/src/index_writer.rs); `waitedMs` of waiting.
 * `outside` ("holder" or "unseen") only when the pid runs nowhere here but a writer may live
 * outside this pid namespace.
 */
const indexBusy = (writer, waitedMs) =>
  new Problem("CODEGRAPH_INDEX_BUSY", {
    lock: writer.lock,
    pid: writer.pid,
    rebuild: writer.rebuild,
    ...(writer.outside ? { outside: writer.outside } : {}),
    waitedMs,
  });

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

/** What the CLI had printed when it was stopped, for details.partialText/partialBytes. */
const partialOf = (partial) => ({ partialBytes: partial?.bytes ?? 0, partialText: partial?.text ?? "" });

/**
 * CODEGRAPH_TIMEOUT; `stalled`: the workspace checks, not the CLI, did not finish. `writerSeen`:
 * the CodeGraph writer active on the index at that moment (`{ lock, pid, rebuild }`), filled in by
 * explore.js; null when none, or when the checks never reached the index.
 */
const timedOut = (timeoutMs, stderrTail = "", partial = undefined, stalled = false) =>
  new Problem("CODEGRAPH_TIMEOUT", { timeoutMs, stderrTail, stalled, ...partialOf(partial), writerSeen: null });
const cancelled = (partial) => new Problem("CODEGRAPH_CANCELLED", partialOf(partial));

/**
 * CODEGRAPH_GIT: git could not answer. `reason.is`: notFound (+ skipped: one inside the workspace
 * passed over), notRepository, noHead, unsafeOwner, exit (+ exitCode, stderrTail), timeout (+ timeoutMs),
 * spawn (+ os), invalid (+ problem: the description's, as the core read it: crates/core/src/git_command.rs). `subcommand`: git's.
 */
const gitFailed = (subcommand, reason) => new Problem("CODEGRAPH_GIT", { subcommand, reason });

/** A Problem with the run's `details` (anything else is a bug here, still a CODEGRAPH_SPAWN with no details). */
function withDetails(p, details) {
  if (!(p instanceof Problem)) return new Problem("CODEGRAPH_SPAWN", { reason: { is: "bug", text: osText(p) } }, {});
  return new Problem(p.code, p.facts, details);
}

module.exports = {
  untrusted,
  Problem,
  invalidOptions,
  badWorkspace,
  notFound,
  gitFailed,
  noIndex,
  indexBusy,
  indexInterrupted,
  spawnFailed,
  resourceOf,
  osText,
  exhausted,
  timedOut,
  cancelled,
  withDetails,
};
