// The session lifecycle: registration at session_start, readiness refreshed before every agent
// turn and after every call, the /codegraph command, and the full-output files released at
// session_shutdown.

const { TOOL_NAME } = require("./guidance.js");
const { createEditLedger } = require("./staleness.js");
const { statusReport, statusText } = require("./status.js");
const { createTool } = require("./tool.js");
const { FOCUSED_NAMES } = require("./tools.js");
const { agentDirOf, choiceFor } = require("./toolset.js");
const { handleTools, toolsCompletions } = require("./tools-command.js");
const { handleVerb, verbCompletions } = require("./verbs.js");
const { COMMAND_DESCRIPTION } = require("./words/verbs.js");

/**
 * Builds the Pi extension factory over `glue` (wrapBackend's calls plus extensionInfo() and
 * runnerInfo()) and Pi's own TypeBox (`Type`), TUI (`Text`) and helpers (`formatSize`, `keyHint`),
 * which `getPeers()` returns (or resolves to) when the tool is created.
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
 *
 * The focused tools (lib/tools.js) are registered beside explore and then made inactive unless
 * the user's choice (lib/toolset.js: PI_CODEGRAPH_TOOLS, or what `/codegraph tools` saved for the
 * project) has them on: Pi activates a tool when it is first registered, and activates every
 * extension tool again on `/reload`, so the choice is applied at every session_start. Registering
 * a tool again (readiness changed) keeps it as active or inactive as it was.
 *
 * The files Pi's own edit and write tools change are noted from `tool_result` (never modifying
 * it) in a ledger (lib/staleness.js): while any is newer than the index, the status slot counts
 * them and the guidance gains one line; the index's mtime is re-checked with readiness, and an
 * index written after an edit drops it.
 */
function createExtension(glue, getPeers) {
  /** @param {import("@mariozechner/pi-coding-agent").ExtensionAPI} pi */
  return function piCodegraph(pi) {
    const state = {
      diagnosis: undefined,
      lastError: undefined,
      active: false,
      fullOutputs: [],
      peers: undefined,
      ledger: createEditLedger(),
      // The focused tools this copy registered, and the user's choice of them ({ names, source }).
      focused: [],
      choice: { names: [], source: "default" },
    };
    /** The focused tools on: chosen and registered by this copy. */
    state.activeFocused = () => state.focused.filter((n) => state.choice.names.includes(n));
    const key = (d) => `${d.ready}|${d.problemCode}|${d.remediation}|${d.ready && state.ledger.count() > 0}`;
    /** Registers explore and the focused tools again (their words follow readiness and the choice). */
    const registerAll = () => {
      pi.registerTool(createTool(state, state.peers, glue));
      for (const name of state.focused) pi.registerTool(createTool(state, state.peers, glue, name));
    };
    /** Makes Pi's active tools match the choice: ours on or off, every other tool as it was. */
    const applyChoice = () => {
      const others = pi.getActiveTools().filter((n) => !state.focused.includes(n));
      pi.setActiveTools([...others, ...state.activeFocused()]);
    };
    state.applyChoice = () => {
      registerAll();
      applyChoice();
    };
    // Only a change reaches the UI: in rpc mode every setStatus is a message to the client.
    const slot = (ctx) => {
      if (!ctx.hasUI) return;
      const text = statusText(state.diagnosis, glue.runnerInfo(), state.ledger.count());
      if (text === state.shownStatus) return;
      state.shownStatus = text;
      ctx.ui.setStatus("codegraph", text);
    };

    async function refresh(ctx) {
      if (!state.active || !ctx?.cwd) return;
      const before = key(state.diagnosis);
      const [next] = await Promise.all([glue.diagnose(ctx.cwd), state.ledger.recheck(ctx.cwd)]);
      state.diagnosis = next;
      if (key(next) !== before) registerAll();
      slot(ctx);
    }
    state.refresh = (ctx) => refresh(ctx).catch(() => {});
    /** What /codegraph says: a notification where a UI exists, else where print mode's output goes. */
    const say = (ctx, text, type) => {
      if (ctx.hasUI) ctx.ui.notify(text, type);
      else process.stdout.write(`${text}\n`);
    };

    pi.on("session_start", async (_event, ctx) => {
      if (pi.getAllTools().some((tool) => tool.name === TOOL_NAME)) return;
      state.active = true;
      state.shownStatus = undefined; // a new session's UI has not been told yet
      state.diagnosis = await glue.diagnose(ctx.cwd);
      state.peers = await getPeers();
      state.agentDir = agentDirOf(state.peers.getAgentDir);
      state.choice = choiceFor(ctx.cwd, { agentDir: state.agentDir });
      // The tools registered before ours (name → whose): a focused tool name another extension
      // registered first stays theirs.
      state.taken = new Map(pi.getAllTools().map((t) => [t.name, t.sourceInfo?.path ?? t.sourceInfo?.source ?? "?"]));
      state.focused = FOCUSED_NAMES.filter((n) => !state.taken.has(n));
      registerAll();
      applyChoice();
      pi.registerCommand("codegraph", {
        description: COMMAND_DESCRIPTION,
        // Everything after "/codegraph ": the verbs the installed CLI has, then `--yes`; after
        // `tools`, the choices and the tools' names.
        getArgumentCompletions: (prefix) =>
          /^tools\s/i.test(String(prefix ?? ""))
            ? toolsCompletions(prefix)
            : verbCompletions(prefix, state.diagnosis?.cliVersion),
        handler: async (args, cmdCtx) => {
          if (/^\s*tools(\s|$)/i.test(String(args ?? ""))) {
            await handleTools(String(args).trim().slice(5), cmdCtx, { state, peers: state.peers, glue, say });
            return;
          }
          if (String(args ?? "").trim()) {
            await handleVerb(args, cmdCtx, { glue, state, peers: state.peers, refresh, say });
            return;
          }
          await refresh(cmdCtx);
          const info = { extension: glue.extensionInfo(), runner: glue.runnerInfo() };
          const report = statusReport(state.diagnosis, state, info);
          say(cmdCtx, report, state.diagnosis.ready ? "info" : "warning");
        },
      });
      slot(ctx);
    });

    // An edit or write by Pi's own tools: counted at once (it is newer than the index as last
    // seen); nothing is awaited, so the tool's result is never held up.
    pi.on("tool_result", (event, ctx) => {
      if (!state.active || state.diagnosis === undefined || state.peers === undefined) return;
      const before = key(state.diagnosis);
      if (!state.ledger.note(event, ctx?.cwd)) return;
      if (key(state.diagnosis) !== before) registerAll();
      slot(ctx);
    });

    pi.on("before_agent_start", async (_event, ctx) => {
      await refresh(ctx);
    });

    pi.on("session_shutdown", () => {
      if (!state.active) return;
      // Only this session's files: another session in the same process keeps its own. A call
      // still running keeps its file until the process exits (it reports the path after this).
      const ending = state.fullOutputs;
      state.fullOutputs = [];
      glue.releaseFullOutputs(ending);
    });
  };
}

module.exports = { createExtension };
