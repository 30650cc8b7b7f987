// pi-codegraph: the Pi extension. Thin glue over the native addon (src/): it registers one tool,
// hands it Pi's workspace and abort signal, renders calls and results, and reports readiness.
// No process logic lives here.

const path = require("node:path");

const TOOL_NAME = "codegraph_explore";
const MAX_REQUEST_CHARS = 10000;
const PREVIEW_LINES = 8;
/**
 * Ends every tool error, so the model moves on instead of retrying an unavailable index. Pi's
 * default tools are read, bash, edit and write: grep and find may only exist through bash.
 */
const FALLBACK_LINE = `${TOOL_NAME} is unavailable for this request; use read, and grep/find (as tools or through bash), instead.`;

let binding;
/** Loads the native addon on first use, so a missing binary is a tool error, never a Pi crash. */
function loadBinding() {
  if (!binding) {
    try {
      binding = require("./lib/native.js").loadNative();
    } catch (cause) {
      const remediation =
        "Reinstall pi-codegraph with optional dependencies enabled (npm install pi-codegraph) on a supported platform (macOS, Linux, Windows; x64 or arm64).";
      const err = new Error(`CODEGRAPH_ADDON: ${cause.message}\nRemediation: ${remediation}`, { cause });
      err.code = "CODEGRAPH_ADDON";
      err.remediation = remediation;
      throw err;
    }
  }
  return binding;
}

/** Runs `codegraph explore -- <request>` in `cwd`. See index.d.ts. */
async function explore(request, cwd, signal, options) {
  return loadBinding().explore(request, cwd, signal ?? null, options ?? null);
}

/** Read-only readiness of a workspace (executable, version, index). See index.d.ts. */
async function diagnose(cwd) {
  try {
    return await loadBinding().diagnose(cwd);
  } catch (err) {
    return { cwd, ready: false, problemCode: err.code, problem: err.message, remediation: err.remediation };
  }
}

/** Which native binary is loaded (for `pi-codegraph doctor`), or why none could be. */
function addonInfo() {
  try {
    loadBinding();
  } catch (err) {
    return { path: null, error: err.message.split("\n")[0] };
  }
  const loaded = Object.keys(require.cache).find(
    (k) => k.endsWith(".node") && path.basename(k).startsWith("pi-codegraph"),
  );
  return { path: loaded ?? null, error: null };
}

/** Deletes the temp files holding full output of truncated answers. */
function releaseFullOutputs() {
  return binding ? binding.releaseFullOutputs() : 0;
}

const description =
  "Ask CodeGraph, the local code index of the current workspace, a structural question in natural language. " +
  "Returns the relevant symbols' source with file:line locations, call paths (Flow), callers (blast radius) and implementations. " +
  "Runs `codegraph explore` in the active workspace only; it never creates or updates the index. " +
  "Output is truncated to 2000 lines or 50KB (whichever is hit first); a truncated result names a file with the full output.";

const readySnippet =
  "Ask the workspace's CodeGraph index structural questions: where symbols are defined, what calls what, what implements an interface, and call paths between symbols";

const readyGuidelines = [
  `Use ${TOOL_NAME} for architecture, relationship and call-path questions (what calls X, what implements Y, how A reaches B); name concrete symbols, files or code terms, since CodeGraph matches names lexically, not by meaning.`,
  `Do not use ${TOOL_NAME} to read a file you already know or to search for exact text; use read, or grep (as a tool or through bash), for those.`,
];

/**
 * The prompt text for this session, decided once at session_start from the diagnosis: the tool is
 * only advertised as ready when it can serve; otherwise it says what the user must do.
 */
function guidance(diagnosis) {
  if (diagnosis.ready) return { promptSnippet: readySnippet, promptGuidelines: readyGuidelines };
  return {
    promptSnippet: `Unavailable in this workspace (${diagnosis.problemCode}): ${diagnosis.remediation} Use read, and grep/find through bash, instead`,
    promptGuidelines: [
      `Do not call ${TOOL_NAME} in this session: ${diagnosis.problemCode}. If structure matters, tell the user once: ${diagnosis.remediation}`,
    ],
  };
}

/** How the call looks as a command line, for people reading the transcript (display only). */
function cliForm(request) {
  return `codegraph explore -- '${String(request).replace(/'/g, `'\\''`)}'`;
}

function formatBytes(n) {
  return n < 1024 ? `${n}B` : `${(n / 1024).toFixed(1)}KB`;
}

function createTool(state, { Type, Text }) {
  return {
    name: TOOL_NAME,
    label: "CodeGraph Explore",
    description,
    ...guidance(state.diagnosis),
    parameters: Type.Object({
      request: Type.String({
        description:
          "The Explore request: one natural-language question about the code's structure, naming the symbols or files it is about (e.g. 'how does CheckoutService.checkout reach PaymentProcessor.charge').",
        minLength: 1,
        maxLength: MAX_REQUEST_CHARS,
      }),
    }),

    async execute(_toolCallId, params, signal, onUpdate, ctx) {
      // Partial output while the CLI prints (bounded by the same caps, at most every 250 ms).
      const onProgress = onUpdate
        ? (p) =>
            onUpdate({
              content: [{ type: "text", text: p.text }],
              details: { partial: true, seenBytes: p.seenBytes, seenLines: p.seenLines, elapsedMs: p.elapsedMs },
            })
        : undefined;
      try {
        // The workspace is Pi's, never the model's: the tool has no path parameter.
        const result = await explore(params.request, ctx.cwd, signal, { onProgress });
        state.lastError = undefined;
        return { content: [{ type: "text", text: result.text }], details: result.details };
      } catch (err) {
        state.lastError = { at: new Date().toISOString(), message: err.message };
        const toolError = new Error(`${err.message}\n${FALLBACK_LINE}`, { cause: err });
        Object.assign(toolError, { code: err.code, remediation: err.remediation, details: err.details });
        throw toolError;
      }
    },

    renderCall(args, theme, context) {
      const text = context?.lastComponent ?? new Text("", 0, 0);
      const request = String(args?.request ?? "").replace(/\s+/g, " ");
      text.setText(
        `${theme.fg("toolTitle", theme.bold(`${TOOL_NAME} `))}${theme.fg("accent", request)}\n${theme.fg("dim", `$ ${cliForm(request)}`)}`,
      );
      return text;
    },

    renderResult(result, options, theme, context) {
      const body = result.content?.find((c) => c.type === "text")?.text ?? "";
      if (options.isPartial) {
        const p = result.details ?? {};
        const soFar = p.partial
          ? ` ${formatBytes(p.seenBytes)}, ${p.seenLines} lines, ${(p.elapsedMs / 1000).toFixed(1)}s`
          : "";
        const tail = body
          ? `\n${theme.fg("toolOutput", body.replace(/\n$/, "").split("\n").slice(-3).join("\n"))}`
          : "";
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
      const lines = body.replace(/\n$/, "").split("\n");
      const facts = [
        formatBytes(d.keptBytes ?? Buffer.byteLength(body)),
        `${d.keptLines ?? lines.length} lines`,
        d.durationMs !== undefined ? `${(d.durationMs / 1000).toFixed(2)}s` : null,
        d.cliVersion ? `codegraph ${d.cliVersion}` : null,
      ].filter(Boolean);
      let footer = theme.fg("dim", facts.join(" · "));
      if (d.truncated) footer += ` ${theme.fg("warning", "[truncated]")}`;
      if (d.fullOutputPath) footer += `\n${theme.fg("dim", `full output: ${d.fullOutputPath}`)}`;
      if (options.expanded) return new Text(`${theme.fg("toolOutput", body)}\n${footer}`, 0, 0);
      const more = lines.length - PREVIEW_LINES;
      const preview = lines.slice(0, PREVIEW_LINES).join("\n");
      const hint = more > 0 ? `\n${theme.fg("muted", `… ${more} more lines`)}` : "";
      return new Text(`${theme.fg("toolOutput", preview)}${hint}\n${footer}`, 0, 0);
    },
  };
}

/** The `/codegraph` report: the same diagnosis the tool's guidance came from, plus the last error. */
function statusReport(diagnosis, state) {
  const lines = [
    `pi-codegraph: ${diagnosis.ready ? "ready" : `not ready (${diagnosis.problemCode})`}`,
    `workspace: ${diagnosis.cwd}`,
    `codegraph: ${diagnosis.executable ?? "not found"}${diagnosis.cliVersion ? ` (${diagnosis.cliVersion})` : ""}`,
    `index: ${diagnosis.indexPath ?? "none in this workspace"}`,
  ];
  if (!diagnosis.ready) lines.push(`fix: ${diagnosis.remediation}`);
  lines.push(
    `last error: ${state.lastError ? `${state.lastError.at} ${state.lastError.message.split("\n")[0]}` : "none"}`,
  );
  return lines.join("\n");
}

function statusText(diagnosis) {
  if (diagnosis.ready) return "⬡ codegraph";
  return diagnosis.problemCode === "CODEGRAPH_NO_INDEX" ? "⬡ codegraph: no index" : "⬡ codegraph: not installed";
}

/**
 * Builds the Pi extension factory around Pi's own TypeBox (`Type`) and TUI (`Text`), which
 * `getPeers()` returns (or resolves to) when the tool is created.
 *
 * Registration waits for `session_start`: Pi 0.73 exits at startup when two extensions register
 * one tool name while loading, and a user may have pi-codegraph installed both globally and in
 * the project. At `session_start` the tools registered so far are visible, so the first copy (in
 * Pi's load order) registers and any later copy skips quietly.
 */
function createExtension(getPeers) {
  /** @param {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi */
  return function piCodegraph(pi) {
    const state = { diagnosis: undefined, lastError: undefined, active: false };

    pi.on("session_start", async (_event, ctx) => {
      if (pi.getAllTools().some((tool) => tool.name === TOOL_NAME)) return;
      state.active = true;
      // Decided once per session: a read-only check, no explore is run.
      state.diagnosis = await diagnose(ctx.cwd);
      pi.registerTool(createTool(state, await getPeers()));
      pi.registerCommand("codegraph", {
        description: "Show CodeGraph readiness for this workspace (read-only; never indexes)",
        handler: async (_args, cmdCtx) => {
          state.diagnosis = await diagnose(cmdCtx.cwd);
          const report = statusReport(state.diagnosis, state);
          if (cmdCtx.hasUI) cmdCtx.ui.notify(report, state.diagnosis.ready ? "info" : "warning");
          else process.stdout.write(`${report}\n`);
        },
      });
      if (ctx.hasUI) ctx.ui.setStatus("codegraph", statusText(state.diagnosis));
    });

    pi.on("session_shutdown", () => {
      if (state.active) releaseFullOutputs();
    });
  };
}

/**
 * The default export: the factory with the peers resolved from this package's location (SDK use,
 * `pi -e`, tests). Pi itself loads `extension.js`, which hands over Pi's own copies.
 */
const piCodegraph = createExtension(async () => {
  // import(), not require(): both are ES modules, and require(esm) needs Node 22.12+.
  const [{ Type }, { Text }] = await Promise.all([import("typebox"), import("@mariozechner/pi-tui")]);
  return { Type, Text };
});

module.exports = piCodegraph;
module.exports.default = piCodegraph;
module.exports.explore = explore;
module.exports.diagnose = diagnose;
module.exports.releaseFullOutputs = releaseFullOutputs;
module.exports.addonInfo = addonInfo;
module.exports.createExtension = createExtension;
module.exports.TOOL_NAME = TOOL_NAME;
module.exports.FALLBACK_LINE = FALLBACK_LINE;
