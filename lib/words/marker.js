// The words an answer itself carries: the truncation marker appended to a cut answer (what was
// kept, that more existed, where the rest is or why it was not kept) and the line that stands
// for an empty answer. Both backends return the facts (lib/answer.js fits them to the caps).

const { shownPath } = require("./paths.js");

/**
 * The visible marker appended to truncated output. `b`: the kept `text`, `truncatedBy`,
 * `keptLines`/`keptBytes`, `totalLines`/`totalBytes`, `totalsExact`, and the full output's
 * `fullOutputPath`/`fullOutputBytes`/`fullOutputComplete`, or `fullOutputMissing` (why none).
 */
function truncationMarker(b) {
  const atLeast = b.totalsExact ? "" : "at least ";
  let more = "More output existed and was omitted; ask a narrower question to see it";
  if (b.fullOutputPath !== undefined && b.fullOutputPath !== null) {
    const cut = b.fullOutputComplete === false ? ", itself cut at 16 MiB," : "";
    more = `More output existed: the full output${cut} (${b.fullOutputBytes} bytes) is in ${shownPath(b.fullOutputPath)}; use the read tool with an offset to see the rest`;
  } else if (b.fullOutputMissing) {
    more = `More output existed; the full output was not kept (${b.fullOutputMissing}); ask a narrower question to see it`;
  }
  // One blank line between the kept text and the marker.
  const gap = b.text === "" || b.text.endsWith("\n") ? "\n" : "\n\n";
  return `${gap}[Output truncated by ${b.truncatedBy ?? "bytes"}: showing ${b.keptLines} of ${atLeast}${b.totalLines} lines (${b.keptBytes} of ${atLeast}${b.totalBytes} bytes). ${more}]`;
}

/** The answer when CodeGraph printed nothing but white space. */
function printedNothing(subcommand) {
  return `(codegraph ${subcommand} printed nothing)`;
}

module.exports = { printedNothing, truncationMarker };
