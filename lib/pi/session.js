// One session served: what the start learns and registers (readiness, the roots, the tools),
// readiness refreshed before every agent turn and after every call, the /codegraph handlers, and
// the full-output files released at the end. lib/pi/extension.js decides which copy serves a
// session and when this start runs.

const path = require("node:path");
const { TOOL_NAME } = require("./guidance.js");
const { REPORT_ENTRY } = require("./extension.js");
const { isTrusted, untrustedGlue } = require("./untrusted.js");
const { indexedRoots, loadAddedRoots } = require("./roots/roots.js");
const { hasIndex } = require("./roots/index-probe.js");
const { SessionState } = require("./session-state.js");
const { statusColour, statusText } = require("./status-slot.js");
const { createTool } = require("./tools/registration.js");
const { FOCUSED_NAMES } = require("./tools/focused.js");
const { agentDirOf, choiceFor } = require("./tools/choice.js");
const { createAutoSync, loadSyncMode, releaseKept } = require("./auto-sync.js");
const { notServingText } = require("../words/command.js");

// What only a typed /codegraph needs (the verbs, /codegraph projects and /codegraph tools) loads
// when first typed, through the one table (bench/figures/start.mjs).
const { completeSubcommand, runSubcommand } = require("./commands/table.js");

/**
 * Starts serving the session `ctx` (its session_start context) with `glue` (the package's calls
 * plus extensionInfo() and runnerInfo()) and Pi's `peers` (index.d.ts Peers), and resolves once
 * the tools are registered: `{ toolResult, beforeAgentStart, complete, command, shutdown }`, the
 * handlers lib/pi/extension.js passes Pi's events to.
 *
 * Readiness is re-checked (read-only, no process starts where the CLI's package names its
 * version) before every agent turn and after every call, and the status slot follows. The tools
 * are registered again only when their words change, which only the user's doing changes (an
 * index made or removed, CodeGraph installed or not, /codegraph tools, the roots); an index write
 * running keeps the words it found. Pi 1.x sends such a change to the model as an addition to
 * the conversation where the model accepts one, so the cached prompt stays.
 *
 * The focused tools (lib/pi/tools/focused.js) are registered beside explore and then made inactive unless
 * the user's choice (lib/pi/tools/choice.js: PI_CODEGRAPH_TOOLS, or what `/codegraph tools` saved for the
 * project) has them on: Pi activates a tool when it is first registered, and activates every
 * extension tool again on `/reload`, so the choice is applied at every start. Registering
 * a tool again (readiness changed) keeps it as active or inactive as it was.
 *
 * The files Pi's own edit and write tools change are noted from `tool_result` (never modifying
 * it) in a ledger (lib/api/staleness.js): while any is newer than the index, the status slot counts
 * them (up to 1000, then "1000+") and the answers about them say so; the prompt does not change.
 * The index's mtime is re-checked with readiness, and an index written after an edit drops it.
 *
 * The roots (lib/pi/roots/roots.js): the workspace's own index, the indexes a bounded scan finds below it
 * (started with the session and on `/codegraph projects`; a turn waits only for a first scan still
 * running, itself bounded), and the roots the user added. Each is re-checked (its index, its
 * readiness) with the workspace; when the labels change, the tools are registered again with a
 * `project` parameter of the new labels (lib/pi/tools/registration.js).
 */
async function startSession(pi, ctx, packageGlue, peers) {
  // In a project Pi does not trust, nothing of it is read and no CodeGraph runs (lib/pi/untrusted.js).
  const trusted = isTrusted(ctx);
  const glue = trusted ? packageGlue : untrustedGlue(packageGlue, ctx.cwd);
  const state = new SessionState();
  // What the tools' definitions follow (lib/pi/tools/registration.js): readiness as worded and
  // the roots' labels; never what the model did (its edits, its calls), so the prompt it is
  // given stays the one a provider cached.
  const key = () => {
    const d = state.wordedReadiness();
    const labels = state.toolRoots().map((r) => r.label);
    return `${d.ready}|${d.problemCode}|${d.remediation}|${labels.join("\0")}`;
  };
  /** The definitions last registered, by name. */
  const registered = new Map();
  /** Registers explore and the focused tools again (their words follow readiness and the choice). */
  const registerAll = () => {
    state.worded = state.wordedReadiness();
    for (const name of [TOOL_NAME, ...state.focused]) {
      const tool = createTool(state, state.peers, glue, name);
      pi.registerTool(tool);
      registered.set(name, tool);
    }
  };
  /**
   * Pi 1.x takes a run's prompt options before its before_agent_start handlers run: tools
   * registered since (the start finishing during that turn, a turn's refresh, a scan that found
   * roots) reach that run's prompt only through the options themselves.
   */
  const carryInto = (options) => {
    if (!options?.toolSnippets || !options.toolGuidelines) return;
    for (const [name, tool] of registered) {
      if (tool.promptSnippet) options.toolSnippets[name] = tool.promptSnippet;
      else delete options.toolSnippets[name];
      options.toolGuidelines[name] = [...(tool.promptGuidelines ?? [])];
    }
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
    const { ledger } = state;
    const serving = state.serving();
    const text = statusText(
      serving,
      glue.runnerInfo(),
      ledger.count(),
      state.toolRoots(),
      ledger.more(),
      ledger.cut(),
      state.autoSync,
    );
    // Coloured from Pi's theme in the terminal only (an rpc client gets the plain words).
    const colour = ctx.mode === "tui" && ctx.ui.theme ? statusColour(serving, ledger.count()) : null;
    const shown = colour ? ctx.ui.theme.fg(colour, text) : text;
    if (shown === state.shownStatus) return;
    state.shownStatus = shown;
    ctx.ui.setStatus("codegraph", shown);
  };

  /**
   * The roots now: the workspace's own index, the last scan's, the added ones, each checked for
   * an index (the header, no SQLite) and, when it has one, diagnosed.
   */
  async function rootsNow(cwd, workspaceDiagnosis) {
    if (!trusted) return { roots: [], rootDiagnoses: new Map() };
    const ws = path.resolve(cwd);
    // An index being written is still the workspace's own (a sync must not drop it from the roots).
    const writing = workspaceDiagnosis.problemCode === "CODEGRAPH_INDEX_BUSY";
    const own = workspaceDiagnosis.ready || writing || (await hasIndex(ws));
    const roots = await indexedRoots(ws, { own, scanned: state.scan?.roots ?? [], added: state.added.dirs });
    const others = roots.filter((r) => r.indexed && r.offered && r.source !== "workspace");
    const found = await Promise.all(others.map((r) => glue.diagnose(r.dir, ws)));
    return { roots, rootDiagnoses: new Map(others.map((r, i) => [r.dir, found[i]])) };
  }

  // One refresh at a time, in the order asked: a slow one finishing after a later one would
  // put older readiness back (a call's refresh and a turn's often overlap).
  let refreshing = Promise.resolve();
  function refresh(ctx) {
    const next = refreshing.then(() => refreshNow(ctx));
    refreshing = next.catch(() => {});
    return next;
  }

  async function refreshNow(ctx) {
    if (!ctx?.cwd) return;
    const before = key();
    const next = await glue.diagnose(ctx.cwd);
    const now = await rootsNow(ctx.cwd, next);
    // Each root's index directory as its diagnosis found it (the one the CLI opens).
    const diagnosisOf = (r) => (r.source === "workspace" ? next : now.rootDiagnoses.get(r.dir));
    const indexed = now.roots.filter((r) => r.indexed).map((r) => ({ dir: r.dir, indexDir: diagnosisOf(r)?.indexDir }));
    await state.ledger.recheck(indexed.length > 0 ? indexed : ctx.cwd);
    Object.assign(state, { diagnosis: next, ...now });
    if (key() !== before) registerAll();
    slot(ctx);
  }
  state.refresh = (ctx) => refresh(ctx).catch(() => {});

  // The walk for changes no Pi tool reported (lib/api/disk-changes.js): one at a time; asked
  // again while one runs, it runs once more after it. Not while CodeGraph writes the index.
  let walking = null;
  let walkAgain = false;
  async function walkNow(ctx) {
    const d = state.diagnosis;
    if (!ctx?.cwd || !d || d.problemCode === "CODEGRAPH_INDEX_BUSY") return;
    // The roots the tools answer from, each with the index directory its diagnosis found (one
    // without an index time is left out by the walk).
    const roots = state.toolRoots().map((r) => ({ dir: r.dir, indexDir: state.diagnosisOf(r)?.indexDir }));
    let counted = false;
    // While auto sync is on, a large root is watched (lib/api/disk-changes.js).
    for (const found of await glue.changedSince(roots, { watch: state.autoSync?.on === true })) {
      if (state.ledger.noteChanged(found.dir, found.files, found.more, found.cut)) counted = true;
    }
    if (counted) slot(ctx);
  }
  /** Walks the roots for files changed since their index; resolves when the walk (and any asked for meanwhile) is done. */
  state.walkChanges = (ctx) => {
    if (walking) {
      walkAgain = true;
      return walking;
    }
    walking = (async () => {
      do {
        walkAgain = false;
        await walkNow(ctx).catch(() => {});
      } while (walkAgain);
    })().finally(() => {
      walking = null;
    });
    return walking;
  };
  /** The walk under way (and any asked for meanwhile), or null. */
  state.walkInFlight = () => walking;
  /** Scans for the indexes below the workspace again; the roots follow once it is done. */
  state.rescan = (ctx) => {
    // Begun one turn of the event loop later, so the start does not wait for it (nor for loading
    // the scan); `state.scanning` is set at once, so a turn still waits for it.
    const scanning = new Promise(setImmediate)
      .then(() => (trusted ? require("./roots/scan.js").scanRoots(ctx.cwd) : undefined))
      .then((scan) => {
        state.scan = scan;
      })
      .finally(() => {
        if (state.scanning === scanning) state.scanning = undefined;
      });
    state.scanning = scanning;
    return scanning.then(() => refresh(ctx));
  };
  /**
   * Waits for a scan still running (bounded by its own deadline) and the refresh after it: a
   * label typed by the user is read against the roots the scan found, as a turn's tools are.
   */
  state.scanSettled = async (ctx) => {
    if (!state.scanning) return;
    await state.scanning.catch(() => {});
    await refresh(ctx);
  };
  /** What /codegraph says: a notification where a UI exists, else where print mode's output goes. */
  const say = (ctx, text, type) => {
    if (ctx.hasUI) ctx.ui.notify(text, type);
    else process.stdout.write(`${text}\n`);
  };

  /**
   * A report the user reads (`name`: the verb typed, "" for bare /codegraph): in the terminal UI an
   * entry kept in the transcript (lib/pi/report-entry.js), never sent to the model; elsewhere said.
   */
  const keeps = typeof pi.appendEntry === "function" && typeof pi.registerEntryRenderer === "function";
  const show = (ctx, name, text, type) => {
    if (keeps && ctx.mode === "tui") pi.appendEntry(REPORT_ENTRY, { report: name, text, type });
    else say(ctx, text, type);
  };

  /** What every /codegraph handler takes (lib/pi/commands/table.js): one shape for all. */
  const commandContext = {
    glue,
    state,
    refresh,
    say,
    show,
    get peers() {
      return state.peers;
    },
  };

  state.peers = peers;
  state.agentDir = agentDirOf(peers.getAgentDir);
  state.choice = choiceFor(ctx.cwd, { agentDir: state.agentDir });
  state.added = loadAddedRoots(state.agentDir, ctx.cwd);
  // Off unless the user turned it on for this workspace; never in a project Pi does not trust.
  const mode = trusted ? loadSyncMode(state.agentDir, ctx.cwd) : { on: false };
  state.autoSync = createAutoSync({ state, glue, cwd: ctx.cwd, on: mode.on, say, slot });
  state.autoSync.problem = mode.problem;
  state.diagnosis = await glue.diagnose(ctx.cwd);
  Object.assign(state, await rootsNow(ctx.cwd, state.diagnosis));
  // The tools registered before ours (name → whose): a focused tool name another extension
  // registered first stays theirs; codegraph_explore registered by another extension since
  // session_start (in its own session_start, as the single-file example does) leaves this copy
  // serving nothing.
  state.taken = new Map(pi.getAllTools().map((t) => [t.name, t.sourceInfo?.path ?? t.sourceInfo?.source ?? "?"]));
  if (state.taken.has(TOOL_NAME)) return standingDown(state.taken.get(TOOL_NAME), glue, say);
  state.focused = FOCUSED_NAMES.filter((n) => !state.taken.has(n));
  registerAll();
  applyChoice();
  slot(ctx);
  // The scan for indexes below the workspace: off the start's path (the tools are registered
  // again when it finds roots); a turn waits only for this first one. Then the walk for what
  // changed since the index before this session.
  state
    .rescan(ctx)
    .catch(() => {})
    .then(() => state.walkChanges(ctx));

  return {
    // An edit or write by Pi's own tools: counted at once (it is newer than the index as last
    // seen); nothing is awaited, so the tool's result is never held up.
    toolResult(event, ctx) {
      // The roots the tools answer from cover the edits (none: the workspace).
      const roots = state.toolRoots().map((r) => r.dir);
      if (state.ledger.note(event, ctx?.cwd, roots)) slot(ctx);
      // A shell command may have changed any file: the walk looks, off the result's path.
      if (event?.toolName === "bash") state.walkChanges(ctx);
    },
    // A turn ended: with auto sync on, what it changed is synced in the background (not awaited).
    turnEnd(_event, ctx) {
      state.autoSync.afterTurn(ctx);
    },
    async beforeAgentStart(event, ctx) {
      // A scan still running (the start's, or /codegraph projects'; bounded by its own deadline)
      // decides the tools this turn is given.
      if (state.scanning) await state.scanning.catch(() => {});
      await refresh(ctx);
      // What changed between turns (the user's editor, a `!` command): looked for, not awaited.
      state.walkChanges(ctx);
      carryInto(event?.systemPromptOptions); // the same words again change nothing
    },
    // Everything after "/codegraph ": the verbs the installed CLI has, then a root's label or
    // `--yes`; after `tools`, the choices and the tools' names; after `roots`, add/remove,
    // directories and the added labels. A label is completed once a scan still running has
    // finished (Pi awaits a promise here).
    complete: (prefix) => completeSubcommand(prefix, commandContext, ctx),
    command: (args, cmdCtx) => runSubcommand(args, cmdCtx, commandContext),
    shutdown() {
      // Only this session's files: another session in the same process keeps its own. A call
      // still running keeps its file until the process exits (it reports the path after this).
      const ending = state.fullOutputs;
      state.fullOutputs = [];
      glue.releaseFullOutputs(ending);
      // What auto sync kept for the session: the watches and the long-lived CodeGraph (its whole tree).
      return releaseKept(glue);
    },
  };
}

/** The handlers of a copy that serves nothing because `owner` registered codegraph_explore first. */
function standingDown(owner, glue, say) {
  const nothing = () => {};
  return {
    toolResult: nothing,
    turnEnd: nothing,
    beforeAgentStart: nothing,
    complete: () => null,
    command: async (_args, cmdCtx) => say(cmdCtx, notServingText(owner, glue.extensionInfo()), "warning"),
    shutdown: nothing,
  };
}

module.exports = { startSession };
