// The words of `/codegraph tools` (lib/pi/tools/choice.js): the list, a change, its completion lines, and
// what the choice's sources say (PI_CODEGRAPH_TOOLS, the saved file).

const { shownPath } = require("./paths.js");
const { FOCUSED_TOOL_ROWS } = require("../contract/tools.js");

/** The short names the user types, in the rows' order: "node, relations, search, changes". */
const SHORT_NAMES = FOCUSED_TOOL_ROWS.map((row) => row.short);
const namesText = SHORT_NAMES.join(", ");

/** What each word after `/codegraph tools` does, for the completion. */
const TOOLS_WORDS = {
  all: "Turn on every focused tool (the default)",
  none: "Only codegraph_explore",
  on: "Turn on the tools named after it (all when none is named)",
  off: "Turn off the tools named after it (all when none is named)",
};

/** "≈ 210 tokens": a size in characters as tokens, roughly (4 characters a token). */
const tokensText = (chars) => `≈ ${Math.round(chars / 4)} tokens`;

/** "codegraph_explore, codegraph_node": the tools on, explore always first. */
const toolsNow = (on) => (on.length ? `codegraph_explore, ${on.join(", ")}` : "codegraph_explore only");

/** Where the choice came from, as `/codegraph tools` and doctor say it. */
function sourceText(choice) {
  if (choice.source === "env") return "set by PI_CODEGRAPH_TOOLS";
  if (choice.source === "saved") return "saved for this project by /codegraph tools";
  if (choice.source === "session") return "chosen by /codegraph tools for this session only: it could not be saved";
  return `the default: explore, ${SHORT_NAMES.slice(0, -1).join(", ")} and ${SHORT_NAMES.at(-1)}`;
}

/**
 * The tools on and where the choice came from, in one line: doctor's `tools` row and the line of
 * the `/codegraph` report. `on`: the focused tools on (lib/pi/tools/focused.js names); `file`: where a saved
 * choice is (doctor names it).
 */
function toolsOnText(on, choice, file) {
  const tools = toolsNow(on);
  if (choice.source === "default") return `${tools} (the default; /codegraph tools in Pi turns them off)`;
  const where = choice.source === "saved" && file ? `: ${shownPath(file)}` : "";
  return `${tools} (${sourceText(choice)}${where})`;
}

/** Notes about the sources that were not used: a PI_CODEGRAPH_TOOLS we could not read, a saved file we could not use. */
function choiceNotes(choice) {
  const notes = [];
  if (choice.ignoredEnv !== undefined)
    notes.push(
      `PI_CODEGRAPH_TOOLS=${JSON.stringify(choice.ignoredEnv)} ignored: not all, none, or tool names (${namesText}) separated by commas.`,
    );
  if (choice.savedProblem)
    notes.push(`The saved choice could not be read (${choice.savedProblem}); the default applies.`);
  return notes;
}

/**
 * The list: every tool with on/off, its one line and its prompt cost; where the choice came from,
 * and how to change it. `tools`: `[{ name, on, line, chars, taken?, lacking? }]`.
 */
function toolsListText(tools, choice) {
  const width = Math.max(...tools.map((t) => t.name.length));
  const costs = tools.map((t) => (t.always ? "" : tokensText(t.chars)));
  const costWidth = Math.max(...costs.map((c) => c.length));
  const rows = tools.map((t, i) => {
    const state = t.always ? "on (always)" : t.on ? "on" : "off";
    const notes = [t.taken && `registered by another extension (${t.taken}): not ours`, t.lacking].filter(Boolean);
    // Columns, so that a row fits a terminal of 160 columns: the index is every tool's source.
    const line = t.line.replace(/,? from the CodeGraph index$/, "");
    return `  ${t.name.padEnd(width)}  ${state.padEnd(11)}  ${costs[i].padEnd(costWidth)}  ${line}${notes.length ? ` (${notes.join("; ")})` : ""}`;
  });
  return [
    `CodeGraph tools (${sourceText(choice)}):`,
    ...rows,
    ...choiceNotes(choice),
    "Tokens: what a tool adds to every request while it is on.",
    `Change: /codegraph tools all | none | on <names> | off <names> | <names> (exactly those). Names: ${namesText}.`,
  ].join("\n");
}

/**
 * After a change: what is on now, from when, and for which project it was saved (in the user's Pi
 * settings; the file's own name is a hash, which says nothing to a person), or why not.
 */
function toolsChangedText({ on, saved, saveError, envSet, project }) {
  const lines = [`CodeGraph tools on from the next request: ${toolsNow(on)}.`];
  if (saved) lines.push(`Saved for this project (${shownPath(project)}) in your Pi settings, not in the repository.`);
  if (saveError) lines.push(`Not saved (${saveError}): the choice lasts for this session only.`);
  if (envSet) lines.push("PI_CODEGRAPH_TOOLS is set: it decides again when Pi next starts.");
  return lines.join("\n");
}

/** `/codegraph tools` with a word that is not a tool or a choice. */
const unknownToolsText = (unknown) =>
  `/codegraph tools: unknown ${unknown.length === 1 ? "name" : "names"} ${unknown.map((w) => JSON.stringify(w)).join(", ")}. Use all, none, on <names>, off <names>, or names: ${namesText}.`;

/** A tool the installed CLI cannot run: why, for the list. */
const lackingText = (why) => `${why}: its calls would fail`;

module.exports = {
  TOOLS_WORDS,
  choiceNotes,
  lackingText,
  sourceText,
  tokensText,
  toolsChangedText,
  toolsOnText,
  toolsListText,
  unknownToolsText,
};
