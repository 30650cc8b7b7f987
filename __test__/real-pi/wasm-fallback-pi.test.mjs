// The package with no native binary for the machine (a platform the release builds none for:
// Termux, FreeBSD; or its binary package left out): `pi install` of the packed tarball alone, then
// Pi runs the tool through the Node runner and the WebAssembly core that ships in the package
// (wasm/), against the real CodeGraph CLI on an indexed copy of the shop fixture.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { REAL_CLI_PATH } from "../helpers/index.mjs";
import { installPacked } from "../helpers/packed.mjs";
import {
  explainRun,
  jsonModeArgs,
  oneToolCall,
  piEnv,
  piMissing,
  runPi,
  startPiSuite,
  tearDownPiSuite,
} from "../helpers/pi-harness.mjs";

const REQUEST = "how does CheckoutService.checkout call charge";
const MODEL = "fake-wasm-fallback";
const nodeDir = path.dirname(process.execPath);
const realPath = REAL_CLI_PATH;

/** Every file under `dir` whose name ends in `.node`. */
const nativeFiles = (dir) =>
  fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".node"));

describe("installed without its binary package: the WebAssembly core answers in Pi", {
  skip: piMissing,
  timeout: 120000,
}, () => {
  let suite;
  let installed;
  const env = (pathDirs) =>
    piEnv({ agentDir: suite.agentDir, home: suite.home, pathDirs, extra: { TMPDIR: path.join(suite.scratch, "tmp") } });

  before(async () => {
    suite = await startPiSuite("pi-codegraph-wasm-", { request: REQUEST, models: [MODEL] });
    const { result, dir } = await installPacked({ cwd: suite.scratch, env: env([nodeDir]), binary: false });
    assert.equal(result.code, 0, `pi install: ${explainRun(result)}`);
    installed = dir;
  });
  after(() => tearDownPiSuite({ strayPids: [], server: suite?.server, dirs: [suite?.scratch] }));

  test("no .node anywhere in the install; doctor names the WebAssembly core and why", async () => {
    assert.deepEqual(nativeFiles(path.dirname(installed)), []);
    const args = jsonModeArgs(MODEL, "q").slice(0, -1);
    const report = await runPi([...args, "/codegraph doctor"], { cwd: suite.indexed, env: env(realPath) });
    assert.equal(report.code, 0, explainRun(report));
    const line = `${report.stdout}\n${report.stderr}`.split("\n").find((l) => l.startsWith("runner: "));
    const wasm = path.join(installed, "wasm", "pi-codegraph.wasm32-wasi.wasm");
    assert.ok(line?.startsWith(`runner: node ${wasm} (native addon not loaded: `), line);
  });

  test("one explore: the model gets CodeGraph's real answer", async () => {
    const run = await runPi(jsonModeArgs(MODEL, "How does checkout reach charge?"), {
      cwd: suite.indexed,
      env: env(realPath),
    });
    assert.equal(run.code, 0, explainRun(run));
    const { sent, end } = oneToolCall(run, suite.server.bodiesFor(MODEL), { isError: false });
    assert.match(sent, /\*\*Exploration: how does CheckoutService\.checkout call charge/);
    assert.match(sent, /src\/checkout\.ts/);
    assert.equal(end.result.details.exitCode, 0);
    assert.equal(end.result.details.cliVersion, "1.6.1");
  });
});
