// What a Pi start loads of this package (issue 36: load at start only what a session needs at
// start; the figure, Pi's start with and without the extension, is bench/start.mjs's). A session
// starts through the Pi host in a fresh process; what only a typed /codegraph needs (the verbs,
// /codegraph roots, /codegraph tools) loads when first typed. Pi's entry requires this package's
// modules natively, so Pi's loader does not transform and evaluate them again at every start.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { makeWorkspace, root, useFakeCli } from "../helpers/index.mjs";

const fake = useFakeCli();
/** What only a typed /codegraph needs. */
const LAZY = ["lib/pi/commands/verbs.js", "lib/pi/commands/roots.js", "lib/pi/commands/tools.js"];
/**
 * What a session's start does not need: the report and the verbs' words. (A failure's words, an
 * answer's cut and the rendering load with the package: a call on a host with no file descriptor
 * left must still word its failure; the fault suites' out-of-resources topic holds that.)
 */
const NOT_AT_START = ["lib/pi/commands/status.js", "lib/words/verbs.js"];

/** Runs a session start, then `/codegraph <args>` for each of `typed`; prints what was loaded when. */
function loadedAround(typed) {
  const script = `
    import { createRequire } from "node:module";
    import { hostWith, recordingUi, runCommand } from ${JSON.stringify(path.join(root, "__test__/helpers/pi-host.mjs"))};
    const require = createRequire(import.meta.url);
    const ours = () => Object.keys(require.cache).filter((k) => k.startsWith(${JSON.stringify(`${root}${path.sep}lib`)})).map((k) => k.slice(${root.length + 1}).split("\\\\").join("/"));
    const host = await hostWith(require(${JSON.stringify(path.join(root, "index.js"))}));
    const ctx = { cwd: ${JSON.stringify(makeWorkspace())}, hasUI: true, ui: recordingUi() };
    await host.startSession(ctx);
    const atStart = ours();
    for (const args of ${JSON.stringify(typed)}) await runCommand(host, ctx, "codegraph", args);
    console.log(JSON.stringify({ atStart, after: ours() }));
    process.exit(0);`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, PATH: fake.bin },
  });
  return JSON.parse(out.trim().split("\n").at(-1));
}

test("a session starts without the modules only a typed /codegraph needs; each loads when typed", () => {
  const { atStart, after } = loadedAround(["status", "roots", "tools"]);
  assert.ok(
    atStart.includes("lib/pi/session.js") && atStart.includes("lib/pi/tools/registration.js"),
    atStart.join(" "),
  );
  assert.deepEqual(
    [...LAZY, ...NOT_AT_START].filter((m) => atStart.includes(m)),
    [],
  );
  assert.deepEqual(
    LAZY.filter((m) => !after.includes(m)),
    [],
  );
});

test("Pi's entry imports Pi's modules (Pi's loader maps them to Pi's own) and requires the package natively", () => {
  const source = fs.readFileSync(path.join(root, "extensions", "index.js"), "utf8");
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
  const imported = [...code.matchAll(/^import\b[^;]*?from\s*["']([^"']+)["'];/gm)].map((m) => m[1]).sort();
  assert.deepEqual(imported, [
    "@earendil-works/pi-ai",
    "@earendil-works/pi-coding-agent",
    "@earendil-works/pi-tui",
    "node:module",
    "typebox",
  ]);
  // No require of a peer: a require resolves from this package's directory, where another copy may be.
  assert.deepEqual(
    [...code.matchAll(/[rR]equire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]),
    ["../lib/pi/extension.js", "../lib/pi/peers.js", "../index.js"],
  );
  assert.match(code, /createRequire\(import\.meta\.url\)/);
});

/**
 * What Pi waits for at its start (loading the extension, then session_start) loads only the
 * extension's shell: the package, its runner and the session's modules load in the session's
 * start, which runs after session_start (lib/pi/extension.js; bench/figures/start.mjs has the
 * figure). Pi's entry runs here in plain Node, its imports resolved to the Pi installed beside it.
 */
test("Pi's entry loads only the extension's shell until the session's start, which runs after session_start", () => {
  const script = `
    import { createRequire } from "node:module";
    import { createPiHost, recordingUi, servingStarted } from ${JSON.stringify(path.join(root, "__test__/helpers/pi-host.mjs"))};
    const require = createRequire(import.meta.url);
    const ours = () => Object.keys(require.cache).filter((k) => k.startsWith(${JSON.stringify(root + path.sep)}) && !k.includes("node_modules")).map((k) => k.slice(${root.length + 1}).split("\\\\").join("/")).sort();
    const entry = await import(${JSON.stringify(path.join(root, "extensions", "index.js"))});
    const host = createPiHost();
    host.load(entry.default, "pi-codegraph");
    const ctx = { cwd: ${JSON.stringify(makeWorkspace())}, hasUI: true, ui: recordingUi() };
    await host.sessionStart(ctx);
    const atSessionStart = { modules: ours(), tools: host.registry.map((t) => t.name), commands: [...host.commands.keys()] };
    await servingStarted(host.events, ctx);
    console.log(JSON.stringify({ atSessionStart, started: ours(), tools: host.registry.map((t) => t.name) }));
    process.exit(0);`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, PATH: fake.bin },
  });
  const { atSessionStart, started, tools } = JSON.parse(out.trim().split("\n").at(-1));
  assert.deepEqual(atSessionStart, {
    modules: [
      ...["lib/contract/limits.js", "lib/pi/extension.js", "lib/pi/guidance.js", "lib/pi/peers.js"],
      ...["lib/words/command.js", "lib/words/paths.js", "lib/words/roots.js"],
    ],
    tools: [],
    commands: ["codegraph"],
  });
  for (const m of ["index.js", "lib/pi/session.js", "lib/pi/tools/registration.js"]) assert.ok(started.includes(m), m);
  assert.ok(started.some((m) => m.endsWith(".node")) || started.includes("lib/runners/node.js"), "a runner loaded");
  assert.ok(tools.includes("codegraph_explore"), tools.join(" "));
});

/**
 * Pi runs extension factories in invocations that never start a session, and before its project
 * trust decision (Pi 1.x docs: extensions.md, "Long-lived resources and shutdown"; security.md):
 * calling the factory must read nothing of the workspace and start nothing. The addon loads with
 * the first diagnosis, so it is the witness. (extensions/index.js calls the same factory over Pi's own
 * modules; plain Node cannot require those, Pi's loader can: the test above holds its shape.)
 */
test("Pi's factory only registers handlers: no diagnosis, no addon, until session_start", () => {
  const script = `
    const factory = require(${JSON.stringify(path.join(root, "index.js"))});
    const events = [];
    const pi = { on: (name) => events.push(name), registerTool() {}, registerCommand() {}, getAllTools: () => [], getActiveTools: () => [], setActiveTools() {} };
    factory(pi);
    const addons = Object.keys(require.cache).filter((k) => k.endsWith(".node"));
    console.log(JSON.stringify({ events, addons }));`;
  const out = execFileSync(process.execPath, ["-e", script], {
    cwd: makeWorkspace(),
    encoding: "utf8",
    env: { ...process.env, PATH: fake.bin },
  });
  const { events, addons } = JSON.parse(out.trim().split("\n").at(-1));
  assert.ok(events.includes("session_start"), events.join(" "));
  assert.deepEqual(addons, []);
});
