// How a call and its result look in Pi's transcript, drawn with Pi's own pieces from the host
// (`peers`): pi-tui's `Text` and `Markdown` (an expanded answer, with Pi's Markdown theme, code
// highlighted), and Pi's `formatSize` and `keyHint` so sizes and the expand hint read as in Pi's
// built-in tools (the hint names the user's own key). Every string from the model or the CLI goes
// through printable() first.

const { TOOL_NAME } = require("./guidance.js");
const { queries } = require("../words/reasons.js");
const { staleTagText } = require("../words/staleness.js");
const { commandLine, printable } = require("../contract/text.js");

const PREVIEW_LINES = 8;
/** Pi's keybinding id for expanding tool output (its built-in read and bash tools use it too). */
const EXPAND_KEY = "app.tools.expand";

const footerSeconds = (ms) => `${(ms / 1000).toFixed(2)}s`;

/** Where the user's wait went, when part of it was not the run: " (queued 3.10s, index lock 4.77s, run 7.03s)". */
function waitsOf(d) {
  const parts = [];
  if (d.queueMs > 0) parts.push(`queued ${footerSeconds(d.queueMs)}`);
  if (d.lockWaitMs > 0) parts.push(`index lock ${footerSeconds(d.lockWaitMs)}`);
  if (parts.length === 0) return "";
  if (d.runMs !== undefined) parts.push(`run ${footerSeconds(d.runMs)}`);
  return ` (${parts.join(", ")})`;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The request on one line (the CLI command would only say it again). */
function renderCall({ Text }, args, theme, context) {
  const text = context?.lastComponent ?? new Text("", 0, 0);
  const request = printable(String(args?.request ?? "").replace(/\s+/g, " "));
  text.setText(
    `${theme.fg("toolTitle", theme.bold(`${TOOL_NAME} `))}${projectTag(args, theme)}${theme.fg("accent", request)}`,
  );
  return text;
}

/** "[packages/api] " before the subject when the call names a project (lib/pi/roots/roots.js), else "". */
function projectTag(args, theme) {
  const project = args?.project;
  return typeof project === "string" ? theme.fg("muted", `[${printable(project)}] `) : "";
}

/** The arguments of a focused tool's call without `project` (which picks where it runs, not what). */
const ownArgs = (args) => {
  const { project: _project, ...own } = args !== null && typeof args === "object" ? args : {};
  return own;
};

/** A focused tool's call (`spec` from lib/pi/tools/focused.js): what it asks about, on one line. */
function renderFocusedCall({ Text }, spec, args, theme, context) {
  const text = context?.lastComponent ?? new Text("", 0, 0);
  const subject = printable(spec.subject(ownArgs(args)).filter(Boolean).join(" ").replace(/\s+/g, " "));
  text.setText(
    `${theme.fg("toolTitle", theme.bold(`${spec.name} `))}${projectTag(args, theme)}${theme.fg("accent", subject)}`,
  );
  return text;
}

/**
 * What a focused tool's answer came from, for the user to run again: "$ codegraph callers -- 'x'
 * · in /path/to/project" (the project's directory where it ran: a root's, else Pi's workspace).
 * Only under an answer: a call refused or failed ran no such command (its error says why).
 */
function ranLine(spec, result, context) {
  let line;
  try {
    line = spec.line ? spec.line(ownArgs(context?.args)) : `$ ${commandLine(spec.command(ownArgs(context?.args)))}`;
  } catch {
    return null;
  }
  const dir = result.details?.project?.dir ?? context?.cwd;
  return printable(typeof dir === "string" ? `${line} · in ${dir}` : line);
}

/**
 * Partial progress, an error (code and remediation first), or the answer with its facts. `doing`
 * names the running command in the progress row (a focused tool's; explore's by default).
 */
function renderResult(peers, result, options, theme, context, doing, spec) {
  const { Text, formatSize, keyHint: importedKeyHint } = peers;
  // Pi 1.5+ hands the renderer the user's key names (its docs: an imported keyHint may be another
  // copy that knows none of them); the imported one before that.
  const keyHint = typeof context?.keyHint === "function" ? context.keyHint.bind(context) : importedKeyHint;
  const body = printable(result.content?.find((c) => c.type === "text")?.text ?? "");
  if (options.isPartial) {
    const p = result.details ?? {};
    if (p.queued) {
      const place = `${queries(p.ahead)} ahead (${p.limit} run at once on this index)`;
      return new Text(theme.fg("warning", `Waiting: ${place}… ${(p.waitedMs / 1000).toFixed(1)}s`), 0, 0);
    }
    const soFar = p.partial
      ? ` ${formatSize(p.seenBytes)}, ${p.seenLines} lines, ${(p.elapsedMs / 1000).toFixed(1)}s`
      : "";
    const tail = body ? `\n${theme.fg("toolOutput", body.replace(/\n$/, "").split("\n").slice(-3).join("\n"))}` : "";
    const running = doing ? `Running ${doing}…` : "Exploring the CodeGraph index…";
    return new Text(`${theme.fg("warning", `${running}${soFar}`)}${tail}`, 0, 0);
  }
  if (context?.isError) {
    // Code and remediation lead the message; the stderr tail (from its header on) and the lines
    // after it show only when expanded, and the collapsed view says how to see them.
    if (options.expanded) return new Text(theme.fg("error", body), 0, 0);
    const lines = body.split("\n");
    const stderrAt = lines.findIndex((l) => l.startsWith("stderr"));
    const shown = (stderrAt < 0 ? lines : lines.slice(0, stderrAt)).slice(0, 3);
    const hidden = lines.length > shown.length ? `\n${keyHint(EXPAND_KEY, "for the rest")}` : "";
    return new Text(`${theme.fg("error", shown.join("\n"))}${hidden}`, 0, 0);
  }
  const d = result.details ?? {};
  // When cut, the kept output comes first and the marker after it. The collapsed view counts
  // only the kept lines (the footer says it was cut): preview + "more" = kept, "kept of total".
  const all = body.replace(/\n$/, "").split("\n");
  const keptLines = d.truncated ? d.keptLines : all.length;
  const facts = [
    formatSize(d.keptBytes ?? Buffer.byteLength(body)),
    d.truncated
      ? `${keptLines} of ${d.totalsExact === false ? "at least " : ""}${d.totalLines} lines`
      : plural(d.keptLines ?? keptLines, "line"),
    d.durationMs !== undefined ? `${footerSeconds(d.durationMs)}${waitsOf(d)}` : null,
    d.cliVersion ? `codegraph ${d.cliVersion}` : null,
  ].filter(Boolean);
  let footer = theme.fg("dim", facts.join(" · "));
  if (d.truncated) footer += ` ${theme.fg("warning", "[truncated]")}`;
  // Seen without expanding: the answer's own line naming them is at its end.
  if (d.staleFiles?.length) footer += ` ${theme.fg("warning", staleTagText(d.staleFiles.length))}`;
  const ran = spec ? ranLine(spec, result, context) : null;
  const head = ran ? `${theme.fg("dim", ran)}\n` : "";
  // Expanded, the answer's own truncation marker names the full output: said once.
  if (options.expanded) return expandedAnswer(peers, body, footer, theme, head);
  if (d.fullOutputPath) footer += `\n${theme.fg("dim", `full output: ${d.fullOutputPath}`)}`;
  else if (d.fullOutputMissing) footer += `\n${theme.fg("dim", `full output not kept: ${d.fullOutputMissing}`)}`;
  // The preview skips blank lines and code fences (they would take its few rows from the answer)
  // and CodeGraph's quoted notes to the model ("> … do not Read a file shown here"): the user
  // reads them expanded, as the model got them.
  const kept = all.slice(0, keptLines).filter((l) => l.trim() !== "" && !FENCE.test(l) && !QUOTE.test(l));
  const more = kept.length - PREVIEW_LINES;
  const preview = kept
    .slice(0, PREVIEW_LINES)
    .map((l) => previewLine(l, theme))
    .join("\n");
  const hint =
    more > 0 ? `\n${theme.fg("muted", `… ${plural(more, "more line")},`)} ${keyHint(EXPAND_KEY, "to expand")}` : "";
  return new Text(`${head}${preview}${hint}\n${footer}`, 0, 0);
}

/** A Markdown code fence: "```", "```typescript". */
const FENCE = /^\s*```/u;
/** A Markdown quote line: CodeGraph's notes to the model. */
const QUOTE = /^\s*>/u;
/** CodeGraph's words to the model in a heading it draws for the user too. */
const TO_THE_MODEL = / \(no Read needed\)/gu;

/**
 * One line of the collapsed preview as the expanded view draws it, in brief: a heading's `#`
 * and `**strong**` bold, a quote's `>` and `` `code` ``'s backticks left out (Pi's Markdown draws the whole answer
 * when expanded; a preview line is plain text).
 */
function previewLine(line, theme) {
  const heading = /^#{1,6}\s+(.*)$/u.exec(line);
  const text = (heading ? heading[1] : line)
    .replace(TO_THE_MODEL, "")
    .replace(/\*\*([^*]+)\*\*/gu, (_, strong) => theme.bold(strong))
    .replace(/`([^`]+)`/gu, "$1");
  return theme.fg("toolOutput", heading ? theme.bold(text) : text);
}

/**
 * The whole answer as Markdown, drawn by Pi's Markdown component with Pi's Markdown theme (the
 * code blocks highlighted), its footer under it; plain text where the host gives no Markdown.
 */
function expandedAnswer({ Text, Markdown, Container, getMarkdownTheme }, body, footer, theme, head) {
  let markdownTheme;
  try {
    markdownTheme = Markdown && Container && getMarkdownTheme?.();
  } catch {
    // Pi's theme is not initialised (a host without Pi's interactive mode): plain text.
  }
  if (!markdownTheme) return new Text(`${head}${theme.fg("toolOutput", body)}\n${footer}`, 0, 0);
  const box = new Container();
  if (head) box.addChild(new Text(head.replace(/\n$/, ""), 0, 0));
  box.addChild(new Markdown(body, 0, 0, markdownTheme));
  box.addChild(new Text(footer, 0, 0));
  return box;
}

module.exports = { renderCall, renderFocusedCall, renderResult };
