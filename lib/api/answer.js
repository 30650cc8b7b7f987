// The answer as the model sees it, finished from what a runner returns: its stored text, its
// `details` and the `answer` facts (subcommand, caps, empty, full output complete). A cut answer
// gets the truncation marker (lib/words/marker.js), which counts against the caps. This is where an
// answer is cut, once: a runner only stops storing at the caps while streaming (its memory bound;
// the kept counts it reports for a truncated answer are provisional), and the marker's size is
// known only from its words (the full output's path as shown, why none was kept), so the text is
// cut here to leave room for the marker's worst case, and text + marker never exceed the caps.

const { cut, countLines, MARKER_LINES } = require("../contract/limits.js");
const { withWordedDropped } = require("../words/environment.js");
const { FENCE_CLOSE, openFence } = require("../words/marker.js");
const { inToolWords, incompleteMarkers, notKept, printedNothing, truncationMarker } = require("../words/marker.js");
const { messageBeforePartial } = require("../words/messages.js");

/**
 * `{ text, details }` from a runner's `{ text, details, answer }`, led by `notes` (lines that say
 * what CodeGraph's text does not, lib/api/answer-notes.js; "" for none), which take their room
 * from the caps first: an answer that fits only without them is cut like one the runner cut.
 */
function finishAnswer({ text, details: raw, answer }, notes = "") {
  const shown = withWordedDropped(raw);
  const details = answer.fullOutputMissing ? { ...shown, fullOutputMissing: notKept(answer.fullOutputMissing) } : shown;
  const lead = notes === "" ? "" : `${notes}\n\n`;
  const maxBytes = answer.maxBytes - Buffer.byteLength(lead);
  const maxLines = answer.maxLines - countLines(lead);
  const body = answer.printedNothing ? printedNothing(answer.subcommand) : inToolWords(text);
  if (!details.truncated && Buffer.byteLength(body) <= maxBytes && countLines(body) <= maxLines)
    return { text: lead + body, details };
  const facts = details.truncated
    ? { ...details, fullOutputComplete: answer.fullOutputComplete }
    : {
        ...details,
        truncated: true,
        totalsExact: true,
        totalBytes: Buffer.byteLength(body),
        totalLines: countLines(body),
      };
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
  const room = [Math.max(0, maxBytes - reserve), Math.max(1, maxLines - MARKER_LINES)];
  let [kept, cutBy] = cut(body, ...room);
  // Cut inside a code block: the marker closes it, so the kept text leaves room for that line.
  if (openFence(kept))
    [kept, cutBy] = cut(body, Math.max(0, room[0] - FENCE_CLOSE.length - 1), Math.max(1, room[1] - 1));
  // Storing only stops at a cap, so a cut is found when more was seen; "bytes" is the honest
  // default for the drain-limit stop.
  const counts = { truncatedBy: cutBy ?? "bytes", keptBytes: Buffer.byteLength(kept), keptLines: countLines(kept) };
  const { fullOutputComplete: _, ...finished } = { ...facts, ...counts };
  return { text: lead + kept + truncationMarker({ ...facts, ...counts, text: kept }), details: finished };
}

/**
 * The text the model gets for a failed call `err`: its message (code and remediation first) and,
 * when a timeout or cancel stopped a CLI that had printed part of its answer, that part between
 * two marker lines, all within the caps (`maxBytes`, `maxLines`), then `trailer` (if any).
 */
function failedAnswer(err, { maxBytes, maxLines }, trailer) {
  const partial = err?.details?.partialText;
  const after = trailer ? `\n${trailer}` : "";
  if (typeof partial !== "string" || partial.trim() === "") return `${err?.message ?? err}${after}`;
  const head = messageBeforePartial(err);
  const facts = { code: err.code, timeoutMs: err.details.timeoutMs, partialBytes: err.details.partialBytes ?? 0 };
  // The worst case of the end marker: every byte kept.
  const widest = incompleteMarkers({ ...facts, keptBytes: facts.partialBytes });
  const frame = `${head}\n\n${widest.start}\n\n${widest.end}${after}`;
  const [kept] = cut(
    partial.replace(/\n*$/, "\n"),
    Math.max(0, maxBytes - Buffer.byteLength(frame)),
    Math.max(1, maxLines - countLines(frame)),
  );
  const { start, end } = incompleteMarkers({ ...facts, keptBytes: Buffer.byteLength(kept) });
  const body = kept.endsWith("\n") || kept === "" ? kept : `${kept}\n`;
  return `${head}\n\n${start}\n${body}${end}${after}`;
}

module.exports = { failedAnswer, finishAnswer };
