// Errors: a stable CODEGRAPH_* code, a one-line remediation and a self-contained message, as
// the addon's crates/core/src/errors.rs builds them (Pi hands only `error.message` to the model). Messages
// stay short and bounded: every path goes through shownPath(), and the stderr tail is the only
// CLI-provided text that reaches them, already capped.

/** The longest a path may be in a message; longer ones keep their start and end. */
const MAX_SHOWN_PATH_CHARS = 240;
const NEVER_WRITES_INDEX = "pi-codegraph never creates, syncs or repairs the index.";

/**
 * A path as a message may show it: control characters escaped (a directory name with a newline
 * must not add lines to what the model reads), at most MAX_SHOWN_PATH_CHARS characters. The
 * escapes are Rust's `char::escape_default` (`\n`, `\t`, `\r`, `\u{1b}`), as the addon prints them.
 */
function shownPath(p) {
  let escaped = "";
  for (const c of String(p)) {
    const n = c.codePointAt(0);
    if (n < 0x20 || (n >= 0x7f && n <= 0x9f)) {
      escaped += { 9: "\\t", 10: "\\n", 13: "\\r" }[n] ?? `\\u{${n.toString(16)}}`;
    } else escaped += c;
  }
  const chars = [...escaped];
  if (chars.length <= MAX_SHOWN_PATH_CHARS) return escaped;
  const half = MAX_SHOWN_PATH_CHARS / 2;
  const omitted = chars.length - 2 * half;
  return `${chars.slice(0, half).join("")}…(${omitted} characters omitted)…${chars.slice(-half).join("")}`;
}

const REMEDIATION = {
  CODEGRAPH_INVALID_REQUEST:
    "Send one non-empty natural-language question of at most 10,000 characters (as JavaScript counts them), without NUL bytes.",
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
  CODEGRAPH_CANCELLED: "Nothing to fix: the request was cancelled.",
};

/**
 * Running out of a system resource (crates/core/src/resources.rs): errno → what ran out and the
 * remediation naming it. The workspace, index and executable may all be fine.
 */
const RESOURCES = {
  EMFILE: [
    "file descriptors (this process's limit)",
    "The host process has no file descriptors left (EMFILE): close files it holds open or raise its limit (`ulimit -n`), then ask again.",
  ],
  ENFILE: [
    "file descriptors (the system's open-file table)",
    "The system's open-file table is full (ENFILE): close files in other programs or raise the system limit (fs.file-max on Linux), then ask again.",
  ],
  EAGAIN: [
    "processes or threads",
    "No new process or thread could be created (EAGAIN): end processes or raise the user's process limit (`ulimit -u`), then ask again.",
  ],
  ENOMEM: ["memory", "There was not enough memory (ENOMEM): free memory (end other programs), then ask again."],
};
/** The resource an error reports running out of (its code, or the text of a dlopen failure). */
function resourceOf(err) {
  if (Object.hasOwn(RESOURCES, err?.code ?? "")) return err.code;
  const text = String(err?.message ?? "");
  if (/Too many open files in system|\bENFILE\b/.test(text)) return "ENFILE";
  if (/Too many open files|\bEMFILE\b/.test(text)) return "EMFILE";
  if (/Cannot allocate memory|\bENOMEM\b/.test(text)) return "ENOMEM";
  if (/Resource temporarily unavailable|\bEAGAIN\b/.test(text)) return "EAGAIN";
  return null;
}

/** A failure inside the backend; `explore()` turns it into the public Error at the edge. */
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
/** CODEGRAPH_WORKSPACE; `denied`: this user may not read or enter it (a permissions remediation). */
const badWorkspace = (p, reason, denied = false) =>
  new Problem(
    "CODEGRAPH_WORKSPACE",
    `the workspace ${shownPath(p)} is not usable: ${reason}`,
    {},
    denied
      ? `Give this user read and execute access to ${shownPath(p)} (check its owner and mode with \`ls -ld\`), or start Pi as a user who can read it; codegraph_explore only runs in Pi's active workspace.`
      : REMEDIATION.CODEGRAPH_WORKSPACE,
  );
const notFound = (reason) => new Problem("CODEGRAPH_NOT_FOUND", `the CodeGraph CLI was not found: ${reason}`);
const spawnFailed = (reason) => new Problem("CODEGRAPH_SPAWN", `codegraph could not be started: ${reason}`);

/**
 * CODEGRAPH_NO_INDEX. `kind` says why, each with its own remediation: { missing, ancestor? },
 * { unusable, db }, { special } (a FIFO, a device …, never opened) or { outside, resolved }.
 */
function noIndex(workspace, reason, kind = { missing: true }) {
  const ws = shownPath(workspace);
  let remediation;
  if (kind.missing && kind.ancestor) {
    const a = shownPath(kind.ancestor);
    remediation = `The enclosing project ${a} has a CodeGraph index: start Pi there (cd ${a} && pi) to use it; its answers name files relative to that directory. Only if you want a separate, partial index of this subdirectory, run \`codegraph init\` in ${ws} yourself. ${NEVER_WRITES_INDEX}`;
  } else if (kind.unusable) {
    remediation = `Move or delete ${shownPath(kind.db)} (CodeGraph cannot rebuild it in place), then run \`codegraph init\` in ${ws} yourself; ${NEVER_WRITES_INDEX}`;
  } else if (kind.special) {
    remediation = `Replace it with a real index: remove it, then run \`codegraph init\` in ${ws} yourself; ${NEVER_WRITES_INDEX}`;
  } else if (kind.outside) {
    remediation = `Start Pi in the project that owns that index, run \`codegraph init\` in ${ws} for an index of its own, or set PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1 to accept an index outside the workspace. ${NEVER_WRITES_INDEX}`;
  } else {
    remediation = `Run \`codegraph init\` in ${ws} yourself; ${NEVER_WRITES_INDEX}`;
  }
  const extra = kind.missing && kind.ancestor ? { ancestorIndex: kind.ancestor } : {};
  const p = new Problem(
    "CODEGRAPH_NO_INDEX",
    `this workspace has no usable CodeGraph index: ${reason}`,
    extra,
    remediation,
  );
  p.kind = kind;
  return p;
}

/**
 * CODEGRAPH_INDEX_READONLY. `cause` (errors.rs `Access`): {} (SQLite said read-only),
 * { denied: path } (EACCES/EPERM) or { readOnlyMount: true } (EROFS). The index itself may be
 * fine in each case, so no remediation says to move or delete it.
 */
function indexReadOnly(dir, reason, cause = {}) {
  const rw = "CodeGraph opens its index read-write even to explore (it creates codegraph.db-wal and -shm)";
  const keep = "The index itself may be fine: do not move or delete it. pi-codegraph itself never writes the index.";
  let remediation = `${rw}: make ${shownPath(dir)} and its files writable for this user. pi-codegraph itself never writes the index.`;
  if (cause.denied)
    remediation = `This user may not access ${shownPath(cause.denied)}: make ${shownPath(dir)} and its files readable and writable for this user (check owner and mode with \`ls -la\`), or start Pi as the user who owns the index; ${rw}. ${keep}`;
  else if (cause.readOnlyMount)
    remediation = `${shownPath(dir)} is on a read-only filesystem and ${rw}: remount it read-write, or start Pi in a writable copy of the project. ${keep}`;
  return new Problem(
    "CODEGRAPH_INDEX_READONLY",
    `the CodeGraph index cannot be opened read-write: ${reason}`,
    {},
    remediation,
  );
}

/** CodeGraph is writing the index (a live `writer` from index-writer.js); `waitedMs` of waiting. */
function indexBusy(writer, waitedMs) {
  const kind = writer.rebuild ? "a `codegraph index` rebuild" : "`codegraph init`, `index` or `sync`";
  const note = waitedMs
    ? `, still after ${(waitedMs / 1000).toFixed(1)} s of waiting; an answer now could come from a partial index`
    : ", so an answer now could come from a partial index";
  const lock = shownPath(writer.lock);
  // pid 0: no lock yet, the database is only started (index-writer.js beingCreated).
  const says =
    writer.pid === 0
      ? `${lock} holds only its first page: \`codegraph init\` is creating it`
      : `pid ${writer.pid} holds ${lock}: ${kind}`;
  const remediation =
    writer.pid === 0
      ? `Ask again once \`codegraph init\` has finished; pi-codegraph never starts, stops or repeats indexing. If no CodeGraph process is indexing, an init was interrupted: run \`codegraph index\` in the workspace (the database ${lock} is only started).`
      : `Ask again once CodeGraph has finished writing the index; pi-codegraph never starts, stops or repeats indexing. If no CodeGraph process runs as pid ${writer.pid}, the lock is stale: delete ${lock}.`;
  return new Problem(
    "CODEGRAPH_INDEX_BUSY",
    `CodeGraph is writing this workspace's index right now (${says})${note}`,
    {},
    remediation,
  );
}

/** CODEGRAPH_RESOURCES when `err`, met while doing `what`, is a resource running out; else null. */
function exhausted(what, err) {
  const code = resourceOf(err);
  if (!code) return null;
  const [resource, remediation] = RESOURCES[code];
  const reason = String(err?.message ?? err)
    .split("\n")[0]
    .slice(0, 200);
  return new Problem(
    "CODEGRAPH_RESOURCES",
    `pi-codegraph ran out of ${resource}: ${what} failed (${reason})`,
    {},
    remediation,
  );
}

/** What the CLI had printed when it was stopped, for details.partialText/partialBytes. */
const partialOf = (partial) => ({ partialBytes: partial?.bytes ?? 0, partialText: partial?.text ?? "" });

function timedOut(ms, stderrTail = "", partial) {
  const bytes = partial?.bytes ?? 0;
  const note = bytes
    ? ` after printing ${bytes} bytes of a partial answer (kept in details.partialText)`
    : " before it printed anything";
  return new Problem("CODEGRAPH_TIMEOUT", `codegraph explore did not finish within ${ms} ms and was stopped${note}`, {
    timeoutMs: ms,
    stderrTail,
    ...partialOf(partial),
  });
}

function cancelled(partial) {
  const bytes = partial?.bytes ?? 0;
  const text = bytes
    ? `the explore was cancelled after codegraph had printed ${bytes} bytes (the partial answer is in details.partialText), and codegraph was stopped`
    : "the explore was cancelled before codegraph printed anything, and codegraph was stopped";
  return new Problem("CODEGRAPH_CANCELLED", text, partialOf(partial));
}

/** A copy without the undefined fields (the addon leaves absent values out). */
const withoutUndefined = (obj) => Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));

/** The public Error: `CODE: message.\nRemediation: …`, plus `code`, `remediation`, `details`. */
function publicError(p, failure) {
  if (!(p instanceof Problem)) p = spawnFailed(String(p?.message ?? p)); // a bug here, still a contract error
  let message = `${p.code}: ${p.text}.\nRemediation: ${p.remediation}`;
  const tail = p.extra.stderrTail ?? "";
  // A failed CLI always shows its stderr tail; a stuck one only when it said something.
  if (tail.trim() && (p.code === "CODEGRAPH_EXIT" || p.code === "CODEGRAPH_TIMEOUT"))
    message += `\nstderr (last 4 KB):\n${tail.trimEnd()}`;
  else if (p.code === "CODEGRAPH_EXIT") message += "\nstderr: (empty)";
  const details = withoutUndefined({ ...failure, ...p.extra });
  return Object.assign(new Error(message), { code: p.code, remediation: p.remediation, details });
}

module.exports = {
  shownPath,
  REMEDIATION,
  Problem,
  invalidRequest,
  invalidOptions,
  badWorkspace,
  notFound,
  noIndex,
  indexReadOnly,
  indexBusy,
  spawnFailed,
  resourceOf,
  exhausted,
  timedOut,
  cancelled,
  withoutUndefined,
  publicError,
};
