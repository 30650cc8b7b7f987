// The extension as Pi loads it: which copy serves a session, and the session's start run after
// Pi's own. Light on purpose (this file, the tool's name and the command's words: six modules,
// __test__/architecture/start-cost.test.mjs): Pi loads it while starting; the package, its runner and the
// session's modules load when the session's start runs (bench/figures/start.mjs).

const { TOOL_NAME } = require("./guidance.js");
const { COMMAND_DESCRIPTION, startFailedText } = require("../words/command.js");

/**
 * Asked on Pi's event bus (`pi.events`) at session_start: the copy of pi-codegraph serving the
 * session (`question.sessionManager`) says so (`served`) and when its start is done (`started`).
 */
const SERVING_EVENT = "pi-codegraph:serving";

/**
 * The custom type of a `/codegraph` report kept in the transcript (lib/pi/report-entry.js): the
 * renderer is registered under it while Pi loads the extension, so a resumed session draws them.
 */
const REPORT_ENTRY = "pi-codegraph-report";

/** What the names of this package's tools begin with (codegraph_explore, codegraph_node, …). */
const TOOL_PREFIX = "codegraph_";

/** Resolves once Pi has handled what was already waiting (a client's first command, a key typed). */
const afterPendingInput = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * A start's failure, told where Pi shows an extension's words; nothing when the session was
 * replaced (or reloaded) while it started: Pi has made its ctx stale (every use throws), nobody is
 * left to tell, and the session after it starts on its own.
 */
function sayFailure(ctx, text) {
  let hasUI;
  try {
    hasUI = ctx.hasUI;
  } catch {
    return;
  }
  try {
    if (hasUI) ctx.ui.notify(text, "error");
    else console.error(text);
  } catch {
    console.error(text);
  }
}

/**
 * Pi's peers, asked for on first use (a value under Pi; a promise elsewhere, undefined until it
 * settles): the first row or report drawn, not Pi's start.
 */
function peersOnFirstUse(getPeers) {
  let peers;
  let asked = false;
  return () => {
    if (!asked) {
      asked = true;
      const got = getPeers();
      if (typeof got?.then === "function") got.then((p) => (peers = p)).catch(() => {});
      else peers = got;
    }
    return peers;
  };
}

/**
 * Pi's resolver of a tool's renderers by name (`(toolName, next)`): `next()` (another copy's, or
 * the registered tool's) first, else this package's renderers for its own tools' names (their
 * modules loaded on the first row of ours; until Pi's peers are there, Pi draws those rows).
 */
function rendererResolver(peers) {
  return (toolName, next) => {
    const registered = next();
    if (registered || typeof toolName !== "string" || !toolName.startsWith(TOOL_PREFIX)) return registered;
    const ofPi = peers();
    return ofPi ? require("./tools/renderers.js").toolRenderers(toolName, ofPi) : undefined;
  };
}

/** Pi's renderer of a report entry (lib/pi/report-entry.js, loaded on the first one drawn). */
const reportRenderer = (peers) => (entry, _options, theme) => {
  const ofPi = peers();
  return ofPi?.Box ? require("./report-entry.js").renderReport(entry, theme, ofPi) : undefined;
};

/**
 * Builds the Pi extension factory over `getGlue()` (the package: its calls plus extensionInfo()
 * and runnerInfo(); loaded when a session starts) and `getPeers()` (Pi's TypeBox, TUI and helpers,
 * index.d.ts Peers; a value or a promise).
 *
 * Nothing is registered while Pi loads extensions, and only /codegraph at session_start: a user
 * may have pi-codegraph installed both globally and in the project, and Pi 1.x reports a tool
 * name two extensions register while loading as a load error (Pi 0.73 refused to start). At
 * session_start the copies ask each other in Pi's order: the first serves, a later one stays
 * quiet, as does every copy when another extension registered codegraph_explore while loading.
 *
 * The serving copy's start (lib/pi/session.js: the workspace's diagnosis, the roots, the tools
 * registered) runs after session_start, once Pi has answered what was waiting, so Pi is ready as
 * soon as without the extension; whatever needs it waits for it: a turn (before_agent_start,
 * whose prompt options then carry the tools), /codegraph and its completions, the end of the
 * session. A start that fails is said at once; turns then go on without the tools, and /codegraph
 * fails with it.
 */
function createExtension(getGlue, getPeers) {
  /** @param {import("@earendil-works/pi-coding-agent").ExtensionAPI} pi */
  return function piCodegraph(pi) {
    /** The session this copy serves, from session_start to session_shutdown: `{ sessionManager, started, handlers, stopAnswering, ended }`. */
    let serving;

    // The rows and reports of a resumed or reloaded session are drawn before the session's start:
    // their renderers from now on (lib/pi/tools/renderers.js, a registered tool's first; reports).
    const peers = peersOnFirstUse(getPeers);
    if (typeof pi.registerToolRenderer === "function") pi.registerToolRenderer(rendererResolver(peers));
    if (typeof pi.registerEntryRenderer === "function") pi.registerEntryRenderer(REPORT_ENTRY, reportRenderer(peers));

    pi.on("session_start", (_event, ctx) => {
      if (pi.getAllTools().some((tool) => tool.name === TOOL_NAME)) return;
      const question = { sessionManager: ctx.sessionManager, served: false, started: undefined };
      pi.events.emit(SERVING_EVENT, question);
      if (question.served) return;
      const session = { sessionManager: ctx.sessionManager, handlers: undefined };
      session.started = afterPendingInput().then(async () => {
        const glue = getGlue();
        const peers = await getPeers();
        await afterPendingInput(); // loading the package took a while: Pi's input first
        session.handlers = await require("./session.js").startSession(pi, ctx, glue, peers);
        return session.handlers;
      });
      // Said once, at once (a turn then goes on without the tools; /codegraph fails with it), unless
      // the session ended first: replaced, its start fails on the stale ctx, which says nothing.
      session.started.catch((err) => session.ended || sayFailure(ctx, startFailedText(err)));
      session.stopAnswering = pi.events.on(SERVING_EVENT, (asked) => {
        // Asked for another session (an SDK host may share a bus); stopped at session_shutdown.
        if (asked.sessionManager !== session.sessionManager) return;
        asked.served = true;
        asked.started = session.started.then(
          () => {},
          () => {},
        );
      });
      serving = session;
      pi.registerCommand("codegraph", {
        description: COMMAND_DESCRIPTION,
        // At once once started (a promise only while the start, or a scan a label waits for, runs).
        getArgumentCompletions: (prefix) =>
          session.handlers ? session.handlers.complete(prefix) : session.started.then((h) => h.complete(prefix)),
        handler: async (args, cmdCtx) => (await session.started).command(args, cmdCtx),
      });
    });

    // An edit or write by Pi's own tools, noted without holding the result up (a tool runs only
    // in a turn, and a turn starts after the start).
    pi.on("tool_result", (event, ctx) => {
      serving?.handlers?.toolResult(event, ctx);
    });

    // Returns nothing: a turn's end is only a moment to start a sync at (lib/pi/auto-sync.js).
    pi.on("turn_end", (event, ctx) => {
      serving?.handlers?.turnEnd(event, ctx);
    });

    pi.on("before_agent_start", async (event, ctx) => {
      const handlers = await serving?.started.catch(() => undefined);
      await handlers?.beforeAgentStart(event, ctx);
    });

    pi.on("session_shutdown", async () => {
      const session = serving;
      if (!session) return;
      serving = undefined;
      session.ended = true;
      session.stopAnswering();
      await (await session.started.catch(() => undefined))?.shutdown();
    });
  };
}

module.exports = { createExtension, REPORT_ENTRY, SERVING_EVENT };
