// The smoke set: what a Node version other than the supported floor (Node 22, where CI runs every
// suite) must show to count as working: the package loads and the addon is its runner, one
// explore per runner (the addon, the Node runner) through the real pinned CodeGraph CLI, and the
// real Pi starting in rpc mode with the extension and answering `/codegraph`. CI runs it alone
// on Node 24 (npm run test:smoke); on Node 22 it runs with everything else (npm test).
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, test } from "node:test";
import { root, tempDir, withEnv } from "../helpers/index.mjs";
import {
  indexShop,
  killAllPi,
  PI_CLI,
  piEnv,
  piMissing,
  piScratch,
  startPiRpc,
  writeModelsJson,
} from "../helpers/pi-harness.mjs";

const require = createRequire(import.meta.url);
const nodeDir = path.dirname(process.execPath);
const cliBin = path.join(root, "node_modules", ".bin");
const cliMissing = fs.existsSync(path.join(cliBin, "codegraph")) ? false : "no pinned CodeGraph CLI";
const realPath = [cliBin, nodeDir, ...["/usr/bin", "/bin"].filter(fs.existsSync)];

let ws;
before(() => {
  if (!cliMissing) ws = indexShop(tempDir("pi-codegraph-smoke-shop-"));
});
after(killAllPi);

test(`the package loads on ${process.version} and the addon is its runner`, () => {
  const pkg = require("../../index.js");
  const addon = pkg.addonInfo();
  assert.ok(addon.path, `the addon loads: ${addon.error}`);
  if (!process.env.PI_CODEGRAPH_RUNNER) assert.equal(pkg.runnerInfo().name, "native addon");
  for (const name of ["explore", "node", "relations", "search", "diagnose", "createExtension"])
    assert.equal(typeof pkg[name], "function", name);
});

for (const [runner, load] of [
  ["the addon", () => require("../../index.js").forRunner(require("../../lib/runners/native.js").nativeRunner)],
  ["the Node runner", () => require("../../index.js").forRunner(require("../../lib/runners/node.js"))],
]) {
  test(`${runner}: one explore through the real CodeGraph CLI answers`, { skip: cliMissing }, async () => {
    const pkg = load();
    const r = await withEnv({ PATH: realPath.join(path.delimiter), DO_NOT_TRACK: "1" }, () =>
      pkg.explore("How does checkout work?", ws, undefined, { timeoutMs: 30000 }),
    );
    assert.equal(r.details.exitCode, 0);
    assert.match(r.text, /checkout/i);
  });
}

test("the real Pi starts in rpc mode with the extension and answers /codegraph", {
  skip: piMissing || cliMissing,
}, async () => {
  const { scratch, home, agentDir } = piScratch("pi-codegraph-smoke-pi-");
  writeModelsJson(agentDir, "http://127.0.0.1:9/v1", ["smoke-model"]);
  const env = piEnv({ agentDir, home, pathDirs: realPath });
  const args = ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", "smoke-model"];
  const rpc = startPiRpc([...args, "-e", root], { cwd: ws, env });
  rpc.send({ id: "s1", type: "prompt", message: "/codegraph" });
  const said = await rpc.waitForEvent(
    (e) => e.type === "extension_ui_request" && e.method === "notify" && /codegraph/.test(e.message ?? ""),
    { timeoutMs: 20000, what: "/codegraph's report" },
  );
  assert.match(said.message, /ready/);
  const exit = await rpc.end();
  assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
  assert.doesNotMatch(rpc.stderr, /pi-codegraph|extension.*(error|failed)/i, rpc.stderr);
  assert.ok(fs.existsSync(PI_CLI));
  fs.rmSync(scratch, { recursive: true, force: true });
});
