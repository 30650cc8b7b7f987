// The Pi session the roots suites (roots-*.test.mjs) drive, at the public seam with the fake CLI:
// every focused tool on, Pi's agent directory a temp one (added roots are saved there), and the
// helpers that read a tool's answer from another root and a refused call.
import assert from "node:assert/strict";
import path from "node:path";
import { parseEcho, readLog, tempDir, useAgentDirEnv, withEnv } from "./index.mjs";
import { codegraphSaid, hostWith, recordingUi } from "./pi-host.mjs";

export const EXPLORE = "codegraph_explore";
export const TOOLS = [EXPLORE, "codegraph_node", "codegraph_relations", "codegraph_search"];
/** A valid call of each tool, without `project`. */
export const PARAMS = {
  codegraph_explore: { request: "Cart" },
  codegraph_node: { symbol: "Cart" },
  codegraph_relations: { relation: "callers", symbol: "Cart" },
  codegraph_search: { name: "Cart" },
};
export const API = ["packages/api", "packages/web"];
export const pathLine = (label) =>
  `Project ${label} (${label}/): its paths are relative to that directory; for read, prefix them with ${label}/.`;
/** The path line of a root outside the workspace (`rel`: its path relative to the workspace, with "/"). */
export const outsideLine = (label, dir, rel = "..") =>
  `Project ${label} (${dir}/): its paths are relative to that directory; for read, prefix them with ${dir}/ (or ${rel}/ from the workspace).`;

/** For a roots test file: the fake CLI on PATH, Pi's agent directory a temp one, no tools/parallel variables. */
export function useRootsEnv() {
  // Added roots are saved in Pi's agent directory: never the user's own in a test.
  useAgentDirEnv(["PI_CODEGRAPH_TOOLS", "PI_CODEGRAPH_MAX_PARALLEL"]);
}

/** The outcome of a promise: `{ value }` or `{ error }`. */
export const settle = (p) =>
  p.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

/** Runs `fn(log)` with the fake logging every CLI start ({ argv, cwd }); `log()` reads them (--version is not logged). */
export async function logged(fn) {
  const file = path.join(tempDir("pi-codegraph-roots-log-"), "log.jsonl");
  return withEnv({ FAKE_CG_LOG: file }, () => fn(() => readLog(file)));
}

/** The answer's text split at its first line: `{ first, rest }`. */
export function firstLine(text) {
  const i = text.indexOf("\n");
  return { first: text.slice(0, i), rest: text.slice(i + 1) };
}

/**
 * A Pi session over `pkg` (the glue module of one implementation) in `cwd` with every focused
 * tool on, after its first turn began (the scan for the indexes below the workspace is awaited
 * there); `env` is set while it starts.
 */
export async function rootsSession(pkg, cwd, { env = {}, hasUI = true, ...uiOptions } = {}) {
  const host = await hostWith(pkg, "roots");
  const ui = recordingUi(uiOptions);
  const ctx = { cwd, hasUI, ui };
  await withEnv({ PI_CODEGRAPH_TOOLS: "all", ...env }, async () => {
    await host.startSession(ctx);
    await host.beforeAgentStart(ctx);
  });
  const tool = (name = EXPLORE) => host.registry.find((t) => t.name === name);
  const call = (name, params, onUpdate) => settle(tool(name).execute("call-1", params, undefined, onUpdate, ctx));
  /** `/codegraph <args>`: what it said (every notification, joined). */
  const cg = (args) => codegraphSaid(host, ctx, args);
  const complete = (prefix) => host.commands.get("codegraph").getArgumentCompletions(prefix);
  const project = (name = EXPLORE) => tool(name).parameters.properties.project;
  const turn = () => host.beforeAgentStart(ctx);
  return { host, ui, ctx, tool, call, cg, complete, project, turn, slot: () => ui.statuses.get("codegraph") };
}

/** A tool's answer from a root other than the workspace: its first line, then the fake's echo. */
export function answerFrom(outcome) {
  if (outcome.error) assert.fail(outcome.error.message);
  const { first, rest } = firstLine(outcome.value.content[0].text);
  return { first, echo: parseEcho(rest), details: outcome.value.details };
}

/** The coded argument error of a refused call: its code, details and message. */
export function refused(outcome, code = "CODEGRAPH_INVALID_REQUEST") {
  assert.ok(outcome.error, "refused");
  assert.equal(outcome.error.code, code, outcome.error.message);
  return outcome.error;
}
