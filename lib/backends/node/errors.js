// Errors: a stable CODEGRAPH_* code, a one-line remediation and a self-contained message, as
// the addon's src/errors.rs builds them (Pi hands only `error.message` to the model).

const REMEDIATION = {
  CODEGRAPH_INVALID_REQUEST:
    "Send one non-empty natural-language question of at most 10,000 characters, without NUL bytes.",
  CODEGRAPH_INVALID_OPTIONS:
    "Pass options as { timeoutMs?: milliseconds, onProgress?: function } and the signal as an AbortSignal, or leave them out.",
  CODEGRAPH_WORKSPACE:
    "Start Pi in an existing project directory; codegraph_explore only runs in Pi's active workspace.",
  CODEGRAPH_NOT_FOUND:
    "Install the CodeGraph CLI (npm install -g @colbymchenry/codegraph) and make sure `codegraph` is on PATH, or set PI_CODEGRAPH_BIN to its absolute path.",
  CODEGRAPH_SPAWN: "Check that the codegraph executable is a runnable program and that the workspace is readable.",
  CODEGRAPH_EXIT: "Read the stderr tail below; run the same `codegraph explore` in the workspace to reproduce it.",
  CODEGRAPH_TIMEOUT:
    "Ask a narrower question that names concrete symbols or files, or check the index with `codegraph status`.",
  CODEGRAPH_CANCELLED: "Nothing to fix: the request was cancelled before codegraph answered.",
};

/** A failure inside this file; `explore()` turns it into the public Error at the edge. */
class Problem extends Error {
  constructor(code, text, extra = {}, remediation = REMEDIATION[code]) {
    super(text);
    Object.assign(this, { code, text, extra, remediation });
  }
}
const invalidRequest = (reason) =>
  new Problem("CODEGRAPH_INVALID_REQUEST", `the Explore request is invalid: ${reason}`);
const invalidOptions = (reason) =>
  new Problem("CODEGRAPH_INVALID_OPTIONS", `the explore options are invalid: ${reason}`);
// The addon prints the path with Rust's `{:?}`; JSON quoting is the same for ordinary paths.
const badWorkspace = (p, reason) =>
  new Problem("CODEGRAPH_WORKSPACE", `the workspace ${JSON.stringify(p)} is not usable: ${reason}`);
const notFound = (reason) => new Problem("CODEGRAPH_NOT_FOUND", `the CodeGraph CLI was not found: ${reason}`);
const noIndex = (workspace, reason) =>
  new Problem(
    "CODEGRAPH_NO_INDEX",
    `this workspace has no CodeGraph index: ${reason}`,
    {},
    `Run \`codegraph init\` in ${workspace} yourself; pi-codegraph never creates, syncs or repairs the index.`,
  );
const spawnFailed = (reason) => new Problem("CODEGRAPH_SPAWN", `codegraph could not be started: ${reason}`);
const timedOut = (ms) =>
  new Problem("CODEGRAPH_TIMEOUT", `codegraph explore did not finish within ${ms} ms and was stopped`, {
    timeoutMs: ms,
  });
const cancelled = () => new Problem("CODEGRAPH_CANCELLED", "the explore was cancelled and codegraph was stopped");

/** A copy without the undefined fields (the addon leaves absent values out). */
const withoutUndefined = (obj) => Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));

/** The public Error: `CODE: message.\nRemediation: …`, plus `code`, `remediation`, `details`. */
function publicError(p, failure) {
  if (!(p instanceof Problem)) p = spawnFailed(String(p?.message ?? p)); // a bug here, still a contract error
  let message = `${p.code}: ${p.text}.\nRemediation: ${p.remediation}`;
  const tail = p.extra.stderrTail ?? "";
  // A failed CLI always shows its stderr tail; a stuck one only when it said something.
  if (tail.trim()) message += `\nstderr (last 4 KB):\n${tail.trimEnd()}`;
  else if (p.code === "CODEGRAPH_EXIT") message += "\nstderr: (empty)";
  const details = withoutUndefined({ ...failure, ...p.extra });
  return Object.assign(new Error(message), { code: p.code, remediation: p.remediation, details });
}

module.exports = {
  REMEDIATION,
  Problem,
  invalidRequest,
  invalidOptions,
  badWorkspace,
  notFound,
  noIndex,
  spawnFailed,
  timedOut,
  cancelled,
  withoutUndefined,
  publicError,
};
