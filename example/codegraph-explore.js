// codegraph-explore.js: a Pi extension in one file, to read, copy and change.
//
// It gives the model one tool, codegraph_explore, that asks CodeGraph (the local code index) a
// structural question about Pi's workspace, and it shows the four parts of a Pi tool in the order
// Pi uses them: the schema (what the model may send), the guidance (what the model is told), the
// registration (when and how the tool joins the session) and the rendering (how a call and its
// answer look in Pi's transcript).
//
// Running CodeGraph is the pi-codegraph package's job, through its public API: explore() finds the
// CLI, checks the workspace and its index, runs `codegraph explore -- <request>` with caps (50 KB,
// 2,000 lines), a timeout, Pi's cancel and the whole process tree stopped, and fails with a stable
// CODEGRAPH_* code and a remediation; diagnose() tells, read-only, whether it can answer here.
// The package as a Pi extension does more (three focused tools, /codegraph and its verbs, the
// status slot, several projects, readiness checked before every turn): see its README.
//
// Try it from a checkout of pi-codegraph, where require("pi-codegraph") is the checkout itself:
//   npm install && npm run build && npm run example:index
//   cd example/workspace && pi -e ../codegraph-explore.js
// Copy it: Pi resolves an extension's requires from the node_modules beside it (Pi's own typebox
// and pi-tui always come from Pi):
//   mkdir -p ~/.pi/agent/extensions/codegraph-explore && cd ~/.pi/agent/extensions/codegraph-explore
//   npm install pi-codegraph && cp /path/to/codegraph-explore.js index.js
// It also needs the CodeGraph CLI on PATH (npm install -g @colbymchenry/codegraph) and an index
// you made in the project (`codegraph init`): the tool never creates or updates one.
// Load this file or the pi-codegraph package as an extension, not both: whichever Pi loads first
// registers codegraph_explore, the other one skips.

const { Type } = require("typebox");
const { Text } = require("@earendil-works/pi-tui");
const codegraph = require("pi-codegraph");

const TOOL = "codegraph_explore";
const PREVIEW_LINES = 8; // what a collapsed answer shows
const limits = codegraph.limits(); // the runner's bounds: request length, output caps

// ---------------------------------------------------------------------------------------------
// The schema: one string, the question. TypeBox builds the JSON Schema Pi sends to the model and
// validates the model's arguments with. There is no path argument: the tool always runs in Pi's
// workspace (ctx.cwd), never where the model points it.

const parameters = Type.Object({
  request: Type.String({
    description:
      "One question about the code's structure in plain words, naming the symbols or files it is about, e.g. 'how does NoteService.addNote reach MemoryStorage.save'.",
    minLength: 1,
    maxLength: limits.MAX_REQUEST_CHARS,
  }),
});

// ---------------------------------------------------------------------------------------------
// The guidance. `description` is the tool's documentation, sent with every request. In Pi's
// default system prompt, `promptSnippet` is the tool's line under "Available tools" and each
// `promptGuidelines` entry a bullet under "Guidelines" (Pi appends them flat, so each one names the
// tool). Both follow the workspace's readiness: a tool that cannot answer here says what the user
// must do, instead of being tried by the model turn after turn.

const description =
  "Ask the CodeGraph index of the current workspace a question about how its code fits together. " +
  "The answer quotes the relevant symbols' source with file:line locations, the call paths between them, " +
  "their callers and implementations. Read-only: never creates or updates the index. " +
  `Answers are cut at ${limits.MAX_OUTPUT_LINES} lines or ${limits.MAX_OUTPUT_BYTES / 1024}KB; ` +
  "a cut answer names a file that holds all of it.";

/** The snippet and guidelines for a workspace, from codegraph.diagnose()'s answer. */
function guidance(diagnosis) {
  if (diagnosis.ready) {
    return {
      promptSnippet:
        "Questions about this workspace's code structure (definitions, callers, call paths, implementations), answered from its CodeGraph index",
      promptGuidelines: [
        `Use ${TOOL} to learn how A reaches B, what calls X or what implements Y; name the symbols or files, since CodeGraph matches names, not meaning.`,
        `Use read to open a file you already know, and grep (through bash if there is no grep tool) to find exact text; ${TOOL} is for relationships.`,
      ],
    };
  }
  return {
    promptSnippet: `Not available in this workspace (${diagnosis.problemCode}): ${diagnosis.remediation}`,
    promptGuidelines: [
      `Do not call ${TOOL} in this session (${diagnosis.problemCode}); if the code's structure matters, tell the user once what to do: ${diagnosis.remediation}`,
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// The registration. Pi calls this factory once when it loads the file; the tool is registered at
// session_start, once the workspace is known (and because Pi stops when two extensions register
// the same tool name while loading: the pi-codegraph package may be installed too).

module.exports = function codegraphExplore(pi) {
  // The files holding the whole of this session's cut answers; removed when the session ends.
  const fullOutputs = [];

  pi.on("session_start", async (_event, ctx) => {
    if (pi.getAllTools().some((tool) => tool.name === TOOL)) return; // another copy was first
    const diagnosis = await codegraph.diagnose(ctx.cwd);
    pi.registerTool({
      name: TOOL,
      label: "CodeGraph Explore",
      description,
      ...guidance(diagnosis),
      parameters,

      async execute(_toolCallId, params, signal, onUpdate, ctx) {
        // While the CLI prints, its latest lines go to Pi as a partial result (see renderResult).
        const onProgress = (p) =>
          onUpdate?.({
            content: [{ type: "text", text: p.text }],
            details: { seenLines: p.seenLines, elapsedMs: p.elapsedMs },
          });
        try {
          const { text, details } = await codegraph.explore(params.request, ctx.cwd, signal, { onProgress });
          if (details.fullOutputPath) fullOutputs.push(details.fullOutputPath);
          // `content` is what the model reads; `details` (sizes, times, the CLI's version) is for
          // the rendering and the session's record.
          return { content: [{ type: "text", text }], details };
        } catch (err) {
          // Throwing is how a Pi tool fails: Pi marks the call as an error and the model reads the
          // message ("CODE: what happened", then "Remediation: …"). Ended with where to turn
          // instead, unless the user cancelled (Esc), which needs no advice.
          if (err.code === "CODEGRAPH_CANCELLED") throw err;
          throw new Error(`${err.message}\n${codegraph.FALLBACK_LINE}`, { cause: err });
        }
      },

      renderCall,
      renderResult,
    });
  });

  pi.on("session_shutdown", () => {
    codegraph.releaseFullOutputs(fullOutputs.splice(0));
  });
};

// ---------------------------------------------------------------------------------------------
// The rendering: pi-tui Text components, coloured through Pi's theme (its colour names: toolTitle,
// accent, toolOutput, dim, muted, warning, error), so the tool reads like Pi's built-in ones.
// renderResult is called with isPartial while onUpdate streams, and with expanded when the user
// toggles tool output (Pi's expand key, ctrl+o by default); collapsed shows the first lines.

/** Text from the model on one printable line: no control characters reach the terminal. */
const oneLine = (s) =>
  String(s ?? "")
    .replace(/[\s\p{Cc}]+/gu, " ")
    .trim();

/** `codegraph_explore <the request>`; Pi reuses the component while the arguments stream in. */
function renderCall(args, theme, context) {
  const text = context?.lastComponent ?? new Text("", 0, 0);
  text.setText(`${theme.fg("toolTitle", theme.bold(`${TOOL} `))}${theme.fg("accent", oneLine(args?.request))}`);
  return text;
}

/** Progress, a failure (its first line, all of it expanded) or the answer with its facts. */
function renderResult(result, { expanded, isPartial }, theme, context) {
  const body = (result.content?.[0]?.text ?? "").replace(/\n$/, ""); // what the model read
  const lines = body.split("\n");
  const d = result.details ?? {};

  if (isPartial) {
    const soFar = d.elapsedMs === undefined ? "" : ` ${d.seenLines} lines, ${(d.elapsedMs / 1000).toFixed(1)}s`;
    const last = body ? `\n${theme.fg("dim", lines.at(-1))}` : ""; // the CLI's latest line
    return new Text(`${theme.fg("warning", `Exploring the CodeGraph index…${soFar}`)}${last}`, 0, 0);
  }

  if (context?.isError) {
    if (expanded || lines.length === 1) return new Text(theme.fg("error", body), 0, 0);
    return new Text(`${theme.fg("error", lines[0])}\n${theme.fg("muted", `… ${lines.length - 1} more lines`)}`, 0, 0);
  }

  // The facts under the answer: its size, the wait, which CLI answered, and whether it was cut.
  const facts = [`${lines.length} lines`];
  if (d.durationMs !== undefined) facts.push(`${(d.durationMs / 1000).toFixed(2)}s`);
  if (d.cliVersion) facts.push(`codegraph ${d.cliVersion}`);
  const cut = d.truncated ? ` ${theme.fg("warning", "[truncated]")}` : "";
  const footer = `${theme.fg("dim", facts.join(" · "))}${cut}`;
  if (expanded) {
    const file = d.fullOutputPath ? `\n${theme.fg("dim", `full output: ${d.fullOutputPath}`)}` : "";
    return new Text(`${theme.fg("toolOutput", body)}\n${footer}${file}`, 0, 0);
  }
  const more = lines.length - PREVIEW_LINES;
  const hint = more > 0 ? `\n${theme.fg("muted", `… ${more} more lines (expand to see them)`)}` : "";
  return new Text(`${theme.fg("toolOutput", lines.slice(0, PREVIEW_LINES).join("\n"))}${hint}\n${footer}`, 0, 0);
}
