// A minimal stand-in of Pi's extension host: per-extension API objects over one shared tool
// registry and one event bus, `session_start` handlers run in load order, first registration per
// name wins.
import { EventEmitter } from "node:events";
import { createRequire } from "node:module";

const { SERVING_EVENT } = createRequire(import.meta.url)("../../lib/pi/extension.js");

/** Pi's event bus (`pi.events`), shared by the extensions of one session: emit, and on → unsubscribe. */
function eventBus() {
  const emitter = new EventEmitter();
  return {
    emit: (channel, data) => emitter.emit(channel, data),
    on: (channel, handler) => {
      emitter.on(channel, handler);
      return () => emitter.off(channel, handler);
    },
  };
}

/**
 * Resolves once the copy of pi-codegraph serving the session of `ctx` (if any) has finished its
 * start: the question copies ask each other on the bus (lib/pi/extension.js).
 */
export async function servingStarted(events, ctx) {
  const question = { sessionManager: ctx?.sessionManager, served: false, started: undefined };
  events.emit(SERVING_EVENT, question);
  await question.started;
  return question.served;
}

export function createPiHost() {
  const registry = [];
  const events = eventBus();
  const commands = new Map();
  const handlers = [];
  // Pi's active tools: a name is activated when first registered, kept as it was when registered
  // again, and set by setActiveTools (names not registered are ignored).
  const active = new Set();
  return {
    registry,
    commands,
    active,
    /** The tools a request would carry now: the active ones, in registration order. */
    activeTools: () => registry.filter((t) => active.has(t.name)),
    events,
    load(factory, source) {
      const api = {
        events,
        on(event, fn) {
          handlers.push({ event, fn, source });
        },
        registerTool(tool) {
          // Across extensions the first registration of a name stays; the same extension
          // registering again replaces its tool (Pi then rebuilds the system prompt).
          const i = registry.findIndex((t) => t.name === tool.name);
          if (i === -1) {
            registry.push({ ...tool, source });
            active.add(tool.name);
          } else if (registry[i].source === source) registry[i] = { ...tool, source };
        },
        getActiveTools() {
          return registry.filter((t) => active.has(t.name)).map((t) => t.name);
        },
        setActiveTools(names) {
          active.clear();
          for (const name of names) if (registry.some((t) => t.name === name)) active.add(name);
        },
        // A name registered again by another extension is kept too, as Pi 1.x does, as `name:2`.
        registerCommand(name, options) {
          let key = name;
          for (let n = 2; commands.has(key); n++) key = `${name}:${n}`;
          commands.set(key, { ...options, source });
        },
        getAllTools() {
          return registry.map(({ name, description, parameters, source: s }) => ({
            name,
            description,
            parameters,
            sourceInfo: { source: s },
          }));
        },
      };
      factory(api);
    },
    /** Pi's session_start: the handlers, in load order. */
    async sessionStart(ctx) {
      for (const h of handlers.filter((h) => h.event === "session_start")) await h.fn({ reason: "startup" }, ctx);
    },
    /** Pi's session_start, then until the serving copy's start is done (as a first turn waits). */
    async startSession(ctx) {
      await this.sessionStart(ctx);
      await servingStarted(events, ctx);
    },
    /**
     * What Pi does when the user sends a prompt: before_agent_start handlers, in load order, over
     * the run's prompt options as Pi 1.x takes them before the handlers run (the active tools'
     * snippets and guidelines). Returns the options as the handlers left them.
     */
    async beforeAgentStart(ctx, prompt = "q") {
      const tools = registry.filter((t) => active.has(t.name));
      const systemPromptOptions = {
        selectedTools: tools.map((t) => t.name),
        toolSnippets: Object.fromEntries(tools.filter((t) => t.promptSnippet).map((t) => [t.name, t.promptSnippet])),
        toolGuidelines: Object.fromEntries(tools.map((t) => [t.name, [...(t.promptGuidelines ?? [])]])),
      };
      for (const h of handlers.filter((h) => h.event === "before_agent_start"))
        await h.fn({ type: "before_agent_start", prompt, systemPrompt: "", systemPromptOptions }, ctx);
      return systemPromptOptions;
    },
    /**
     * What Pi does when a tool finishes: tool_result handlers in load order, each seeing the
     * event as the previous one left it. Returns what the handlers returned (a patch each, or undefined).
     */
    async toolResult(event, ctx) {
      const returned = [];
      for (const h of handlers.filter((h) => h.event === "tool_result"))
        returned.push(
          await h.fn(
            { type: "tool_result", toolCallId: "call-1", content: [], details: undefined, isError: false, ...event },
            ctx,
          ),
        );
      return returned;
    },
    /** What Pi does when a turn ends (the assistant's message and its tool results kept): turn_end handlers in load order. */
    async turnEnd(ctx) {
      for (const h of handlers.filter((h) => h.event === "turn_end"))
        await h.fn({ type: "turn_end", turnIndex: 0, toolResults: [], entries: [], continue: false }, ctx);
    },
    async shutdown(ctx) {
      for (const h of handlers.filter((h) => h.event === "session_shutdown")) await h.fn({}, ctx);
    },
  };
}

/** Pi's own peers as Pi's entry (extensions/index.js) hands them over (lib/pi/peers.js). */
export const piPeers = () => createRequire(import.meta.url)("../../lib/pi/peers.js").installedPeers();

/**
 * What interactive Pi sets up before any tool renders: its theme (Pi's `keyHint` draws with it)
 * and its keybindings, here the one the expand hint names (`app.tools.expand`, ctrl+o by default
 * in Pi 0.73.1).
 */
export async function piInteractive() {
  const [{ initTheme }, { KeybindingsManager, TUI_KEYBINDINGS, setKeybindings }] = await Promise.all([
    import("@earendil-works/pi-coding-agent"),
    import("@earendil-works/pi-tui"),
  ]);
  initTheme("dark");
  setKeybindings(
    new KeybindingsManager({
      ...TUI_KEYBINDINGS,
      "app.tools.expand": { defaultKeys: "ctrl+o", description: "Toggle tool output" },
    }),
  );
}

/** A fresh host with `pkg`'s extension (over Pi's own peers) loaded as `source`. */
export async function hostWith(pkg, source = "test") {
  const peers = await piPeers();
  const host = createPiHost();
  host.load(
    pkg.createExtension(() => peers),
    source,
  );
  return host;
}

/**
 * A UI context that records what the extension shows: the status slot (`statuses`, and every
 * call in `statusLog`), notifications (`notes`), confirm dialogs (`confirms`, answered with
 * `confirm`: a boolean or a function of { title, body }), selects (`selects`, answered by `select`,
 * a function of { title, options }, when given) and custom components (`customs`).
 * `custom`: "none" resolves `ui.custom()` with undefined without calling its factory, as Pi's rpc
 * mode does; "tui" builds the component as interactive Pi does (a TUI whose requestRender is
 * counted, Pi's theme), keeps it in `customs` and resolves with what it passes to `done`.
 */
export function recordingUi({ confirm = true, custom = "none", select } = {}) {
  const ui = { statuses: new Map(), statusLog: [], notes: [], confirms: [], customs: [], renders: 0 };
  ui.setStatus = (key, text) => {
    ui.statuses.set(key, text);
    ui.statusLog.push({ key, text });
  };
  ui.notify = (message, type) => ui.notes.push({ message, type });
  ui.confirm = async (title, body) => {
    ui.confirms.push({ title, body });
    return typeof confirm === "function" ? confirm({ title, body }) : confirm;
  };
  // Only when the test answers selects (`select`: a function of { title, options }): without it,
  // the extension's words for a host that cannot ask.
  if (select) {
    ui.selects = [];
    ui.select = async (title, options) => {
      ui.selects.push({ title, options });
      return select({ title, options });
    };
  }
  ui.custom = async (factory) => {
    if (custom !== "tui") return undefined;
    const tui = {
      requestRender: () => {
        ui.renders += 1;
      },
    };
    return new Promise((resolve) => {
      const component = factory(tui, piTheme, undefined, resolve);
      ui.customs.push(component);
    });
  };
  return ui;
}

/** Pi's theme as interactive Pi passes it to ui.custom() factories (colours dropped by renderText). */
const piTheme = { fg: (_c, t) => t, bg: (_c, t) => t, bold: (t) => t, italic: (t) => t };

/** Runs `/name args` as Pi does for an extension command: the handler with a command context. */
export async function runCommand(host, ctx, name, args = "") {
  const command = host.commands.get(name);
  if (!command) throw new Error(`no /${name} registered`);
  await command.handler(args, ctx);
}

/** `/codegraph <args>` in `host`'s session `ctx` (its UI a recordingUi): what it said, every notification joined. */
export async function codegraphSaid(host, ctx, args) {
  const from = ctx.ui.notes.length;
  await runCommand(host, ctx, "codegraph", args);
  return ctx.ui.notes
    .slice(from)
    .map((n) => n.message)
    .join("\n");
}

/** Loads the package into a fresh host and returns its registered tool. */
export async function loadTool(factory, ctx, name = "codegraph_explore") {
  const host = createPiHost();
  host.load(factory, "test");
  await host.startSession(ctx);
  return host.registry.find((t) => t.name === name);
}

/** A theme that leaves text as it is, for asserting on rendered components. */
export const plainTheme = { fg: (_c, t) => t, bold: (t) => t };

/** Colour (SGR) sequences: Pi's keyHint colours with Pi's own theme, not the plain one tests pass. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing SGR colour sequences is the point
const SGR = /\x1b\[[0-9;]*m/g;

/** A TUI component's lines at `width`, trailing blanks trimmed and colours removed, as one string. */
export function renderText(component, width = 120) {
  return component
    .render(width)
    .map((l) => l.replace(SGR, "").trimEnd())
    .join("\n");
}
