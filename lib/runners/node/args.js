// The caller's signal (src/args.rs links it natively; the core reads the other arguments for both
// builds): each problem a coded CODEGRAPH_INVALID_OPTIONS (an aborted signal CODEGRAPH_CANCELLED).

const { cancelled, invalidOptions } = require("../../contract/problems.js");

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

module.exports = { linkSignal };
