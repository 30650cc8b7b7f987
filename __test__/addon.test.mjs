// A missing native binary (an unsupported platform, or optional dependencies omitted): a clear,
// stable error from every entry point, and Pi keeps running.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, test } from "node:test";
import { makeWorkspace, root, tempDir } from "./helpers/index.mjs";
import { createPiHost, recordingUi } from "./helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
let pkg;
let ws;

before(() => {
  // The package's JS without any .node next to it or a platform package to find.
  const dir = tempDir("pi-codegraph-nobinary-");
  for (const f of ["index.js", "binding.js", "package.json"]) fs.copyFileSync(path.join(root, f), path.join(dir, f));
  fs.mkdirSync(path.join(dir, "lib"));
  fs.copyFileSync(path.join(root, "lib", "native.js"), path.join(dir, "lib", "native.js"));
  pkg = require(path.join(dir, "index.js"));
  ws = makeWorkspace();
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
});

test("diagnose() reports it; the tool registers, says it is unavailable, and errors with the fallback", async () => {
  const d = await pkg.diagnose(ws);
  assert.equal(d.ready, false);
  assert.equal(d.problemCode, "CODEGRAPH_ADDON");
  const { Type } = await import("typebox");
  const { Text } = await import("@mariozechner/pi-tui");
  const host = createPiHost();
  host.load(
    pkg.createExtension(() => ({ Type, Text })),
    "nobinary",
  );
  const ui = recordingUi();
  await host.startSession({ cwd: ws, hasUI: true, ui });
  const [tool] = host.registry;
  assert.match(tool.promptSnippet, /^Unavailable in this workspace \(CODEGRAPH_ADDON\)/);
  assert.equal(ui.statuses.get("codegraph"), "⬡ codegraph: addon missing", "not 'not installed'");
  await host.commands.get("codegraph").handler("", { cwd: ws, hasUI: true, ui });
  assert.match(ui.notes[0].message, /problem: .*tried/, "/codegraph tells the whole story");
  await assert.rejects(tool.execute("c", { request: "q" }, undefined, undefined, { cwd: ws }), (err) => {
    assert.equal(err.code, "CODEGRAPH_ADDON");
    assert.equal(err.message.split("\n").at(-1), pkg.FALLBACK_LINE);
    return true;
  });
});
