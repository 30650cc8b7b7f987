// pi-codegraph: the Pi extension. Thin glue over the native `explore()` (src/): it registers one
// tool, hands it Pi's workspace and abort signal, and renders calls and results. No process
// logic lives here.

const TOOL_NAME = "codegraph_explore";
const MAX_REQUEST_CHARS = 10000;
const PREVIEW_LINES = 8;

let binding;
/** Loads the native addon on first use, so a missing binary is a tool error, never a Pi crash. */
function loadBinding() {
  if (!binding) {
    try {
      binding = require("./binding.js");
    } catch (cause) {
      const err = new Error(
        `CODEGRAPH_ADDON: the pi-codegraph native addon for ${process.platform}-${process.arch} could not be loaded.\n` +
          "Remediation: reinstall pi-codegraph with optional dependencies enabled (npm install pi-codegraph), on a supported platform (macOS, Linux, Windows; x64 or arm64).",
        { cause },
      );
      err.code = "CODEGRAPH_ADDON";
      err.remediation = "Reinstall pi-codegraph with optional dependencies enabled.";
      throw err;
    }
  }
  return binding;
}

/**
 * Runs `codegraph explore -- <request>` in `cwd`. See index.d.ts.
 * @returns {Promise<import("./index").ExploreResult>}
 */
async function explore(request, cwd, signal, options) {
  return loadBinding().explore(request, cwd, signal ?? null, options ?? null);
}

const description =
  "Ask CodeGraph, the local code index of the current workspace, a structural question in natural language. " +
  "Returns the relevant symbols' source with file:line locations, call paths (Flow), callers (blast radius) and implementations. " +
  "Runs `codegraph explore` in the active workspace only; it never creates or updates the index. " +
  `Output is truncated to 2000 lines or 50KB (whichever is hit first); a truncated result says so.`;

const promptSnippet =
  "Ask the workspace's CodeGraph index structural questions: where symbols are defined, what calls what, what implements an interface, and call paths between symbols";

const promptGuidelines = [
  `Use ${TOOL_NAME} for architecture, relationship and call-path questions (what calls X, what implements Y, how A reaches B); name concrete symbols, files or code terms, since CodeGraph matches names lexically, not by meaning.`,
  `Do not use ${TOOL_NAME} to read a file you already know or to search for exact text; use read or grep for those.`,
  `If ${TOOL_NAME} fails with CODEGRAPH_NOT_FOUND or CODEGRAPH_NO_INDEX, do not retry it: tell the user the remediation and continue with read, grep and find.`,
];

function createTool() {
  const { Type } = require("typebox");
  const { Text } = require("@mariozechner/pi-tui");
  return {
    name: TOOL_NAME,
    label: "CodeGraph Explore",
    description,
    promptSnippet,
    promptGuidelines,
    parameters: Type.Object({
      request: Type.String({
        description:
          "The Explore request: one natural-language question about the code's structure, naming the symbols or files it is about (e.g. 'how does CheckoutService.checkout reach PaymentProcessor.charge').",
        minLength: 1,
        maxLength: MAX_REQUEST_CHARS,
      }),
    }),

    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      // The workspace is Pi's, never the model's: the tool has no path parameter.
      const result = await explore(params.request, ctx.cwd, signal);
      return { content: [{ type: "text", text: result.text }], details: result.details };
    },

    renderCall(args, theme, context) {
      const text = context?.lastComponent ?? new Text("", 0, 0);
      const request = String(args?.request ?? "").replace(/\s+/g, " ");
      text.setText(`${theme.fg("toolTitle", theme.bold(`${TOOL_NAME} `))}${theme.fg("accent", request)}`);
      return text;
    },

    renderResult(result, options, theme, context) {
      if (options.isPartial) return new Text(theme.fg("warning", "Exploring the CodeGraph index…"), 0, 0);
      const body = result.content?.find((c) => c.type === "text")?.text ?? "";
      if (context?.isError) return new Text(theme.fg("error", body), 0, 0);
      const d = result.details ?? {};
      const lines = body.replace(/\n$/, "").split("\n");
      const summary = [
        formatBytes(d.keptBytes ?? Buffer.byteLength(body)),
        `${d.keptLines ?? lines.length} lines`,
        d.durationMs !== undefined ? `${(d.durationMs / 1000).toFixed(2)}s` : null,
        d.cliVersion ? `codegraph ${d.cliVersion}` : null,
      ]
        .filter(Boolean)
        .join(" · ");
      const tag = d.truncated ? ` ${theme.fg("warning", "[truncated]")}` : "";
      if (options.expanded) {
        return new Text(`${theme.fg("toolOutput", body)}\n${theme.fg("dim", summary)}${tag}`, 0, 0);
      }
      const shown = lines.slice(0, PREVIEW_LINES).join("\n");
      const more =
        lines.length > PREVIEW_LINES ? `\n${theme.fg("muted", `… ${lines.length - PREVIEW_LINES} more lines`)}` : "";
      return new Text(`${theme.fg("toolOutput", shown)}${more}\n${theme.fg("dim", summary)}${tag}`, 0, 0);
    },
  };
}

function formatBytes(n) {
  return n < 1024 ? `${n}B` : `${(n / 1024).toFixed(1)}KB`;
}

/**
 * The Pi extension factory.
 *
 * Registration waits for `session_start`: Pi 0.73 exits at startup when two extensions register
 * one tool name while loading, and a user may have pi-codegraph installed both globally and in
 * the project. At `session_start` the tools registered so far are visible, so the first copy (in
 * Pi's load order) registers and any later copy skips quietly.
 * @param {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi
 */
function piCodegraph(pi) {
  pi.on("session_start", () => {
    if (pi.getAllTools().some((tool) => tool.name === TOOL_NAME)) return;
    pi.registerTool(createTool());
  });
}

module.exports = piCodegraph;
module.exports.default = piCodegraph;
module.exports.explore = explore;
module.exports.TOOL_NAME = TOOL_NAME;
