// End to end in Pi compiled with Bun into one executable, as Pi's release binary is
// (`__test__/bun/compile-pi.sh <dir>` builds it from the pinned npm package the way the release
// does and prints its path; .ci/run exports it as PI_BUN_BINARY). Inside that binary, native addons
// load differently from Node: only a `.node` required by absolute file path works, so this is the
// runtime where lib/runners/native.js's loader matters most.
//
// The packed package (the `npm pack` tarball and this platform's binary package) is installed by
// the binary itself as `pi install npm:` does (helpers/packed.mjs). Three cases, each asserting what the loopback fake model
// (helpers/fake-openai.mjs) received and what Pi reported: a call the real CodeGraph CLI answers on
// an indexed copy of fixtures/shop, CODEGRAPH_NO_INDEX reaching the model from an unindexed copy,
// and an rpc abort that kills the fake CLI's whole process tree.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fakeBinDir, REAL_CLI_PATH, root } from "../helpers/index.mjs";
import { installPacked } from "../helpers/packed.mjs";
import {
  abortMidTool,
  assistantText,
  contentText,
  explainRun,
  oneToolCall,
  piEnv,
  runPi,
  startPiRpc,
  startPiSuite,
  tearDownPiSuite,
  toolNames,
} from "../helpers/pi-harness.mjs";

const piBinary = process.env.PI_BUN_BINARY && path.resolve(process.env.PI_BUN_BINARY);
const skip = piBinary
  ? false
  : "PI_BUN_BINARY is unset: set it to a Bun-compiled Pi (PI_BUN_BINARY=$(bash __test__/bun/compile-pi.sh .tmp/pi-bun-binary | tail -n 1)) to run Pi's single-binary end to end";

const TOOL = "codegraph_explore";
const REQUEST = "how does CheckoutService.checkout call charge";
const PROMPT = "How does CheckoutService.checkout end up calling charge?";
const MODELS = { roundTrip: "fake-bun-roundtrip", noIndex: "fake-bun-no-index", abort: "fake-bun-abort" };
const nodeDir = path.dirname(process.execPath);
const realBinDir = path.join(root, "node_modules", ".bin");
const realPath = REAL_CLI_PATH;
const piFlags = (model) => ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", model];
const byType = (events, type) => events.filter((e) => e.type === type && e.toolName === TOOL);
const systemOf = (body) => contentText(body.messages.find((m) => m.role === "system" || m.role === "developer"));

/** Extension load or runtime errors, from stderr and (json/rpc) events. */
function extensionErrors(stderr, events = []) {
  return [
    ...stderr.split("\n").filter((l) => l.includes("Extension error")),
    ...events.filter((e) => e.type === "extension_error").map((e) => JSON.stringify(e)),
  ];
}

describe("pi-codegraph in Pi's Bun-compiled single binary", { skip, timeout: 120000 }, () => {
  let scratch;
  let server;
  let agentDir;
  let home;
  let indexed;
  let packed; // the installed copy (the agent dir's npm project)
  const toRemove = [];
  const strayPids = [];
  const env = (pathDirs, extra) =>
    piEnv({ agentDir, home, pathDirs, extra: { TMPDIR: path.join(scratch, "tmp"), ...extra } });
  const pi = (args, opts) => runPi(args, { piCommand: piBinary, ...opts });

  before(async () => {
    assert.ok(fs.statSync(piBinary, { throwIfNoEntry: false })?.isFile(), `PI_BUN_BINARY=${piBinary} is not a file`);
    ({ scratch, home, indexed, server, agentDir } = await startPiSuite("pi-codegraph-bunbin-", {
      request: REQUEST,
      models: Object.values(MODELS),
    }));

    // The published file set, installed by the binary itself as `pi install npm:` does
    // (helpers/packed.mjs): Pi's npm install into the agent dir, the addon's package beside it.
    const { result, dir } = await installPacked({ cwd: scratch, env: env([nodeDir]), piCommand: piBinary });
    assert.equal(result.code, 0, `${piBinary} install: ${explainRun(result)}`);
    packed = dir;
    assert.ok(fs.existsSync(path.join(packed, "package.json")), "installed under the agent dir's npm project");
  });

  after(() => tearDownPiSuite({ strayPids, server, dirs: [scratch, ...toRemove] }));

  test("json mode: the real CodeGraph CLI answers and the model gets that answer", async (t) => {
    const ws = path.join(scratch, "ws-roundtrip");
    fs.cpSync(indexed, ws, { recursive: true });
    const run = await pi(["--mode", "json", ...piFlags(MODELS.roundTrip), PROMPT], { cwd: ws, env: env(realPath) });
    assert.equal(run.code, 0, explainRun(run));
    assert.deepEqual(extensionErrors(run.stderr, run.events), []);
    assert.deepEqual(
      run.events.filter((e) => e.type === "__unparsable__"),
      [],
      "stdout is pure JSONL",
    );

    const bodies = server.bodiesFor(MODELS.roundTrip);
    assert.equal(bodies.length, 2, "one tool-call turn, one final turn");
    for (const body of bodies) assert.equal(toolNames(body).filter((n) => n === TOOL).length, 1);
    assert.doesNotMatch(systemOf(bodies[0]), /Unavailable in this workspace/, "advertised as ready");
    const { sent, end } = oneToolCall(run, bodies, { isError: false });
    assert.match(sent, /\*\*Exploration: how does CheckoutService\.checkout call charge/);
    assert.match(sent, /src\/checkout\.ts/);

    const [start] = byType(run.events, "tool_execution_start");
    assert.deepEqual(start?.args, { request: REQUEST });
    const d = end.result.details;
    t.diagnostic(`binary=${piBinary} codegraph=${d.cliVersion} durationMs=${d.durationMs}`);
    assert.equal(d.cliVersion, "1.6.1");
    assert.equal(d.exitCode, 0);
    assert.equal(d.cwd, ws);
    // The real CLI: its npm bin, or the platform bundle that bin would exec.
    const cliPackages = path.join(root, "node_modules", "@colbymchenry") + path.sep;
    assert.ok(
      d.executable === path.join(realBinDir, "codegraph") || d.executable.startsWith(cliPackages),
      `ran the real CodeGraph CLI: ${d.executable}`,
    );
    assert.match(assistantText(run.events), /FAKE_MODEL_DONE/, "Pi ran the model's second turn");
  });

  test("json mode, unindexed workspace: CODEGRAPH_NO_INDEX reaches the model with the remediation", async () => {
    const ws = path.join(scratch, "ws-no-index");
    fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
    assert.ok(!fs.existsSync(path.join(ws, ".codegraph")), "the fixture itself has no index");
    const run = await pi(["--mode", "json", ...piFlags(MODELS.noIndex), PROMPT], { cwd: ws, env: env(realPath) });
    assert.equal(run.code, 0, explainRun(run));
    assert.deepEqual(extensionErrors(run.stderr, run.events), []);

    const bodies = server.bodiesFor(MODELS.noIndex);
    assert.equal(bodies.length, 2);
    assert.match(systemOf(bodies[0]), /Unavailable in this workspace \(CODEGRAPH_NO_INDEX\)/);
    const { sent } = oneToolCall(run, bodies, { isError: true });
    assert.match(sent, /^CODEGRAPH_NO_INDEX:/);
    assert.ok(sent.includes(path.join(ws, ".codegraph")), `names the missing index: ${sent}`);
    assert.match(sent, /Remediation: Run `\/codegraph init` in Pi \(or `codegraph init` in /);
    assert.match(sent, /use read, and grep\/find/);
  });

  test("rpc mode: abort stops the tool and the whole codegraph process tree", async () => {
    const ws = path.join(scratch, "ws-abort");
    fs.cpSync(indexed, ws, { recursive: true });
    const bin = fakeBinDir();
    toRemove.push(bin);
    const pidsFile = path.join(scratch, "abort-pids.json");
    const rpc = startPiRpc(piFlags(MODELS.abort), {
      cwd: ws,
      env: env([bin, nodeDir], { FAKE_CG_MODE: "hang", FAKE_CG_PIDS: pidsFile }),
      piCommand: piBinary,
    });
    await abortMidTool(rpc, { prompt: PROMPT, pidsFile, strayPids });

    const exit = await rpc.end();
    assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
    assert.deepEqual(extensionErrors(rpc.stderr, rpc.events), []);
    assert.equal(server.bodiesFor(MODELS.abort).length, 1, "no model turn after the abort");
  });
});
