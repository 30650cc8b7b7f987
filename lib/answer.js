// The answer as the model sees it, finished from what a backend returns: its stored text, its
// `details` and the `answer` facts (subcommand, caps, empty, full output complete). A cut answer
// gets the truncation marker (lib/words/marker.js), which counts against the caps: the text is
// cut once more to leave room for the marker's worst case, so text + marker never exceed them.

const { cut, countLines, MARKER_LINES } = require("./backends/node/limits.js");
const { withWordedDropped } = require("./words/environment.js");
const { notKept, printedNothing, truncationMarker } = require("./words/marker.js");

/** `{ text, details }` from a backend's `{ text, details, answer }`. */
function finishAnswer({ text, details: raw, answer }) {
  const shown = withWordedDropped(raw);
  const details = answer.fullOutputMissing ? { ...shown, fullOutputMissing: notKept(answer.fullOutputMissing) } : shown;
  if (!details.truncated) return { text: answer.printedNothing ? printedNothing(answer.subcommand) : text, details };
  const facts = { ...details, fullOutputComplete: answer.fullOutputComplete };
  // The worst case: the longer gap (kept text not ending in a newline), the largest kept counts.
  const reserve = Buffer.byteLength(
    truncationMarker({
      ...facts,
      text: "x",
      truncatedBy: "bytes",
      keptBytes: answer.maxBytes,
      keptLines: answer.maxLines,
    }),
  );
  const [kept, cutBy] = cut(text, Math.max(0, answer.maxBytes - reserve), Math.max(1, answer.maxLines - MARKER_LINES));
  // Storing only stops at a cap, so a cut is found when more was seen; "bytes" is the honest
  // default for the drain-limit stop.
  const counts = { truncatedBy: cutBy ?? "bytes", keptBytes: Buffer.byteLength(kept), keptLines: countLines(kept) };
  const finished = { ...details, ...counts };
  return { text: kept + truncationMarker({ ...facts, ...counts, text: kept }), details: finished };
}

module.exports = { finishAnswer };
