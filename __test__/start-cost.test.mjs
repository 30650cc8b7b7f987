// What a Pi start loads of this package (issue 36: load at start only what a session needs at
// start; the figure, Pi's start with and without the extension, is bench/start.mjs's). A session
// starts through the Pi host in a fresh process; what only a typed /codegraph needs (the verbs,
// /codegraph roots, /codegraph tools) loads when first typed. extension.js requires this package's
// modules natively, so Pi's loader does not transform and evaluate them again at every start.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { makeWorkspace, root, useFakeCli, withEnv } from "./helpers/index.mjs";
import { createPiHost, piPeers, recordingUi } from "./helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
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

test("extension.js requires the package and Pi's modules natively, not through Pi's loader", () => {
  const source = fs.readFileSync(path.join(root, "extension.js"), "utf8");
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
  // The one bare require left is the fallback inside piOwn (Pi's Bun binary, virtual modules).
  const bare = [...code.matchAll(/(?<![\w.)])require\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
  assert.deepEqual(bare, ["node:module"]);
  assert.match(code, /createRequire\(__filename\)\(["']\.\/index\.js["']\)/);
});

/**
 * Pi's entry (extension.js: `diagnoseAtLoad`) begins the diagnosis when Pi loads the extension;
 * session_start takes it only for the directory and environment it was made for. The backend
 * answers its first diagnosis for the workspace and every later one for a directory with no
 * index, so the status slot session_start sets says which one it used.
 */
async function startedAfterEarlyDiagnosis({ between = () => {}, sessionCwd } = {}) {
  const { forBackend } = require("../index.js");
  const runner = require("../lib/runners/node.js");
  const ws = makeWorkspace();
  const elsewhere = makeWorkspace({ index: false });
  const calls = [];
  const backend = { ...runner, runnerInfo: () => runner.runnerInfo() };
  backend.diagnose = (cwd, workspace) => {
    calls.push(cwd);
    return runner.diagnose(calls.length === 1 ? cwd : elsewhere, workspace);
  };
  const peers = await piPeers();
  const host = createPiHost();
  const before = process.cwd();
  process.chdir(ws);
  try {
    host.load(
      forBackend(backend).createExtension(() => peers, { diagnoseAtLoad: true }),
      "test",
    );
    const atLoad = [...calls];
    await between();
    const ui = recordingUi();
    await host.startSession({ cwd: sessionCwd ?? ws, hasUI: true, ui });
    return { ws, atLoad, firstStatus: ui.statusLog[0]?.text };
  } finally {
    process.chdir(before);
  }
}

test("Pi's entry diagnoses Pi's directory as it loads, and session_start takes that diagnosis", async () => {
  const { ws, atLoad, firstStatus } = await startedAfterEarlyDiagnosis();
  assert.equal(atLoad.length, 1);
  assert.equal(fs.realpathSync(atLoad[0]), fs.realpathSync(ws));
  assert.equal(firstStatus, "⬡ codegraph");
});

test("an early diagnosis made for another environment or another directory is not used", async () => {
  const changed = await withEnv({ PI_CODEGRAPH_START_TEST: undefined }, () =>
    startedAfterEarlyDiagnosis({ between: () => (process.env.PI_CODEGRAPH_START_TEST = "set after the load") }),
  );
  assert.equal(changed.firstStatus, "⬡ codegraph: no index", "the environment changed after the load");
  const other = await startedAfterEarlyDiagnosis({ sessionCwd: makeWorkspace() });
  assert.equal(other.firstStatus, "⬡ codegraph: no index", "the session's directory is not Pi's");
});
