// pi-codegraph: the Pi extension. Thin glue over the native addon (src/): it registers one tool,
// hands it Pi's workspace and abort signal, renders calls and results, and keeps the model's
// guidance and the status slot in step with what the addon diagnoses. No process logic lives here.

const path = require("node:path");
const pkg = require("./package.json");

const TOOL_NAME = "codegraph_explore";
const MAX_REQUEST_CHARS = 10000;
const PREVIEW_LINES = 8;
/**
 * Ends every tool error, so the model moves on instead of retrying an unavailable index. Pi's
 * default tools are read, bash, edit and write: grep and find may only exist through bash.
 */
const FALLBACK_LINE = `${TOOL_NAME} is unavailable for this request; use read, and grep/find (as tools or through bash), instead.`;

/** A coded Error, as the addon's own rejections are. */
function codedError(code, text, remediation, details = {}) {
  const err = new Error(`${code}: ${text}\nRemediation: ${remediation}`);
  return Object.assign(err, { code, remediation, details });
}

let binding;
let bindingError;
/** Loads the native addon on first use, so a missing binary is a tool error, never a Pi crash. */
function loadBinding() {
  if (binding) return binding;
  if (!bindingError) {
    try {
      binding = require("./lib/native.js").loadNative();
      return binding;
    } catch (cause) {
      bindingError = cause;
    }
  }
  // One short line for the model; the whole story (what was tried) is in `details.story`, which
  // `pi-codegraph doctor` and `/codegraph` print.
  const { target } = require("./lib/native.js");
  const err = codedError(
    "CODEGRAPH_ADDON",
    `the pi-codegraph native addon for ${target()} is not installed.`,
    `Reinstall pi-codegraph with optional dependencies (package pi-codegraph-${target()}), or run \`pi-codegraph doctor\`.`,
    { story: String(bindingError?.message ?? bindingError) },
  );
  throw err;
}

/**
 * A progress listener that can fail in any way (throw anything, return a rejected promise or a
 * thenable whose `then` throws) without taking the host down.
 */
function safeListener(fn) {
  return (progress) => {
    try {
      const r = fn(progress);
      if (r !== null && (typeof r === "object" || typeof r === "function")) Promise.resolve(r).catch(() => {});
    } catch {}
  };
}

/** The options the addon reads, copied out of whatever the caller passed (getters, Proxies). */
function plainOptions(options) {
  if (options === undefined || options === null) return null;
  if (typeof options !== "object") return options; // the addon rejects it with its own reason
  const { timeoutMs, onProgress } = options;
  return { timeoutMs, onProgress: typeof onProgress === "function" ? safeListener(onProgress) : onProgress };
}

/**
 * Runs `codegraph explore -- <request>` in `cwd`. See index.d.ts. Never throws synchronously:
 * every failure, odd arguments included, is a rejection with a CODEGRAPH_* code.
 */
async function explore(request, cwd, signal, options) {
  const native = loadBinding();
  let plain;
  try {
    plain = plainOptions(options);
  } catch (cause) {
    throw codedError(
      "CODEGRAPH_INVALID_OPTIONS",
      `the explore options are invalid: they cannot be read (${describe(cause)}).`,
      "Pass options as { timeoutMs?: milliseconds, onProgress?: function } and the signal as an AbortSignal, or leave them out.",
    );
  }
  try {
    return await native.explore(request, cwd, signal ?? null, plain);
  } catch (err) {
    if (err?.code?.startsWith?.("CODEGRAPH_")) throw err;
    throw codedError(
      "CODEGRAPH_INVALID_OPTIONS",
      `the explore arguments could not be used (${describe(err)}).`,
      "Pass a request string, an absolute workspace path, an AbortSignal and { timeoutMs?, onProgress? }.",
    );
  }
}

function describe(value) {
  try {
    return String(value?.message ?? value)
      .split("\n")[0]
      .slice(0, 200);
  } catch {
    return "unprintable";
  }
}

/** Read-only readiness of a workspace (executable, version, index). See index.d.ts. */
async function diagnose(cwd) {
  try {
    return await loadBinding().diagnose(cwd);
  } catch (err) {
    const story = err.details?.story;
    return {
      cwd,
      ready: false,
      problemCode: err.code,
      problem: story ? `${err.message.split("\n")[0]} ${story}` : err.message,
      remediation: err.remediation,
    };
  }
}

/** Which native binary is loaded (for `pi-codegraph doctor`), or why none could be. */
function addonInfo() {
  try {
    loadBinding();
  } catch (err) {
    return { path: null, error: err.details?.story ?? err.message };
  }
  const loaded = Object.keys(require.cache).find(
    (k) => k.endsWith(".node") && path.basename(k).startsWith("pi-codegraph"),
  );
  return { path: loaded ?? null, error: null };
}

/** This copy of pi-codegraph: with two installs, the one Pi loads first is the active one. */
function extensionInfo() {
  return { name: pkg.name, version: pkg.version, path: __dirname };
}

/** Deletes the temp files holding full output of truncated answers (the listed ones, or all). */
function releaseFullOutputs(paths) {
  return binding ? binding.releaseFullOutputs(paths ?? null) : 0;
}

const description =
  "Ask CodeGraph, the local code index of the current workspace, a structural question in natural language. " +
  "Returns the relevant symbols' source with file:line locations, call paths (Flow), callers (blast radius) and implementations. " +
  "Runs `codegraph explore` in the active workspace only; it never creates or updates the index. " +
  "Output is truncated to 2000 lines or 50KB (whichever is hit first, the truncation note included); a truncated result names a file with the full output.";

const readySnippet =
  "Ask the workspace's CodeGraph index structural questions: where symbols are defined, what calls what, what implements an interface, and call paths between symbols";

const readyGuidelines = [
  `Use ${TOOL_NAME} for architecture, relationship and call-path questions (what calls X, what implements Y, how A reaches B); name concrete symbols, files or code terms, since CodeGraph matches names lexically, not by meaning.`,
  `Do not use ${TOOL_NAME} to read a file you already know or to search for exact text; use read, or grep (as a tool or through bash), for those.`,
  `${TOOL_NAME} answers are CodeGraph's own text: where it says to use "the Read tool" or codegraph_node, use read with the file:line it gives (codegraph_node does not exist here), or ask ${TOOL_NAME} about that symbol.`,
];

/**
 * The prompt text for the current readiness: the tool is only advertised as ready when it can
 * serve; otherwise it says what the user must do.
 */
function guidance(diagnosis) {
  if (diagnosis.ready) return { promptSnippet: readySnippet, promptGuidelines: readyGuidelines };
  return {
    promptSnippet: `Unavailable in this workspace (${diagnosis.problemCode}): ${diagnosis.remediation} Use read, and grep/find through bash, instead`,
    promptGuidelines: [
      `Do not call ${TOOL_NAME} until the user has fixed this: ${diagnosis.problemCode}. If structure matters, tell the user once: ${diagnosis.remediation}`,
    ],
  };
}

/**
 * Text from the model or the CLI as a terminal may show it: escape sequences and other control
 * characters (OSC title or clipboard writes, screen clears) become visible `\x1b`-style escapes.
 */
function printable(text) {
  return String(text).replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
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
      const onProgress =
        typeof onUpdate === "function"
          ? (p) =>
              onUpdate({
                content: [{ type: "text", text: p.text }],
                details: { partial: true, seenBytes: p.seenBytes, seenLines: p.seenLines, elapsedMs: p.elapsedMs },
              })
          : undefined;
      try {
        // The workspace is Pi's, never the model's: the tool has no path parameter.
        const result = await explore(params?.request, ctx?.cwd, signal, { onProgress });
        state.lastError = undefined;
        if (result.details.fullOutputPath) state.fullOutputs.push(result.details.fullOutputPath);
        return { content: [{ type: "text", text: result.text }], details: result.details };
      } catch (err) {
        state.lastError = { at: new Date().toISOString(), message: err.message };
        const toolError = new Error(`${err.message}\n${FALLBACK_LINE}`, { cause: err });
        Object.assign(toolError, { code: err.code, remediation: err.remediation, details: err.details });
        throw toolError;
      } finally {
        // What the call showed may have changed readiness (an index made or removed meanwhile).
        state.refresh?.(ctx);
      }
    },

    renderCall(args, theme, context) {
      const text = context?.lastComponent ?? new Text("", 0, 0);
      const request = printable(String(args?.request ?? "").replace(/\s+/g, " "));
      text.setText(
        `${theme.fg("toolTitle", theme.bold(`${TOOL_NAME} `))}${theme.fg("accent", request)}\n${theme.fg("dim", `$ ${cliForm(request)}`)}`,
      );
      return text;
    },

    renderResult(result, options, theme, context) {
      const body = printable(result.content?.find((c) => c.type === "text")?.text ?? "");
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
    },
  };
}

/** The `/codegraph` report: the same diagnosis the guidance comes from, plus the last error. */
function statusReport(diagnosis, state) {
  const ext = extensionInfo();
  const lines = [
    `pi-codegraph: ${diagnosis.ready ? "ready" : `not ready (${diagnosis.problemCode})`}`,
    `extension: ${ext.name} ${ext.version} at ${ext.path} (the active copy)`,
    `workspace: ${diagnosis.cwd}`,
  ];
  const exe = diagnosis.executable
    ? `${diagnosis.executable}${diagnosis.cliVersion ? ` (${diagnosis.cliVersion})${diagnosis.cliVersionSource ? ` [version from ${diagnosis.cliVersionSource}]` : ""}` : ""}${diagnosis.executableInWorkspace ? " [inside the workspace]" : ""}`
    : (diagnosis.executableProblem ??
      (diagnosis.problemCode === "CODEGRAPH_NOT_FOUND" ? diagnosis.problem : "not checked"));
  lines.push(`codegraph: ${exe}`);
  if (diagnosis.launcher) lines.push(`runs: ${diagnosis.launcher} (the platform bundle its npm shim would start)`);
  if (diagnosis.indexPath) {
    const resolved =
      diagnosis.indexResolved && diagnosis.indexResolved !== diagnosis.indexPath
        ? ` -> ${diagnosis.indexResolved}`
        : "";
    lines.push(`index: ${diagnosis.indexPath}${resolved}`);
  } else {
    lines.push(
      `index: ${diagnosis.indexProblem ?? (diagnosis.problemCode === "CODEGRAPH_NO_INDEX" ? diagnosis.problem : "not checked")}`,
    );
  }
  if (diagnosis.ancestorIndex) lines.push(`enclosing project with an index: ${diagnosis.ancestorIndex}`);
  if (!diagnosis.ready) {
    if (!["CODEGRAPH_NOT_FOUND", "CODEGRAPH_NO_INDEX"].includes(diagnosis.problemCode))
      lines.push(`problem: ${diagnosis.problem}`);
    lines.push(`fix: ${diagnosis.remediation}`);
  }
  lines.push(
    `last error: ${state.lastError ? `${state.lastError.at} ${state.lastError.message.split("\n")[0]}` : "none"}`,
  );
  return lines.map(printable).join("\n");
}

/** The status slot: the real state, in a few words. */
function statusText(diagnosis) {
  if (diagnosis.ready) return "⬡ codegraph";
  const words = {
    CODEGRAPH_NO_INDEX: diagnosis.ancestorIndex ? "no index here (parent project has one)" : "no index",
    CODEGRAPH_NOT_FOUND: "not installed",
    CODEGRAPH_ADDON: "addon missing",
    CODEGRAPH_WORKSPACE: "workspace unusable",
  };
  return `⬡ codegraph: ${
    words[diagnosis.problemCode] ??
    String(diagnosis.problemCode)
      .replace(/^CODEGRAPH_/, "")
      .toLowerCase()
  }`;
}

/**
 * Builds the Pi extension factory around Pi's own TypeBox (`Type`) and TUI (`Text`), which
 * `getPeers()` returns (or resolves to) when the tool is created.
 *
 * Registration waits for `session_start`: Pi 0.73 exits at startup when two extensions register
 * one tool name while loading, and a user may have pi-codegraph installed both globally and in
 * the project. At `session_start` the tools registered so far are visible, so the first copy (in
 * Pi's load order) registers and any later copy skips quietly.
 *
 * Readiness is re-checked (read-only, no process starts where the CLI's package names its
 * version) before every agent turn and after every call: when it changed, the tool is registered
 * again with the new guidance, which makes Pi rebuild the system prompt, and the status slot
 * follows.
 */
function createExtension(getPeers) {
  /** @param {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi */
  return function piCodegraph(pi) {
    const state = { diagnosis: undefined, lastError: undefined, active: false, fullOutputs: [], peers: undefined };
    const key = (d) => `${d.ready}|${d.problemCode}|${d.remediation}`;

    async function refresh(ctx) {
      if (!state.active || !ctx?.cwd) return;
      const next = await diagnose(ctx.cwd);
      const changed = key(next) !== key(state.diagnosis);
      state.diagnosis = next;
      if (changed) pi.registerTool(createTool(state, state.peers));
      if (ctx.hasUI) ctx.ui.setStatus("codegraph", statusText(next));
    }
    state.refresh = (ctx) => refresh(ctx).catch(() => {});

    pi.on("session_start", async (_event, ctx) => {
      if (pi.getAllTools().some((tool) => tool.name === TOOL_NAME)) return;
      state.active = true;
      state.diagnosis = await diagnose(ctx.cwd);
      state.peers = await getPeers();
      pi.registerTool(createTool(state, state.peers));
      pi.registerCommand("codegraph", {
        description: "Show CodeGraph readiness for this workspace (read-only; never indexes)",
        handler: async (_args, cmdCtx) => {
          await refresh(cmdCtx);
          const report = statusReport(state.diagnosis, state);
          if (cmdCtx.hasUI) cmdCtx.ui.notify(report, state.diagnosis.ready ? "info" : "warning");
          else process.stdout.write(`${report}\n`);
        },
      });
      if (ctx.hasUI) ctx.ui.setStatus("codegraph", statusText(state.diagnosis));
    });

    pi.on("before_agent_start", async (_event, ctx) => {
      await refresh(ctx);
    });

    pi.on("session_shutdown", () => {
      if (!state.active) return;
      // Only this session's files: another session in the same process keeps its own.
      releaseFullOutputs(state.fullOutputs.splice(0));
    });
  };
}

/**
 * The default export: the factory with the peers resolved from this package's location, for the
 * SDK and tests (where `typebox` and `@mariozechner/pi-tui` are installed beside it). Pi itself
 * loads `extension.js` (the package's `pi` manifest; also `pi -e <package dir>`), which hands over
 * Pi's own copies.
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
module.exports.extensionInfo = extensionInfo;
module.exports.createExtension = createExtension;
module.exports.TOOL_NAME = TOOL_NAME;
module.exports.FALLBACK_LINE = FALLBACK_LINE;
