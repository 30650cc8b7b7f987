// run()'s arguments besides the command (src/args.rs): the options and the caller's signal, read
// from whatever was passed, each problem a coded CODEGRAPH_INVALID_OPTIONS (an aborted signal
// CODEGRAPH_CANCELLED).

const { cancelled, invalidOptions } = require("../../contract/problems.js");
const { isTimeout } = require("../../contract/limits.js");

/**
 * `{ timeoutMs?, onProgress? }` as a caller may really pass them (no timeoutMs: the command's
 * own); a wrong type or a throwing getter is CODEGRAPH_INVALID_OPTIONS.
 */
function parseRunOptions(options) {
  const parsed = { timeoutMs: undefined, onProgress: undefined };
  if (options === undefined || options === null) return parsed;
  if (typeof options !== "object") throw invalidOptions({ is: "notObject" });
  const field = (name) => {
    try {
      return options[name];
    } catch {
      throw invalidOptions({ is: "unreadable", field: name });
    }
  };
  const timeoutMs = field("timeoutMs");
  if (timeoutMs !== undefined && timeoutMs !== null) {
    if (!isTimeout(timeoutMs)) throw invalidOptions({ is: "timeoutMs", field: "options.timeoutMs" });
    parsed.timeoutMs = Math.trunc(timeoutMs);
  }
  const onProgress = field("onProgress");
  if (onProgress !== undefined && onProgress !== null) {
    if (typeof onProgress !== "function") throw invalidOptions({ is: "onProgress" });
    parsed.onProgress = onProgress;
  }
  return parsed;
}

/** Links the caller's signal to `cancel` with a listener (the caller's onabort stays theirs). */
function linkSignal(signal, cancel) {
  if (signal === undefined || signal === null) return null;
  if (typeof signal !== "object" && typeof signal !== "function") throw invalidOptions({ is: "notSignal" });
  let aborted;
  try {
    aborted = Boolean(signal.aborted);
  } catch {
    throw invalidOptions({ is: "abortedUnreadable" });
  }
  if (aborted) throw cancelled();
  const listener = () => {
    cancel.requested = true;
    cancel.onCancel?.();
  };
  try {
    signal.addEventListener("abort", listener);
  } catch {
    throw invalidOptions({ is: "notSignal" });
  }
  return () => {
    try {
      signal.removeEventListener("abort", listener);
    } catch {} // a removeEventListener that throws must not keep the promise from settling
  };
}

module.exports = { parseRunOptions, linkSignal };
