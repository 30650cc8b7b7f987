// What a call's description and options say, read robustly (a getter may throw, a Proxy may lie):
// the options a runner takes, the caller's workspace, the time budget, whether the command cites
// files, reads data, writes the index, which subcommand names a failure, a version notice and what
// a call observed for a timeout's words. Used by lib/api/calls.js.

const os = require("node:os");
const { DEFAULT_TIMEOUT_MS, isTimeout } = require("../contract/limits.js");
const { failure } = require("./failures.js");
const { versionNotice } = require("../words/versions.js");

/**
 * A progress listener that can fail in any way (throw anything, return a rejected promise or a
 * thenable whose `then` throws) without taking the host down.
 */
function safeListener(fn) {
  return (progress) => {
    try {
      const r = fn(progress);
      if (r !== null && (typeof r === "object" || typeof r === "function")) Promise.resolve(r).catch(() => {});
    } catch {}
  };
}

/**
 * The options a runner reads, copied out of whatever the caller passed (getters, Proxies), and
 * the glue's own `onQueue` listener, kept apart (a runner knows nothing of the queue).
 */
function plainOptions(options) {
  if (options === undefined || options === null) return { plain: null, onQueue: undefined };
  if (typeof options !== "object") return { plain: options, onQueue: undefined }; // the runner rejects it
  const { timeoutMs, onProgress, onQueue, workspace, warm } = options;
  if (onQueue !== undefined && onQueue !== null && typeof onQueue !== "function")
    throw failure("CODEGRAPH_INVALID_OPTIONS", { reason: { is: "onQueue" } });
  return {
    plain: { timeoutMs, onProgress: typeof onProgress === "function" ? safeListener(onProgress) : onProgress },
    onQueue: typeof onQueue === "function" ? safeListener(onQueue) : undefined,
    workspace,
    warm: warm === true,
  };
}

/**
 * The description with `workspace` (Pi's, when cwd is another root: its code is kept from the
 * child too) and `warm` (answer through the workspace's long-lived CodeGraph where the runner
 * can: the user has auto sync on) among its fields; the description as it is when there are
 * none, or when it cannot be copied (the runner then rejects it with its own words).
 */
function onBehalfOf(command, workspace, warm = false) {
  if ((workspace === undefined || workspace === null) && !warm) return command;
  try {
    return {
      ...command,
      ...(workspace === undefined || workspace === null ? {} : { workspace }),
      ...(warm ? { warm } : {}),
    };
  } catch {
    return command;
  }
}

/** The run's time budget as the runners take it: the caller's `timeoutMs`, else the command's, else 30 s. */
function budgetOf(command, plain) {
  if (isTimeout(plain?.timeoutMs)) return Math.trunc(plain.timeoutMs);
  try {
    if (isTimeout(command?.timeoutMs)) return Math.trunc(command.timeoutMs);
  } catch {} // a throwing getter: the runner rejects the description
  return DEFAULT_TIMEOUT_MS;
}

/** The subcommands whose answers cite workspace files: each answer is checked for stale ones (lib/api/staleness.js). */
const CITES_FILES = new Set(["explore", "node", "callers", "callees", "impact", "query"]);

/** Whether `command` is one whose answer cites files (a description that cannot be read is not). */
function citesFiles(command) {
  try {
    return CITES_FILES.has(command?.subcommand);
  } catch {
    return false;
  }
}

/**
 * Whether `command` asks for CodeGraph's JSON (`--json`): data the glue reads (a call path's
 * graph), not the model's text, so no notes, source search or stale-files line is added to it.
 */
function readsData(command) {
  try {
    return Array.isArray(command?.options) && command.options.includes("--json");
  } catch {
    return false;
  }
}

/** Whether `command` writes the index (a description that cannot be read does not: the runner rejects it). */
function writesIndex(command) {
  try {
    return command?.writesIndex === true;
  } catch {
    return false;
  }
}

/**
 * `{ subcommand }` of a command other than explore, for its failure's words; `{}` for explore and
 * for a description that cannot be read (the runner rejects that one with its own words).
 */
function namedCommand(command) {
  try {
    const sub = command?.subcommand;
    return typeof sub === "string" && sub !== "explore" && /^[a-z][a-z-]{0,31}$/.test(sub) ? { subcommand: sub } : {};
  } catch {
    return {};
  }
}

/** `{ [name]: notice }` when the CLI's version is outside the tested range (lib/words/versions.js), else `{}`. */
function noticeOf(name, cliVersion) {
  const notice = versionNotice(cliVersion);
  return notice ? { [name]: notice } : {};
}

/** What a call observed while it ran, for the words of a timeout (lib/words/messages.js). */
function observed(ticket, details) {
  return {
    siblings: ticket.siblings,
    policy: ticket.policy,
    load: os.loadavg()[0],
    lockWaitMs: details?.lockWaitMs ?? 0,
  };
}

module.exports = {
  budgetOf,
  citesFiles,
  namedCommand,
  noticeOf,
  observed,
  onBehalfOf,
  plainOptions,
  readsData,
  writesIndex,
};
