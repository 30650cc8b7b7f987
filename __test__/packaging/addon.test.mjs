// A missing native binary (an unsupported platform, or optional dependencies omitted): by default
// the package falls back to the Node runner and says so everywhere; with PI_CODEGRAPH_RUNNER=native
// a clear, stable CODEGRAPH_ADDON error from every entry point, and Pi keeps running.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fakeBinDir, linkWasmRuntime, makeWorkspace, root, tempDir } from "../helpers/index.mjs";
import { hostWith, recordingUi } from "../helpers/pi-host.mjs";
import { runNode } from "../helpers/processes.mjs";

const require = createRequire(import.meta.url);
const saved = { PATH: process.env.PATH, RUNNER: process.env.PI_CODEGRAPH_RUNNER };
let ws;

/** The package's JS (lib/ included) without any .node next to it or a platform package to find. */
function packageWithoutBinary({ wasm = true } = {}) {
  return require(path.join(packageDirWithoutBinary({ wasm }), "index.js"));
}

/** Such a package's directory. */
function packageDirWithoutBinary({ wasm }) {
  const dir = tempDir("pi-codegraph-nobinary-");
  for (const f of ["index.js", "binding.js", "package.json"]) fs.copyFileSync(path.join(root, f), path.join(dir, f));
  // The WebAssembly core ships in the package (wasm/): the Node runner's core.
  for (const d of wasm ? ["lib", "wasm"] : ["lib"])
    fs.cpSync(path.join(root, d), path.join(dir, d), { recursive: true });
  linkWasmRuntime(dir);
  return dir;
}

/** A Pi session over `pkg` in `ws`, with a recording UI. */
async function session(pkg) {
  const host = await hostWith(pkg, "nobinary");
  const ui = recordingUi();
  await host.startSession({ cwd: ws, hasUI: true, ui });
  const report = async () => {
    await host.commands.get("codegraph").handler("doctor", { cwd: ws, hasUI: true, ui });
    return ui.notes.at(-1).message;
  };
  return { tool: host.registry[0], ui, report };
}

before(() => {
  ws = makeWorkspace();
  process.env.PATH = fakeBinDir();
});
after(() => {
  process.env.PATH = saved.PATH;
  if (saved.RUNNER === undefined) delete process.env.PI_CODEGRAPH_RUNNER;
  else process.env.PI_CODEGRAPH_RUNNER = saved.RUNNER;
});

describe("default: the Node runner stands in", () => {
  let pkg;
  before(() => {
    delete process.env.PI_CODEGRAPH_RUNNER;
    pkg = packageWithoutBinary();
  });

  test("explore() answers through the Node runner", async () => {
    const result = await pkg.explore("what calls main", ws);
    assert.equal(result.text.split("\n")[0], "FAKE EXPLORE");
    const runner = pkg.runnerInfo();
    assert.equal(runner.name, "node");
    assert.match(
      runner.path,
      /[\\/]wasm[\\/]pi-codegraph\.wasm32-wasi\.wasm$/,
      "the core it runs is the WebAssembly build",
    );
    assert.equal(runner.fallback, true);
    assert.match(runner.note, /^native addon not loaded: no pi-codegraph native addon for \S+/);
    assert.doesNotMatch(runner.note, /tried|\n|WebAssembly/, "one line; the whole story is addonInfo()'s");
    assert.match(pkg.addonInfo().error, /tried/);
  });

  test("on Android (Termux), where no app may open `/`: the core still reaches TMPDIR, outside the workspace, for a cut answer's full output", async () => {
    // napi-rs's loader maps the core's `/` to the working directory there; wasm-core.js hands it
    // the directory that holds the workspace, HOME, PREFIX and TMPDIR instead.
    const host = path.join(root, "__test__", "helpers", "android-host.cjs");
    const cli = path.join(root, "__test__", "helpers", "fake-codegraph.js");
    const entry = path.join(packageDirWithoutBinary({ wasm: true }), "index.js");
    const r = await runNode([host, cli, entry]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.truncated, true, r.stdout);
    assert.ok(out.fullOutputPath?.startsWith(`${out.tmp}${path.sep}`), r.stdout);
    assert.equal(out.kept, true, "the full output was written where its path says");
  });

  test("without its WebAssembly core too: CODEGRAPH_ADDON naming it and the fix, and the runner says what is off", async () => {
    const bare = packageWithoutBinary({ wasm: false });
    await assert.rejects(bare.explore("what calls main", ws), (err) => {
      assert.equal(err.code, "CODEGRAPH_ADDON");
      assert.match(err.message, /WebAssembly core \(wasm\/\).*could not be loaded/);
      assert.match(err.message, /\nRemediation: .*npm run build/);
      return true;
    });
    const runner = bare.runnerInfo();
    assert.equal(runner.path, null);
    assert.match(runner.note, /WebAssembly core \(wasm\/\) is missing, so CodeGraph cannot run: reinstall/);
  });

  test("the tool is ready; the status slot and /codegraph name the runner", async () => {
    const d = await pkg.diagnose(ws);
    assert.equal(d.ready, true, JSON.stringify(d));
    const s = await session(pkg);
    assert.match(s.tool.promptSnippet, /structural questions/);
    // The limits come from the Node runner; the 15KB is explore's while codegraph_node is on (the default).
    assert.match(s.tool.description, /2000 lines or 15KB/);
    assert.equal(s.ui.statuses.get("codegraph"), "⬡ codegraph (node runner)");
    assert.match(
      await s.report(),
      /^runner: node \S+pi-codegraph\.wasm32-wasi\.wasm \(native addon not loaded: no pi-codegraph native addon/m,
    );
    const result = await s.tool.execute("c", { request: "q" }, undefined, undefined, { cwd: ws });
    assert.equal(result.content[0].text.split("\n")[0], "FAKE EXPLORE");
  });
});

describe("PI_CODEGRAPH_RUNNER=native: CODEGRAPH_ADDON", () => {
  let pkg;
  before(() => {
    process.env.PI_CODEGRAPH_RUNNER = "native";
    pkg = packageWithoutBinary();
  });

  test("explore() rejects with CODEGRAPH_ADDON naming the platform and the fix", async () => {
    await assert.rejects(pkg.explore("q", ws), (err) => {
      assert.equal(err.code, "CODEGRAPH_ADDON");
      assert.ok(err.message.startsWith("CODEGRAPH_ADDON:"), err.message);
      assert.ok(err.message.includes(`${process.platform}-${process.arch}`), err.message);
      assert.match(err.message, /\nRemediation: Reinstall pi-codegraph with optional dependencies/);
      // The model gets two short lines; the whole story (what was tried) is for doctor and /codegraph.
      assert.equal(err.message.split("\n").length, 2, err.message);
      assert.ok(err.message.length < 300, `${err.message.length} characters`);
      assert.doesNotMatch(err.message, /npm bug|tried/);
      assert.match(err.details.story, /tried/);
      return true;
    });
    const info = pkg.addonInfo();
    assert.equal(info.path, null);
    assert.match(info.error, /tried/, "addonInfo() carries the whole story");
    assert.deepEqual(pkg.runnerInfo(), {
      name: "native addon",
      path: null,
      note: "not loaded; PI_CODEGRAPH_RUNNER=native",
      fallback: false,
    });
  });

  test("diagnose() reports it; the tool registers, says it is unavailable, and errors with the fallback", async () => {
    const d = await pkg.diagnose(ws);
    assert.equal(d.ready, false);
    assert.equal(d.problemCode, "CODEGRAPH_ADDON");
    const s = await session(pkg);
    assert.match(s.tool.promptSnippet, /^Unavailable in this workspace \(CODEGRAPH_ADDON\)/);
    assert.equal(s.ui.statuses.get("codegraph"), "⬡ codegraph: addon missing", "not 'not installed'");
    const report = await s.report();
    assert.match(report, /problem: .*tried/, "/codegraph tells the whole story");
    assert.match(report, /^runner: native addon \(not loaded; PI_CODEGRAPH_RUNNER=native\)$/m);
    await assert.rejects(s.tool.execute("c", { request: "q" }, undefined, undefined, { cwd: ws }), (err) => {
      assert.equal(err.code, "CODEGRAPH_ADDON");
      assert.equal(err.message.split("\n").at(-1), pkg.FALLBACK_LINE);
      return true;
    });
  });
});
