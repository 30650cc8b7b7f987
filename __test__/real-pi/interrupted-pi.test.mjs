// The real Pi CLI stopped by SIGTERM in the middle of `/codegraph init` (rpc mode) with the real
// pinned CodeGraph: the CLI is stopped with Pi and leaves its `codegraph.lock`; the next Pi run's
// `/codegraph` report then says not ready (CODEGRAPH_INDEX_INTERRUPTED, remediation
// `/codegraph rebuild`), never ready on the half-built index.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { isAlive, REAL_CLI_PATH, root, waitFor } from "../helpers/index.mjs";
import { installPacked } from "../helpers/packed.mjs";
import {
  piEnv,
  piMissing,
  piScratch,
  runPi,
  startPiRpc,
  tearDownPiSuite,
  writeModelsJson,
} from "../helpers/pi-harness.mjs";

const MODEL = "fake-interrupted";
const realPath = REAL_CLI_PATH;
const cliMissing = fs.existsSync(path.join(root, "node_modules", ".bin", "codegraph"))
  ? false
  : "no pinned CodeGraph CLI";
const piArgs = ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", MODEL];

describe("the real Pi stopped mid /codegraph init", { skip: piMissing || cliMissing, timeout: 90000 }, () => {
  let scratch;
  let home;
  let agentDir;
  let server;
  const strayPids = [];
  const env = () => piEnv({ agentDir, home, pathDirs: realPath, extra: { TMPDIR: path.join(scratch, "tmp") } });

  before(async () => {
    ({ scratch, home, agentDir } = piScratch("pi-codegraph-interrupted-pi-"));
    fs.mkdirSync(path.join(scratch, "tmp"));
    server = await startFakeOpenAI();
    writeModelsJson(agentDir, server.baseUrl, [MODEL]);
    const install = (await installPacked({ cwd: scratch, env: env() })).result;
    assert.equal(install.code, 0, install.stderr);
  });
  after(() => tearDownPiSuite({ strayPids, server, dirs: [scratch] }));

  test("SIGTERM to Pi during the init: the CLI stops with it, and the next /codegraph says the index is unfinished", async (t) => {
    const ws = path.join(scratch, "p");
    fs.mkdirSync(path.join(ws, "src"), { recursive: true });
    fs.writeFileSync(path.join(ws, "package.json"), "{}\n");
    for (let i = 0; i < 1500; i++)
      fs.writeFileSync(path.join(ws, "src", `m${i}.ts`), `export function f${i}(a: number) { return a + ${i}; }\n`);
    const lock = path.join(ws, ".codegraph", "codegraph.lock");
    const writer = () => {
      try {
        const pid = Number.parseInt(fs.readFileSync(lock, "utf8"), 10);
        return pid > 0 && isAlive(pid) ? pid : 0;
      } catch {
        return 0;
      }
    };

    const rpc = startPiRpc(piArgs, { cwd: ws, env: env() });
    rpc.send({ id: "v1", type: "prompt", message: "/codegraph init --yes" });
    const cli = await waitFor(writer, { timeoutMs: 30000, what: "the init to take its lock" });
    strayPids.push(cli);
    const closed = new Promise((resolve) => rpc.child.on("close", resolve));
    rpc.child.kill("SIGTERM");
    await closed;
    await waitFor(() => !isAlive(cli), { timeoutMs: 10000, what: `the CLI (pid ${cli}) to stop with Pi` });
    assert.ok(fs.existsSync(lock), "the stopped init left its lock");
    t.diagnostic(`left: ${fs.readdirSync(path.join(ws, ".codegraph")).join(", ")}`);

    const report = await runPi(["--mode", "json", ...piArgs, "/codegraph doctor"], { cwd: ws, env: env() });
    assert.equal(report.code, 0, report.stderr);
    const text = `${report.stdout}\n${report.stderr}`;
    assert.match(text, /not ready \(CODEGRAPH_INDEX_INTERRUPTED\)/);
    assert.match(text, /\/codegraph rebuild/);
    assert.doesNotMatch(text, /pi-codegraph: ready/);
  });
});
