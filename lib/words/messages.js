// Every failure's words, built once from the facts a runner returns (`{ code, facts }`, the execa
// pattern): the public Error's `message` ("CODE: headline.\nRemediation: …", plus the stderr
// section), its `remediation` and the `details` the facts add. Every failure, both runners' and
// the glue's own, is worded here once, through lib/api/failures.js, so the two runners say the
// same thing by construction.

const { shownPath } = require("./paths.js");
const { creatingDatabase, headline, queries, seconds } = require("./reasons.js");
const { withWordedDropped } = require("./environment.js");
const { redactTail } = require("./redact.js");
const { notOwnRemediation } = require("./not-own.js");
const { gitRemediation } = require("./git.js");
const { withoutUndefined } = require("../contract/text.js");

const WORDED_FROM = Symbol("pi-codegraph words' facts");
const NEVER_WRITES_INDEX = "pi-codegraph writes the index only when you type a /codegraph verb; the model never does.";
const OPTIONS_SHAPE =
  "Pass options as { timeoutMs?: milliseconds, onProgress?: function, onQueue?: function } and the signal as an AbortSignal, or leave them out.";

/** The remediation each resource gets, by the errno the OS named. */
const RESOURCE_REMEDIATIONS = {
  EMFILE:
    "The host process has no file descriptors left (EMFILE): close files it holds open or raise its limit (`ulimit -n`), then ask again.",
  ENFILE:
    "The system's open-file table is full (ENFILE): close files in other programs or raise the system limit (fs.file-max on Linux), then ask again.",
  EAGAIN:
    "No new process or thread could be created (EAGAIN): end processes or raise the user's process limit (`ulimit -u`), then ask again.",
  ENOMEM: "There was not enough memory (ENOMEM): free memory (end other programs), then ask again.",
};

function workspaceRemediation(f) {
  if (!f.denied)
    return "Start Pi in an existing project directory; codegraph_explore only runs in Pi's active workspace.";
  return `Give this user read and execute access to ${shownPath(f.path)} (check its owner and mode with \`ls -ld\`), or start Pi as a user who can read it; codegraph_explore only runs in Pi's active workspace.`;
}

/** CODEGRAPH_NO_INDEX: `kind.is` says why (missing, unusable, special, outside). */
function noIndexRemediation(f) {
  const ws = shownPath(f.path);
  const kind = f.kind ?? { is: "missing" };
  if (kind.is === "missing" && kind.ancestor) {
    const a = shownPath(kind.ancestor);
    return `The enclosing project ${a} has a CodeGraph index: add it in Pi with \`/codegraph projects add ${a}\` (its answers then begin with the prefix that makes their paths readable here), or start Pi there (cd ${a} && pi) to use it; its answers name files relative to that directory. Only if you want a separate, partial index of this subdirectory, run \`/codegraph init\` in Pi here (or \`codegraph init\` in ${ws}) yourself. ${NEVER_WRITES_INDEX}`;
  }
  if (kind.is === "unusable")
    return `Move or delete ${shownPath(kind.db)} (CodeGraph cannot rebuild it in place), then run \`/codegraph init\` in Pi (or \`codegraph init\` in ${ws}) yourself; ${NEVER_WRITES_INDEX}`;
  if (kind.is === "special")
    return `Replace it with a real index: remove it, then run \`/codegraph init\` in Pi (or \`codegraph init\` in ${ws}) yourself; ${NEVER_WRITES_INDEX}`;
  if (kind.is === "notOwn") return notOwnRemediation(f);
  if (kind.is === "outside")
    return `Start Pi in the project that owns that index, run \`codegraph init\` in ${ws} for an index of its own, or set PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1 to accept an index outside the workspace. ${NEVER_WRITES_INDEX}`;
  return `Run \`/codegraph init\` in Pi (or \`codegraph init\` in ${ws}) yourself; ${NEVER_WRITES_INDEX}`;
}

/** CODEGRAPH_INDEX_READONLY: the index itself may be fine, so nothing says to move or delete it. */
function readOnlyRemediation(f) {
  const rw = "CodeGraph opens its index read-write even to explore (it creates codegraph.db-wal and -shm)";
  const keep = "The index itself may be fine: do not move or delete it. pi-codegraph itself never writes the index.";
  const dir = shownPath(f.dir);
  const cause = f.cause ?? { is: "notWritable" };
  if (cause.is === "denied")
    return `This user may not access ${shownPath(cause.path)}: make ${dir} and its files readable and writable for this user (check owner and mode with \`ls -la\`), or start Pi as the user who owns the index; ${rw}. ${keep}`;
  if (cause.is === "readOnlyMount")
    return `${dir} is on a read-only filesystem and ${rw}: remount it read-write, or start Pi in a writable copy of the project. ${keep}`;
  return `${rw}: make ${dir} and its files writable for this user. pi-codegraph itself never writes the index.`;
}

function busyRemediation(f) {
  const lock = shownPath(f.lock);
  if (f.outside)
    return `Ask again once that CodeGraph has finished; pi-codegraph never removes a lock a writer may hold. If you know no CodeGraph writes this index (in a container or sandbox sharing the workspace, or anywhere else), run \`codegraph unlock\` in the workspace, or delete ${lock}.`;
  // pid 0: a lock just created, with no pid in it yet (a write taking it), or no lock yet and the
  // database only started.
  if (f.pid === 0 && !creatingDatabase(f))
    return "Ask again in a moment: a CodeGraph write was taking its lock as this call checked. pi-codegraph never starts, stops or repeats indexing on its own.";
  if (f.pid === 0)
    return `Ask again once \`codegraph init\` has finished; pi-codegraph never starts, stops or repeats indexing on its own. If no CodeGraph process is indexing, an init was interrupted: run \`/codegraph rebuild\` in Pi (or \`codegraph index\` in the workspace; the database ${lock} is only started).`;
  return `Ask again once CodeGraph has finished writing the index; pi-codegraph never starts, stops or repeats indexing. If no CodeGraph process runs as pid ${f.pid}, the lock is stale: delete ${lock}.`;
}

const TOO_BROAD =
  "Ask a narrower question that names concrete symbols or files, or check the index with `codegraph status`.";

/** How the parallel limit was set, for a remediation that suggests changing it. */
const limitSource = (policy) =>
  policy?.source === "env" ? "PI_CODEGRAPH_MAX_PARALLEL sets it" : "set PI_CODEGRAPH_MAX_PARALLEL to change it";

/**
 * CODEGRAPH_TIMEOUT's remedy names the cause the call observed (`observed`, added by the glue:
 * siblings on the index, the machine's load, the index lock wait; `writerSeen` from the run):
 * a question is "too broad" only when nothing else slowed it.
 */
function timeoutRemediation(f) {
  if (f.queue)
    return `Too many CodeGraph queries were asked at once for this machine: ask fewer questions in one message, or ask this one again once the others have answered (${f.queue.policy.limit} run at once on one index; ${limitSource(f.queue.policy)}).`;
  const o = f.observed;
  if (!o) return TOO_BROAD;
  const causes = [];
  if (f.writerSeen) {
    const what = f.writerSeen.pid
      ? `pid ${f.writerSeen.pid} holds ${shownPath(f.writerSeen.lock)}`
      : creatingDatabase(f.writerSeen)
        ? "an init is creating it"
        : `a write was taking ${shownPath(f.writerSeen.lock)}`;
    causes.push(`CodeGraph was writing the index while it ran (${what}): ask again once that write has finished`);
  } else if (o.lockWaitMs > 0)
    causes.push(
      `it first waited ${seconds(o.lockWaitMs)} for CodeGraph to finish writing the index, which its time includes: ask again now that the write is over`,
    );
  if (o.siblings > 0)
    causes.push(
      `${queries(o.siblings)} on this index ran beside it (${o.policy.limit} run at once; ${limitSource(o.policy)}): ask this one again on its own, with fewer questions in one message`,
    );
  if (o.policy.cores > 0 && o.load > o.policy.cores)
    causes.push(
      `the machine was busy (load average ${o.load.toFixed(1)} on ${o.policy.cores} cores): ask again when it is less busy, or lower PI_CODEGRAPH_MAX_PARALLEL`,
    );
  if (causes.length === 0) return TOO_BROAD;
  const [first, ...more] = causes;
  return `This was not necessarily a question too broad: ${first}${more.map((c) => `; also, ${c}`).join("")}.`;
}

const REMEDIATIONS = {
  CODEGRAPH_INVALID_REQUEST: (f) =>
    f.reason?.is === "argument"
      ? `Call ${f.reason.tool} again with the argument fixed, as the tool's parameters describe.`
      : "Send one non-empty natural-language question of at most 10,000 characters (as JavaScript counts them), without NUL bytes.",
  CODEGRAPH_INVALID_OPTIONS: (f) =>
    f.reason?.is === "argumentsUnusable"
      ? "Pass a request string, an absolute workspace path, an AbortSignal and { timeoutMs?, onProgress?, onQueue? }."
      : OPTIONS_SHAPE,
  CODEGRAPH_WORKSPACE: workspaceRemediation,
  CODEGRAPH_NOT_FOUND: () =>
    "Install the CodeGraph CLI (npm install -g @colbymchenry/codegraph) and make sure `codegraph` is on PATH, or set PI_CODEGRAPH_BIN to its absolute path; in a checkout of pi-codegraph, `npm install` there puts the pinned CLI beside it, which is used when none is on PATH.",
  CODEGRAPH_NO_INDEX: noIndexRemediation,
  CODEGRAPH_INDEX_READONLY: readOnlyRemediation,
  CODEGRAPH_INDEX_BUSY: busyRemediation,
  CODEGRAPH_INDEX_INTERRUPTED: () =>
    `Run \`/codegraph rebuild\` in Pi (or \`codegraph index\` in the workspace) to build the index again; or, to use it as it is, \`/codegraph unlock\` (or \`codegraph unlock\`). ${NEVER_WRITES_INDEX}`,
  CODEGRAPH_SPAWN: () =>
    "Check that the codegraph executable is a runnable program and that the workspace is readable.",
  CODEGRAPH_RESOURCES: (f) => RESOURCE_REMEDIATIONS[f.resource],
  CODEGRAPH_EXIT: (f) =>
    `Read the stderr tail below; run the same \`codegraph ${f.subcommand ?? "explore"}\` in the workspace to reproduce it.`,
  CODEGRAPH_TIMEOUT: timeoutRemediation,
  CODEGRAPH_CANCELLED: () => "Nothing to fix: the request was cancelled.",
  CODEGRAPH_GIT: gitRemediation,
  CODEGRAPH_UNTRUSTED: () =>
    "If you trust this project, say so in Pi (/trust), then /reload; until then the CodeGraph tools and verbs do nothing here.",
  CODEGRAPH_ADDON: (f) =>
    f.core === "wasm"
      ? "Reinstall pi-codegraph with optional dependencies (it needs @napi-rs/wasm-runtime here), or run `npm run build` in a checkout (it builds wasm/)."
      : `Reinstall pi-codegraph with optional dependencies (package pi-codegraph-${f.target}), or run \`pi-codegraph doctor\`.`,
};

/** What the user (or the model on the user's behalf) can do about it, in one line. */
function remediation(code, facts) {
  const words = REMEDIATIONS[code];
  return words ? words(facts ?? {}) : "Run `pi-codegraph doctor` in the workspace.";
}

/** What a stuck run's checks said (a tail of our own, not the CLI's). */
const CHECKS_STALLED = "(stopped while checking the workspace: the filesystem did not answer)";

/**
 * The stderr tail the model may read: the CLI's own (redacted here), or when it said nothing on
 * stderr, the start of its stdout (its validation errors go there), or our own note.
 */
function stderrTailOf(f) {
  if (f.stalled) return CHECKS_STALLED;
  const tail = redactTail(f.stderrTail ?? "");
  if (!tail.trim() && typeof f.stdoutExcerpt === "string")
    return `(stderr empty; stdout began:)\n${redactTail(f.stdoutExcerpt)}`;
  return tail;
}

/** What the facts add to `details`, per code (paths raw, as every details field). */
function factDetails(code, f) {
  switch (code) {
    case "CODEGRAPH_EXIT":
      return { exitCode: f.exitCode ?? null, signal: f.signal ?? null, stderrTail: stderrTailOf(f) };
    case "CODEGRAPH_TIMEOUT":
      return {
        timeoutMs: f.timeoutMs,
        stderrTail: stderrTailOf(f),
        partialBytes: f.partialBytes ?? 0,
        partialText: f.partialText ?? "",
        // The CodeGraph writer active on the index as the call timed out ({ lock, pid, rebuild }), or null.
        writerSeen: f.writerSeen ?? null,
        observed: f.observed && observedDetails(f.observed),
        queue: f.queue && queueDetails(f.queue),
      };
    case "CODEGRAPH_CANCELLED":
      return {
        partialBytes: f.partialBytes ?? 0,
        partialText: f.partialText ?? "",
        queue: f.queue && queueDetails(f.queue),
      };
    case "CODEGRAPH_NO_INDEX":
      return f.kind?.is === "missing" && f.kind.ancestor ? { ancestorIndex: f.kind.ancestor } : {};
    case "CODEGRAPH_ADDON":
      return { story: f.story };
    case "CODEGRAPH_INVALID_REQUEST":
      return f.reason?.is === "argument" ? { tool: f.reason.tool, argument: f.reason.name, rule: f.reason.rule } : {};
    default:
      return {};
  }
}

/** Where a queued call stood when it gave up: `{ is, ahead, waitedMs, limit }`. */
const queueDetails = (q) => ({ is: q.is, ahead: q.ahead, waitedMs: q.waitedMs, limit: q.policy.limit });
/** What a timed-out run observed: `{ siblings, limit, load, cores, lockWaitMs }`. */
const observedDetails = (o) => ({
  siblings: o.siblings,
  limit: o.policy.limit,
  load: o.load,
  cores: o.policy.cores,
  lockWaitMs: o.lockWaitMs,
});

/** The self-contained message: Pi hands only `error.message` to the model. */
function message(code, facts, details) {
  let text = `${code}: ${headline(code, facts)}.\nRemediation: ${remediation(code, facts)}`;
  const tail = details.stderrTail ?? "";
  // A failed CLI always shows its stderr tail; a stuck one only when it said something.
  if (tail.trim() && (code === "CODEGRAPH_EXIT" || code === "CODEGRAPH_TIMEOUT"))
    text += `\nstderr (last 4 KB):\n${tail.trimEnd()}`;
  else if (code === "CODEGRAPH_EXIT") text += "\nstderr: (empty)";
  return text;
}

/**
 * The public Error for `code` + `facts`: `message`, `code`, `remediation`, and `details` (the
 * run's `context`, then what the facts add).
 */
function publicError(code, facts = {}, context = {}) {
  const details = withoutUndefined({ ...withWordedDropped(context), ...factDetails(code, facts) });
  const err = new Error(message(code, facts, details));
  // The facts stay with the error (not enumerable) so that the failed call's text can say its
  // partial answer follows (messageBeforePartial()).
  Object.defineProperty(err, WORDED_FROM, { value: { facts, context } });
  return Object.assign(err, { code, remediation: remediation(code, facts), details });
}

/** `err`'s message as the model reads it when the partial answer follows it (says "below"). */
function messageBeforePartial(err) {
  const from = err?.[WORDED_FROM];
  if (!from) return String(err?.message ?? err);
  return message(err.code, { ...from.facts, partialShown: true }, err.details ?? {});
}

/** A diagnosis's words for its problem: `problemCode`, `problem`, `remediation`. */
function problemWords(code, facts) {
  return { problemCode: code, problem: headline(code, facts), remediation: remediation(code, facts) };
}

/**
 * A remediation as the user reads it (doctor's fix line, bare /codegraph's next step): without the
 * sentence that tells the model it never writes the index (the user is the one who does).
 */
const forUser = (text) =>
  String(text ?? "")
    .replaceAll(`; ${NEVER_WRITES_INDEX}`, ".")
    .replaceAll(` ${NEVER_WRITES_INDEX}`, "");

module.exports = {
  forUser,
  headline,
  remediation,
  publicError,
  messageBeforePartial,
  problemWords,
};
