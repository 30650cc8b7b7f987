// The words an answer itself carries: the truncation marker appended to a cut answer (what was
// kept, that more existed, where the rest is or why it was not kept) and the line that stands
// for an empty answer. Both runners return the facts (lib/api/answer.js fits them to the caps).

const { shownPath } = require("./paths.js");

/** Why a truncated answer has no full-output file, by `NotKeptReason` tag (crates/core/src/full_output.rs). */
const NOT_KEPT_REASONS = {
  budget: (r) => `this process already holds ${r.mib} MiB of full outputs that open sessions may still read`,
  allTempInWorkspace: () => "every temporary directory is inside the workspace",
  dirCreate: (r) => `${r.dir} could not be created (${r.error})`,
  dirUnusable: (r) => `${r.dir}: ${r.error}`,
  dirNotOurs: (r) => `${r.dir} is not a directory of this user's`,
  dirPrivate: (r) => `${r.dir} could not be made private (${r.error})`,
  fileCreate: (r) => `the file could not be created in ${r.dir}${r.error ? ` (${r.error})` : ""}`,
  write: (r) => `writing it failed (${r.error})`,
};

/** `details.fullOutputMissing`: a NotKeptReason worded. */
function notKept(reason) {
  const words = NOT_KEPT_REASONS[reason?.is];
  return words ? words(reason) : `(unnamed reason ${JSON.stringify(reason?.is)})`;
}

/** What closes a Markdown code block: the marker's extra line when the cut left one open. */
const FENCE_CLOSE = "```";

/** Whether `text` ends inside a Markdown code block (an odd count of fence lines). */
const openFence = (text) => (String(text).match(/^[ \t]*```/gmu)?.length ?? 0) % 2 === 1;

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
  // One blank line between the kept text and the marker; a code block the cut left open is closed
  // first, so the marker is read (and drawn) as words, not as code.
  const close = openFence(b.text) ? `${FENCE_CLOSE}\n` : "";
  const gap = b.text === "" || b.text.endsWith("\n") ? "" : "\n";
  return `${gap}${close}\n[Output truncated by ${b.truncatedBy ?? "bytes"}: showing ${b.keptLines} of ${atLeast}${b.totalLines} lines (${b.keptBytes} of ${atLeast}${b.totalBytes} bytes). ${more}]`;
}

/** The answer when CodeGraph printed nothing but white space. */
function printedNothing(subcommand) {
  return `(codegraph ${subcommand} printed nothing)`;
}

/**
 * The lines around what CodeGraph had printed before a timeout or cancel stopped it, in the text
 * the model gets: `f` has `code`, `timeoutMs`, `keptBytes` and `partialBytes`.
 */
function incompleteMarkers(f) {
  const why =
    f.code === "CODEGRAPH_TIMEOUT" ? `it was stopped at its ${f.timeoutMs} ms time limit` : "the call was cancelled";
  const kept =
    f.keptBytes < f.partialBytes ? `the first ${f.keptBytes} of ${f.partialBytes} bytes` : `${f.keptBytes} bytes`;
  return {
    start: `[Incomplete answer: ${why}. What codegraph had printed follows; sections after it are missing.]`,
    end: `[End of the incomplete answer: ${kept}.]`,
  };
}

/**
 * CodeGraph's advice in its CLI's options, said in the tools' own parameters: `narrow with
 * --file` (callers', callees' and impact's head when a name has several definitions) and `pass
 * --limit to widen` (a list it cut) name flags the model cannot pass. Each is rewritten to the
 * same length (`file`, `limit` in backticks), so the answer's counts and caps stay as measured.
 */
const CLI_ADVICE = [
  [/narrow with --file\b/gu, "narrow with `file`"],
  [/pass --limit to widen/gu, "pass `limit` to widen"],
];
const inToolWords = (text) => CLI_ADVICE.reduce((t, [flag, own]) => t.replace(flag, own), text);

module.exports = {
  FENCE_CLOSE,
  openFence,
  inToolWords,
  NOT_KEPT_REASONS,
  incompleteMarkers,
  notKept,
  printedNothing,
  truncationMarker,
};
