// How a call and its result look in Pi's transcript (Pi's TUI `Text` comes from the host). Every
// string from the model or the CLI goes through printable() first.

const { TOOL_NAME } = require("./guidance.js");
const { cliForm, formatBytes, printable } = require("./text.js");

const PREVIEW_LINES = 8;

/** The request on one line, and the equivalent CLI command under it. */
function renderCall(Text, args, theme, context) {
  const text = context?.lastComponent ?? new Text("", 0, 0);
  const request = printable(String(args?.request ?? "").replace(/\s+/g, " "));
  text.setText(
    `${theme.fg("toolTitle", theme.bold(`${TOOL_NAME} `))}${theme.fg("accent", request)}\n${theme.fg("dim", `$ ${cliForm(request)}`)}`,
  );
  return text;
}

/** Partial progress, an error (code and remediation first), or the answer with its facts. */
function renderResult(Text, result, options, theme, context) {
  const body = printable(result.content?.find((c) => c.type === "text")?.text ?? "");
  if (options.isPartial) {
    const p = result.details ?? {};
    const soFar = p.partial
      ? ` ${formatBytes(p.seenBytes)}, ${p.seenLines} lines, ${(p.elapsedMs / 1000).toFixed(1)}s`
      : "";
    const tail = body ? `\n${theme.fg("toolOutput", body.replace(/\n$/, "").split("\n").slice(-3).join("\n"))}` : "";
    return new Text(`${theme.fg("warning", `Exploring the CodeGraph index…${soFar}`)}${tail}`, 0, 0);
  }
  if (context?.isError) {
    // Code and remediation lead the message; the stderr tail follows only when expanded.
    const lines = body.split("\n");
    const shown = options.expanded
      ? body
      : lines
          .filter((l) => !l.startsWith("stderr"))
          .slice(0, 3)
          .join("\n");
    return new Text(theme.fg("error", shown), 0, 0);
  }
  const d = result.details ?? {};
  // When cut, the kept output comes first and the marker after it. The collapsed view counts
  // only the kept lines (the footer says it was cut): preview + "more" = kept, "kept of total".
  const all = body.replace(/\n$/, "").split("\n");
  const keptLines = d.truncated ? d.keptLines : all.length;
  const facts = [
    formatBytes(d.keptBytes ?? Buffer.byteLength(body)),
    d.truncated
      ? `${keptLines} of ${d.totalsExact === false ? "at least " : ""}${d.totalLines} lines`
      : `${d.keptLines ?? keptLines} lines`,
    d.durationMs !== undefined ? `${(d.durationMs / 1000).toFixed(2)}s` : null,
    d.cliVersion ? `codegraph ${d.cliVersion}` : null,
  ].filter(Boolean);
  let footer = theme.fg("dim", facts.join(" · "));
  if (d.truncated) footer += ` ${theme.fg("warning", "[truncated]")}`;
  if (d.fullOutputPath) footer += `\n${theme.fg("dim", `full output: ${d.fullOutputPath}`)}`;
  else if (d.fullOutputMissing) footer += `\n${theme.fg("dim", `full output not kept: ${d.fullOutputMissing}`)}`;
  if (options.expanded) return new Text(`${theme.fg("toolOutput", body)}\n${footer}`, 0, 0);
  const more = keptLines - PREVIEW_LINES;
  const preview = all.slice(0, Math.min(PREVIEW_LINES, keptLines)).join("\n");
  const hint = more > 0 ? `\n${theme.fg("muted", `… ${more} more lines`)}` : "";
  return new Text(`${theme.fg("toolOutput", preview)}${hint}\n${footer}`, 0, 0);
}

module.exports = { renderCall, renderResult };
