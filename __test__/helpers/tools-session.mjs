// The Pi session the focused-tool suites (tools-args, tools-choice, tools-words) drive, at the
// public seam with the fake CLI: Pi's agent directory a temp one (the choice is saved there), no
// PI_CODEGRAPH_TOOLS, interactive Pi's theme set up (rendering happens there).
import path from "node:path";
import { before } from "node:test";
import { readLog, tempDir, useAgentDirEnv, withEnv } from "./index.mjs";
import { createPiHost, piInteractive, piPeers, recordingUi } from "./pi-host.mjs";

/** The focused tools that answer about a symbol (CALL gives each one's call). */
export const FOCUSED = ["codegraph_node", "codegraph_relations", "codegraph_search"];
/** Every focused tool (`/codegraph tools all`, also the default: helpers/index.mjs DEFAULT_ACTIVE). */
export const ALL = [...FOCUSED, "codegraph_changes"];
export const CALL = { codegraph_node: "node", codegraph_relations: "relations", codegraph_search: "search" };

/** For a focused-tool test file: the fake CLI (returned: `{ ws, … }`), a temp agent directory, Pi's theme. */
export function useToolsEnv() {
  // The choice is saved in Pi's agent directory: never the user's own in a test.
  const fake = useAgentDirEnv(["PI_CODEGRAPH_TOOLS"]);
  // Rendering happens in interactive Pi, which has set up its theme and keybindings first.
  before(piInteractive);
  return fake;
}

/** Runs `fn` with the fake CLI logging its argv; returns `{ value, argvs }` (the --version probe is not logged). */
export async function logged(fn) {
  const log = path.join(tempDir("pi-codegraph-log-"), "log.jsonl");
  const value = await withEnv({ FAKE_CG_LOG: log }, fn);
  return { value, argvs: readLog(log).map((r) => r.argv) };
}

/** The outcome of a promise: `{ value }` or `{ error }`. */
export const settle = (p) =>
  p.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

/**
 * The session maker over `pkg` (one implementation's glue module): `session(cwd, { env, others })`
 * is a Pi session in `cwd` (Pi's host stand-in, a UI that records notifications), with `env` set
 * while it starts; `others` are extensions loaded before ours. `allOn(cwd)`: every focused tool
 * on (PI_CODEGRAPH_TOOLS=all). `execute(tool, params, ctx)`: the registered tool's call.
 */
export function toolsSessions(pkg, fake) {
  async function session(cwd, { env = {}, others = [] } = {}) {
    const peers = await piPeers();
    const host = createPiHost();
    for (const [factory, source] of others) host.load(factory, source);
    host.load(
      pkg.createExtension(() => peers),
      "pi-codegraph",
    );
    const ui = recordingUi();
    const ctx = { cwd, hasUI: true, ui };
    await withEnv(env, () => host.startSession(ctx));
    const tool = (name) => host.registry.find((t) => t.name === name);
    const active = () => host.activeTools().map((t) => t.name);
    /** `/codegraph <args>`: what it said (the last notification) and its type. */
    const command = async (args) => {
      ui.notes.length = 0;
      await host.commands.get("codegraph").handler(args, ctx);
      return ui.notes.at(-1);
    };
    const complete = (prefix) => host.commands.get("codegraph").getArgumentCompletions(prefix);
    return { host, ui, ctx, tool, active, command, complete };
  }
  const allOn = (cwd = fake.ws) => session(cwd, { env: { PI_CODEGRAPH_TOOLS: "all" } });
  const execute = (tool, params, ctx) => tool.execute("call-1", params, undefined, undefined, ctx);
  return { session, allOn, execute };
}
