// `/codegraph tools`: the user turns the focused tools (lib/pi/tools/focused.js) on and off. Only the user:
// a command is typed, never called by the model. The change reaches the next request's tools
// array and system prompt (Pi's setActiveTools) and is saved for the project (lib/pi/tools/choice.js).

const { FOCUSED_WORDS, TOOL_NAME, focusedDescription } = require("../guidance.js");
const { FOCUSED_TOOLS } = require("../tools/focused.js");
const { applyChoice, envChoice, parseToolsArgs, saveChoice } = require("../tools/choice.js");
const { supports } = require("../../words/versions.js");
const { TOOLS_WORDS, lackingText, toolsChangedText, toolsListText, unknownToolsText } = require("../../words/tools.js");

/**
 * What one focused tool adds to every request while on, in characters: its description, schema,
 * snippet and guideline as Pi sends them (the bench prints the same figure).
 */
function promptChars(spec, peers) {
  const w = FOCUSED_WORDS[spec.name];
  const schema = JSON.stringify(spec.parameters(peers));
  return (
    spec.name.length +
    focusedDescription(spec.name, spec.caps).length +
    schema.length +
    w.snippet.length +
    w.guideline.length
  );
}

/** The rows of the list: explore, then each focused tool with its state and notes. */
function toolRows(state, peers) {
  const cliVersion = state.diagnosis?.cliVersion;
  const rows = [{ name: TOOL_NAME, always: true, line: "Structural questions in natural language" }];
  for (const spec of FOCUSED_TOOLS) {
    let lacking;
    try {
      const r = supports(cliVersion, spec.feature);
      if (r && r.ok === false) lacking = lackingText(r.why);
    } catch {}
    rows.push({
      name: spec.name,
      on: state.activeFocused().includes(spec.name),
      line: FOCUSED_WORDS[spec.name].snippet,
      chars: promptChars(spec, peers),
      taken: state.taken?.get(spec.name),
      lacking,
    });
  }
  return rows;
}

/**
 * `/codegraph tools <rest>`: list, or change and save. `env`: `{ state, peers, say }` from
 * lib/pi/session.js (state.applyChoice() re-registers and sets Pi's active tools).
 */
async function handleTools(rest, ctx, { state, peers, say, show }) {
  const parsed = parseToolsArgs(rest);
  if (parsed.unknown) return say(ctx, unknownToolsText(parsed.unknown), "warning");
  if (parsed.action === "list") return show(ctx, "tools", toolsListText(toolRows(state, peers), state.choice), "info");
  const names = applyChoice(state.choice.names, parsed);
  let saved;
  let saveError;
  try {
    saved = saveChoice(state.agentDir, ctx.cwd, names);
  } catch (err) {
    saveError = err?.code ?? err?.message ?? String(err);
  }
  // Applied either way; "session" when it could not be saved (the list then says so).
  state.toolsChosen(names, saved);
  state.applyChoice();
  const on = state.activeFocused();
  // Only a value it reads decides at the next start (an ignored one leaves that to the saved file).
  const envSet = envChoice(process.env)?.names !== undefined;
  say(ctx, toolsChangedText({ on, saved, saveError, envSet, project: ctx.cwd }), saveError ? "warning" : "info");
}

/**
 * Pi's completion after `/codegraph tools `: the choices and the names, as whole arguments (Pi
 * replaces everything after `/codegraph ` with the value). A word typed in full completes to
 * nothing, so Enter runs it.
 */
function toolsCompletions(prefix) {
  const text = String(prefix ?? "");
  const words = text.split(/\s+/);
  const typed = text.endsWith(" ") ? "" : words.pop().toLowerCase();
  const before = text.endsWith(" ") ? text.trimEnd() : words.join(" ");
  const after = before
    .split(/\s+/)
    .slice(1)
    .map((w) => w.toLowerCase()); // the words after "tools"
  const candidates = [];
  if (after.length === 0) for (const [word, line] of Object.entries(TOOLS_WORDS)) candidates.push([word, line]);
  if (after.length === 0 || after[0] === "on" || after[0] === "off" || !(after[0] in TOOLS_WORDS)) {
    for (const spec of FOCUSED_TOOLS)
      if (!after.includes(spec.short)) candidates.push([spec.short, FOCUSED_WORDS[spec.name].snippet]);
  }
  if (candidates.some(([word]) => word === typed)) return null;
  const items = candidates
    .filter(([word]) => word.startsWith(typed))
    .map(([word, line]) => ({ value: `${before} ${word}`, label: word, description: line }));
  return items.length ? items : null;
}

module.exports = { handleTools, promptChars, toolRows, toolsCompletions };
