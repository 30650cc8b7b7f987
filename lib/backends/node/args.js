// run()'s arguments besides the command (src/args.rs): the options and the caller's signal, read
// from whatever was passed, each problem a coded CODEGRAPH_INVALID_OPTIONS (an aborted signal
// CODEGRAPH_CANCELLED).

const { cancelled, invalidOptions } = require("./errors.js");

/**
 * `{ timeoutMs?, onProgress? }` as a caller may really pass them (no timeoutMs: the command's
 * own); a wrong type or a throwing getter is CODEGRAPH_INVALID_OPTIONS.
 */
function parseRunOptions(options) {
  const parsed = { timeoutMs: undefined, onProgress: undefined };
  if (options === undefined || options === null) return parsed;
  if (typeof options !== "object") throw invalidOptions("options is not an object");
  const field = (name) => {
    try {
      return options[name];
    } catch {
      throw invalidOptions(`options.${name} cannot be read`);
    }
  };
  const timeoutMs = field("timeoutMs");
  if (timeoutMs !== undefined && timeoutMs !== null) {
    // Node's timers fire at once past 2^31-1 ms; the addon takes the same bound.
    if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1)
      throw invalidOptions("options.timeoutMs must be a number of milliseconds from 1 to 2147483647");
    parsed.timeoutMs = Math.trunc(timeoutMs);
  }
  const onProgress = field("onProgress");
  if (onProgress !== undefined && onProgress !== null) {
    if (typeof onProgress !== "function") throw invalidOptions("options.onProgress must be a function");
    parsed.onProgress = onProgress;
  }
  return parsed;
}

/** Links the caller's signal to `cancel` with a listener (the caller's onabort stays theirs). */
function linkSignal(signal, cancel) {
  if (signal === undefined || signal === null) return null;
  if (typeof signal !== "object" && typeof signal !== "function")
    throw invalidOptions("the signal is not an AbortSignal");
  let aborted;
  try {
    aborted = Boolean(signal.aborted);
  } catch {
    throw invalidOptions("signal.aborted cannot be read");
  }
  if (aborted) throw cancelled();
  const listener = () => {
    cancel.requested = true;
    cancel.onCancel?.();
  };
  try {
    signal.addEventListener("abort", listener);
  } catch {
    throw invalidOptions("the signal is not an AbortSignal");
  }
  return () => {
    try {
      signal.removeEventListener("abort", listener);
    } catch {} // a removeEventListener that throws must not keep the promise from settling
  };
}

module.exports = { parseRunOptions, linkSignal };
