// End to end in the real Pi CLI (the pinned devDependency @earendil-works/pi-coding-agent, and
// again the lowest supported Pi: __test__/run.mjs): Pi loads this package the way a user's install
// does, talks to a loopback fake OpenAI-compatible model (helpers/fake-openai.mjs) that asks for one
// codegraph_explore call, and the tool runs the real CodeGraph CLI on an indexed copy of
// __test__/fixtures/shop.
//
// How Pi gets the package: `pi install npm:pi-codegraph@file:<the npm pack tarball>` against a temp
// PI_CODING_AGENT_DIR (helpers/packed.mjs): Pi's own npm install into <agent dir>/npm, with peer
// dependencies left to Pi, so the published file set runs with no node_modules of this checkout
// and no copy of Pi's packages beside it. The second copy (two-installs case) is the same tarball
// extracted and installed as a project package from its directory (`pi install -l <dir>`, written
// to <workspace>/.pi/settings.json): Pi keeps one package per npm name, so the second copy is a
// local path, as a user's checkout of the package would be.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { stripVTControlCharacters } from "node:util";
import {
  fakeBinDir,
  hashTree,
  isAlive,
  REAL_CLI_PATH,
  readJsonFile,
  root,
  SYSTEM_DIRS,
  tempDir,
  waitFor,
  withEnv,
} from "../helpers/index.mjs";
import { installPacked, packedTarballs } from "../helpers/packed.mjs";
import {
  abortMidTool,
  assistantText,
  contentText,
  explainRun,
  indexShop,
  jsonModeArgs,
  oneToolCall,
  piEnv,
  piMissing,
  runPi,
  startPiRpc,
  startPiSuite,
  tearDownPiSuite,
  toolNames,
} from "../helpers/pi-harness.mjs";
import { hostWith } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const { target } = require("../../lib/runners/native.js");
const TOOL = "codegraph_explore";
const REQUEST = "how does CheckoutService.checkout call charge";
const PROMPT = "How does CheckoutService.checkout end up calling charge?";
const MODELS = {
  roundTrip: "fake-roundtrip",
  twoCopies: "fake-two-copies",
  notFound: "fake-not-found",
  abort: "fake-abort",
  midSession: "fake-mid-session",
  verbInit: "fake-verb-init",
  untrusted: "fake-untrusted",
};
const nodeDir = path.dirname(process.execPath);
const realBinDir = path.join(root, "node_modules", ".bin");
const realPath = REAL_CLI_PATH;

/**
 * What the tool declares for a workspace, from the package's own factory driven the way Pi drives
 * it (factory, then session_start), with `pathDirs` as PATH: the guidance depends on the
 * session's read-only readiness check. Compared below with what actually reached the model.
 */
async function declaredTool(cwd, pathDirs) {
  const host = await hostWith(require(path.join(root, "index.js")));
  const ui = new Proxy({}, { get: () => () => {} });
  await withEnv({ PATH: pathDirs.join(path.delimiter), PI_CODEGRAPH_BIN: undefined }, () =>
    host.startSession({ cwd, hasUI: false, ui }),
  );
  const tool = host.registry.find((t) => t.name === TOOL);
  assert.ok(tool, "the factory registered a tool when the session started");
  return tool;
}

/** Pi collapses whitespace in a snippet and trims guidelines before writing them into the prompt. */
const oneLine = (s) => s.replace(/\s+/g, " ").trim();

/** Asserts the tool's snippet is a line of Pi's `<tools>` section and each guideline one of `<rules>`. */
function assertGuidanceInPrompt(body, declared) {
  const system = body.messages.find((m) => m.role === "system" || m.role === "developer");
  assert.ok(system, "a system message");
  const text = contentText(system);
  const section = (name) => text.match(new RegExp(`<${name}>\\n([\\s\\S]*?)\\n</${name}>`))?.[1]?.split("\n");
  const tools = section("tools");
  const rules = section("rules");
  assert.ok(tools && rules, "Pi's structured prompt: <tools> and <rules>");
  assert.ok(tools.includes(`- ${TOOL}: ${oneLine(declared.promptSnippet)}`), "the promptSnippet line is in <tools>");
  assert.ok(declared.promptGuidelines.length > 0);
  for (const g of declared.promptGuidelines) {
    assert.match(g, /codegraph_explore/, "each guideline names the tool (Pi lists them flat)");
    assert.ok(rules.includes(`- ${g.trim()}`), `guideline in <rules>: ${g}`);
  }
  return text;
}

const jsonArgs = (model) => jsonModeArgs(model, PROMPT);
const byType = (events, type) => events.filter((e) => e.type === type && e.toolName === TOOL);

describe("pi-codegraph in the real Pi CLI", { skip: piMissing, timeout: 90000 }, () => {
  let scratch;
  let server;
  let agentDir;
  let home;
  let indexed; // the fixture after `codegraph init`; each case works on its own copy
  let installed; // the global install's directory
  const toRemove = [];
  const strayPids = [];

  /** A fresh copy of the indexed fixture. */
  const workspace = (name) => {
    const dir = path.join(scratch, `ws-${name}`);
    fs.cpSync(indexed, dir, { recursive: true });
    return dir;
  };
  const env = (pathDirs, extra) =>
    piEnv({ agentDir, home, pathDirs, extra: { TMPDIR: path.join(scratch, "tmp"), ...extra } });

  before(async () => {
    ({ scratch, home, indexed, server, agentDir } = await startPiSuite("pi-codegraph-e2e-", {
      request: REQUEST,
      models: Object.values(MODELS),
    }));

    // The user's global install: `pi install npm:pi-codegraph`, from the packed tarball.
    const { result, dir } = await installPacked({ cwd: scratch, env: env([nodeDir]) });
    assert.equal(result.code, 0, `pi install: ${explainRun(result)}`);
    installed = dir;
  });

  after(() => tearDownPiSuite({ strayPids, server, dirs: [scratch, ...toRemove] }));

  describe("one global install", () => {
    let ws;
    let run;
    before(async () => {
      ws = workspace("roundtrip");
      run = await runPi(jsonArgs(MODELS.roundTrip), { cwd: ws, env: env(realPath) });
    });

    test("/codegraph: Pi's npm install runs the native addon of the binary package beside it", {
      skip: packedTarballs().platform ? false : "no addon built for this machine (npm run build)",
    }, async () => {
      const args = jsonArgs(MODELS.roundTrip).slice(0, -1);
      const report = await runPi([...args, "/codegraph doctor"], { cwd: ws, env: env(realPath) });
      assert.equal(report.code, 0, explainRun(report));
      const line = `${report.stdout}\n${report.stderr}`.split("\n").find((l) => l.startsWith("runner: "));
      const addonPackage = path.join(path.dirname(installed), `pi-codegraph-${target()}`);
      assert.equal(line, `runner: native addon ${path.join(addonPackage, `pi-codegraph.${target()}.node`)}`);
    });

    test("round trip: the model gets CodeGraph's real answer and Pi reports a successful tool run", (t) => {
      assert.equal(run.code, 0, explainRun(run));
      assert.deepEqual(
        run.events.filter((e) => e.type === "__unparsable__"),
        [],
        "stdout is pure JSONL",
      );

      const bodies = server.bodiesFor(MODELS.roundTrip);
      assert.equal(bodies.length, 2, "one tool-call turn, one final turn");
      const { sent, end } = oneToolCall(run, bodies, { isError: false });
      assert.match(sent, /\*\*Exploration: how does CheckoutService\.checkout call charge/);
      assert.match(sent, /CheckoutService/);
      assert.match(sent, /src\/checkout\.ts/);

      const [start] = byType(run.events, "tool_execution_start");
      assert.ok(start, "tool_execution_start for codegraph_explore");
      assert.deepEqual(start.args, { request: REQUEST }, "the streamed arguments were reassembled");
      const d = end.result.details;
      t.diagnostic(`codegraph cliVersion=${d.cliVersion} executable=${d.executable} durationMs=${d.durationMs}`);
      assert.equal(d.cliVersion, "1.6.1");
      assert.equal(d.exitCode, 0);
      assert.equal(d.cwd, ws, "ran in Pi's workspace");
      // Discovery found the npm shim; the platform bundle it would start is what ran.
      assert.equal(d.discoveredExecutable, path.join(realBinDir, "codegraph"));
      assert.match(d.executable, /node_modules\/@colbymchenry\/codegraph-[a-z0-9]+-[a-z0-9]+\/bin\/codegraph$/);
      assert.equal(d.cliVersionSource, "package.json");

      assert.match(assistantText(run.events), /FAKE_MODEL_DONE/, "Pi ran the model's second turn");
    });

    test("prompt: the system prompt carries the snippet and guidelines; one codegraph_explore tool", async () => {
      const declared = await declaredTool(ws, realPath);
      const bodies = server.bodiesFor(MODELS.roundTrip);
      assert.ok(bodies.length >= 1, "the model was called");
      assertGuidanceInPrompt(bodies[0], declared);
      for (const body of bodies) {
        assert.equal(toolNames(body).filter((n) => n === TOOL).length, 1, "exactly one codegraph_explore");
      }
      const schema = bodies[0].tools.find((x) => x.function?.name === TOOL).function.parameters;
      assert.deepEqual(Object.keys(schema.properties), ["request"]);
      assert.deepEqual(schema.required, ["request"]);
    });
  });

  describe("installed twice: global (npm, the packed tarball) and project (that tarball extracted)", () => {
    let ws;
    let copyDir;
    let run;
    before(async () => {
      ws = workspace("two-copies");
      // The same tarball, extracted: the published file set, with no node_modules beside it.
      copyDir = path.join(scratch, "second-copy");
      fs.mkdirSync(copyDir);
      const { main, platform } = packedTarballs();
      execFileSync("tar", ["-xzf", main, "-C", copyDir], { stdio: "ignore", timeout: 30000 });
      copyDir = path.join(copyDir, "package");
      // The tarball's `files` leave the platform addon out (napi-rs ships it as a per-platform
      // package): put that package's addon beside binding.js, where it also resolves.
      if (platform) {
        const unpacked = path.join(scratch, "second-copy-platform");
        fs.mkdirSync(unpacked);
        execFileSync("tar", ["-xzf", platform, "-C", unpacked], { stdio: "ignore", timeout: 30000 });
        for (const f of fs.readdirSync(path.join(unpacked, "package")))
          if (f.endsWith(".node")) fs.copyFileSync(path.join(unpacked, "package", f), path.join(copyDir, f));
      }
      // A project install loads only once the project is trusted (Pi 1.x; print, json and rpc mode
      // decline unless told): `--approve`, as a user who trusts the project.
      const install = await runPi(["install", "-l", copyDir, "--approve"], {
        cwd: ws,
        env: env([nodeDir]),
        timeoutMs: 20000,
      });
      assert.equal(install.code, 0, `pi install -l: ${explainRun(install)}`);
      assert.ok(fs.existsSync(path.join(ws, ".pi", "settings.json")), "a project install");
      // JITI_DEBUG makes Pi's loader (jiti) log each module it imports: proof both copies loaded.
      run = await runPi(["--approve", ...jsonArgs(MODELS.twoCopies)], {
        cwd: ws,
        env: env(realPath, { JITI_DEBUG: "1" }),
      });
    });

    test("both copies load, Pi still exits 0, the tool works and the model sees it once", () => {
      assert.equal(run.code, 0, explainRun(run));
      assert.doesNotMatch(run.stderr, /conflicts with/, "no fatal tool-name conflict");
      const jitiLines = stripVTControlCharacters(run.stderr)
        .split("\n")
        .filter((l) => l.startsWith("[jiti]"));
      const loaded = (dir) =>
        jitiLines.some((l) => /\[(native|transpile)\]/.test(l) && l.includes(`${dir}${path.sep}`));
      assert.ok(loaded(installed), "the global install (npm) was loaded");
      assert.ok(loaded(copyDir), "the project install (packed copy) was loaded");

      const bodies = server.bodiesFor(MODELS.twoCopies);
      assert.equal(bodies.length, 2);
      for (const body of bodies) assert.equal(toolNames(body).filter((n) => n === TOOL).length, 1);
      const ends = byType(run.events, "tool_execution_end");
      assert.equal(ends.length, 1);
      assert.equal(ends[0].isError, false, contentText(ends[0].result));
      assert.match(contentText(ends[0].result), /\*\*Exploration: how does CheckoutService/);
      assert.equal(ends[0].result.details.cliVersion, "1.6.1");
    });

    test("/codegraph names the active copy: the one Pi loaded first (the project install)", async () => {
      const args = ["--approve", ...jsonArgs(MODELS.twoCopies).slice(0, -1)];
      const report = await runPi([...args, "/codegraph doctor"], { cwd: ws, env: env(realPath) });
      assert.equal(report.code, 0, explainRun(report));
      // Pi's json mode guards stdout for its events: the report goes to stderr.
      const line = `${report.stdout}\n${report.stderr}`.split("\n").find((l) => l.startsWith("extension: "));
      assert.ok(line, `no extension line in: ${report.stderr.slice(0, 2000)}`);
      assert.equal(
        line,
        `extension: pi-codegraph ${require("../../package.json").version} at ${copyDir} (the active copy)`,
      );
    });

    test("the packed copy (no node_modules beside it) loads without an extension error", () => {
      const extensionErrors = [
        ...run.stderr.split("\n").filter((l) => l.startsWith("Extension error")),
        ...run.events.filter((e) => e.type === "extension_error").map((e) => e.error),
      ];
      assert.deepEqual(extensionErrors, []);
    });
  });

  test("no codegraph on PATH: the model gets CODEGRAPH_NOT_FOUND with the remediation", async () => {
    const ws = workspace("not-found");
    // PATH holds only node: no codegraph anywhere on it.
    const nodeOnly = path.join(scratch, "node-only-bin");
    fs.mkdirSync(nodeOnly);
    fs.symlinkSync(process.execPath, path.join(nodeOnly, path.basename(process.execPath)));
    const run = await runPi(jsonArgs(MODELS.notFound), { cwd: ws, env: env([nodeOnly]) });
    assert.equal(run.code, 0, explainRun(run));

    const bodies = server.bodiesFor(MODELS.notFound);
    assert.equal(bodies.length, 2);
    const system = assertGuidanceInPrompt(bodies[0], await declaredTool(ws, [nodeOnly]));
    assert.match(system, /CODEGRAPH_NOT_FOUND/, "the prompt already says the tool is unavailable");
    const { sent } = oneToolCall(run, bodies, { isError: true });
    assert.match(sent, /^CODEGRAPH_NOT_FOUND:/);
    assert.match(sent, /npm install -g @colbymchenry\/codegraph/);
    assert.match(sent, /Remediation:/);
  });

  test("a project Pi does not trust (--no-approve): the model gets CODEGRAPH_UNTRUSTED, and no CodeGraph starts", async () => {
    const ws = workspace("untrusted");
    // Project settings: a resource Pi asks trust for (docs/security.md).
    fs.mkdirSync(path.join(ws, ".pi"));
    fs.writeFileSync(path.join(ws, ".pi", "settings.json"), "{}\n");
    // A codegraph on PATH that records each start, then runs the real one.
    const bin = path.join(scratch, "recording-bin");
    const started = path.join(scratch, "codegraph-started");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(
      path.join(bin, "codegraph"),
      `#!/bin/sh\necho "$@" >> ${JSON.stringify(started)}\nexec ${JSON.stringify(path.join(realBinDir, "codegraph"))} "$@"\n`,
      { mode: 0o755 },
    );
    const run = await runPi(["--no-approve", ...jsonArgs(MODELS.untrusted)], {
      cwd: ws,
      env: env([bin, nodeDir, ...SYSTEM_DIRS]),
    });
    assert.equal(run.code, 0, explainRun(run));
    const bodies = server.bodiesFor(MODELS.untrusted);
    const { sent } = oneToolCall(run, bodies, { isError: true });
    assert.match(sent, /^CODEGRAPH_UNTRUSTED: Pi does not trust the project /);
    assert.match(sent, /\/trust/);
    assert.equal(fs.existsSync(started), false, "no CodeGraph process was started (not even --version)");
  });

  test("an index made mid-session: the next turn's system prompt advertises the tool (rpc, real CLI)", async () => {
    const ws = path.join(scratch, "ws-mid-session");
    fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
    const rpc = startPiRpc(
      ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", MODELS.midSession],
      { cwd: ws, env: env(realPath) },
    );
    const turn = async (id) => {
      const ended = rpc.events.filter((e) => e.type === "agent_end").length;
      rpc.send({ id, type: "prompt", message: PROMPT });
      await rpc.waitForEvent((e) => e.type === "response" && e.id === id, { what: `${id} accepted` });
      await waitFor(() => rpc.events.filter((e) => e.type === "agent_end").length > ended, {
        timeoutMs: 20000,
        what: `${id}'s agent_end`,
      });
    };
    const systemOf = (body) => contentText(body.messages.find((m) => m.role === "system" || m.role === "developer"));

    await turn("p1");
    const first = server.bodiesFor(MODELS.midSession);
    assert.match(systemOf(first[0]), /Unavailable in this workspace \(CODEGRAPH_NO_INDEX\)/);

    // The user indexes the project while Pi runs.
    indexShop(ws, { copy: false });
    await turn("p2");
    const bodies = server.bodiesFor(MODELS.midSession);
    const next = systemOf(bodies[first.length]);
    assert.doesNotMatch(next, /Unavailable in this workspace/);
    assert.match(next, /codegraph_explore: Ask the workspace's CodeGraph index structural questions/);
    await turn("p3");
    // The status slot goes to the rpc client only when it changes: no index, then ready.
    const statuses = rpc.events
      .filter((e) => e.type === "extension_ui_request" && e.method === "setStatus" && e.statusKey === "codegraph")
      .map((e) => e.statusText);
    assert.deepEqual(statuses, ["⬡ codegraph: no index", "⬡ codegraph"]);
    const exit = await rpc.end();
    assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
  });

  test("/codegraph init in rpc mode: Pi's confirm dialog, progress in the status slot, then the model's explore answers from the new index", async () => {
    const ws = path.join(scratch, "ws-verb-init");
    fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
    assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false, "an unindexed copy");
    const rpc = startPiRpc(
      ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", MODELS.verbInit],
      { cwd: ws, env: env(realPath) },
    );
    rpc.send({ id: "v1", type: "prompt", message: "/codegraph init" });
    const confirm = await rpc.waitForEvent((e) => e.type === "extension_ui_request" && e.method === "confirm", {
      timeoutMs: 30000,
      what: "the confirm dialog",
    });
    assert.equal(confirm.title, "Create the CodeGraph index?");
    assert.match(confirm.message, new RegExp(`Creates ${ws}/\\.codegraph/`));
    rpc.send({ type: "extension_ui_response", id: confirm.id, confirmed: true });
    // Pi answers an extension command's prompt once its handler has finished.
    const done = await rpc.waitForEvent((e) => e.type === "response" && e.id === "v1", {
      timeoutMs: 60000,
      what: "/codegraph init to finish",
    });
    assert.equal(done.success, true, JSON.stringify(done));
    const notes = rpc.events.filter((e) => e.type === "extension_ui_request" && e.method === "notify");
    const result = notes.map((e) => e.message).find((m) => m.startsWith("/codegraph init: "));
    assert.match(result ?? "", /^\/codegraph init: done in \d+\.\d s; /, JSON.stringify(notes));
    assert.match(result, /Indexed 7 files/);
    assert.match(result, /the agent's CodeGraph tools answer from it now\./);
    assert.ok(fs.existsSync(path.join(ws, ".codegraph", "codegraph.db")));
    const statuses = rpc.events
      .filter((e) => e.type === "extension_ui_request" && e.method === "setStatus" && e.statusKey === "codegraph")
      .map((e) => e.statusText);
    assert.equal(statuses[0], "⬡ codegraph: no index");
    assert.match(statuses[1], /^codegraph init: .* · \d+ s · \/codegraph cancel stops it$/);
    assert.equal(statuses.at(-1), "⬡ codegraph", "ready right after the init");

    // The next turn: the model calls codegraph_explore, which answers from the new index.
    rpc.send({ id: "v2", type: "prompt", message: PROMPT });
    const end = await rpc.waitForEvent((e) => e.type === "tool_execution_end" && e.toolName === TOOL, {
      timeoutMs: 30000,
      what: "the explore after init",
    });
    assert.equal(end.isError, false, contentText(end.result));
    assert.match(contentText(end.result), /\*\*Exploration: how does CheckoutService\.checkout call charge/);
    assert.match(contentText(end.result), /src\/checkout\.ts/);
    const system = contentText(server.bodiesFor(MODELS.verbInit)[0].messages.find((m) => m.role === "system"));
    assert.match(system, /codegraph_explore: Ask the workspace's CodeGraph index structural questions/);
    await waitFor(() => rpc.events.some((e) => e.type === "agent_end"), { timeoutMs: 20000, what: "agent_end" });
    const exit = await rpc.end();
    assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
  });

  test("/codegraph cancel in rpc mode stops a running /codegraph rebuild and the CLI's whole tree", async () => {
    const ws = workspace("verb-cancel");
    const bin = fakeBinDir();
    const gate = tempDir("pi-codegraph-e2e-gate-");
    toRemove.push(bin, gate);
    const rpc = startPiRpc(
      ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", MODELS.verbInit],
      { cwd: ws, env: env([bin, nodeDir], { FAKE_CG_GATE: gate }) },
    );
    rpc.send({ id: "r1", type: "prompt", message: "/codegraph rebuild" });
    const confirm = await rpc.waitForEvent((e) => e.type === "extension_ui_request" && e.method === "confirm", {
      timeoutMs: 30000,
      what: "the confirm dialog",
    });
    assert.match(confirm.message, /stops a running CodeGraph MCP daemon/);
    rpc.send({ type: "extension_ui_response", id: confirm.id, confirmed: true });
    const pids = await waitFor(() => readJsonFile(path.join(gate, "started.json")), { what: "the fake at its gate" });
    strayPids.push(pids.self, pids.grandchild);
    await rpc.waitForEvent(
      (e) =>
        e.type === "extension_ui_request" &&
        e.method === "setStatus" &&
        /3\/7 files · ▰+▱+ 36%/.test(e.statusText ?? ""),
      { what: "progress in the status slot" },
    );
    // A second command while the first one's handler still runs: Pi runs it at once.
    rpc.send({ id: "c1", type: "prompt", message: "/codegraph cancel" });
    const stopped = await rpc.waitForEvent((e) => e.type === "response" && e.id === "r1", {
      what: "the rebuild to end",
    });
    assert.equal(stopped.success, true);
    const notes = rpc.events
      .filter((e) => e.type === "extension_ui_request" && e.method === "notify")
      .map((e) => e.message);
    assert.ok(notes.includes("/codegraph cancel: stopping /codegraph rebuild…"), JSON.stringify(notes));
    assert.ok(
      notes.some((m) => /^\/codegraph rebuild: cancelled after /.test(m)),
      JSON.stringify(notes),
    );
    await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), {
      timeoutMs: 5000,
      what: "the CLI and its grandchild to be gone",
    });
    const exit = await rpc.end();
    assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
  });

  test("print mode: /codegraph rebuild without --yes refuses with the exact command and changes nothing", async () => {
    const ws = workspace("verb-print");
    const untouched = hashTree(ws);
    const args = ["-p", "--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model"];
    const run = await runPi([...args, MODELS.verbInit, "/codegraph rebuild"], { cwd: ws, env: env(realPath) });
    assert.equal(run.code, 0, explainRun(run));
    assert.match(
      `${run.stdout}${run.stderr}`,
      /\/codegraph rebuild: refused without confirmation .*type: \/codegraph rebuild --yes/,
    );
    assert.deepEqual(hashTree(ws), untouched);
  });

  test("fifteen new_session commands sent without waiting (rpc): the replaced sessions end quietly, the last one works", async () => {
    const ws = workspace("sessions");
    const rpc = startPiRpc(["--offline", "--no-context-files", "--provider", "fake", "--model", MODELS.roundTrip], {
      cwd: ws,
      env: env(realPath),
    });
    for (let i = 0; i < 15; i += 1) rpc.send({ id: `n${i}`, type: "new_session" });
    for (let i = 0; i < 15; i += 1)
      await rpc.waitForEvent((e) => e.type === "response" && e.id === `n${i}`, { timeoutMs: 60000, what: `n${i}` });
    rpc.send({ id: "cg", type: "prompt", message: "/codegraph" });
    await rpc.waitForEvent((e) => e.type === "response" && e.id === "cg", { timeoutMs: 30000, what: "/codegraph" });
    const exit = await rpc.end();
    assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
    const notes = rpc.events.filter((e) => e.type === "extension_ui_request" && e.method === "notify");
    assert.match(notes.at(-1)?.message ?? "", /^pi-codegraph: ready$/m, "the surviving session's /codegraph");
    const said = `${rpc.stderr}\n${notes.map((n) => n.message).join("\n")}`;
    assert.doesNotMatch(said, /could not start|stale/);
  });

  test("a start that really fails is still said (rpc): the package's SDK entry, with no typebox beside the install", async () => {
    const ws = workspace("start-fails");
    const rpc = startPiRpc(
      ["--offline", "--no-session", "--no-context-files", "--no-extensions", "-e", path.join(installed, "index.js")],
      { cwd: ws, env: env(realPath) },
    );
    const failed = await rpc.waitForEvent(
      (e) => e.type === "extension_ui_request" && e.method === "notify" && /could not start/.test(e.message),
      { timeoutMs: 30000, what: "the start's failure" },
    );
    assert.match(failed.message, /^pi-codegraph could not start in this session: .*typebox.*\n.*not registered/);
    assert.equal(failed.notifyType, "error");
    const exit = await rpc.end();
    assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
  });

  test("rpc abort stops the tool and the whole codegraph process tree", async () => {
    const ws = workspace("abort");
    const bin = fakeBinDir();
    toRemove.push(bin);
    const pidsFile = path.join(scratch, "abort-pids.json");
    const rpc = startPiRpc(
      ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", MODELS.abort],
      {
        cwd: ws,
        env: env([bin, nodeDir], { FAKE_CG_MODE: "hang", FAKE_CG_PIDS: pidsFile }),
      },
    );
    await abortMidTool(rpc, { prompt: PROMPT, pidsFile, strayPids });

    const exit = await rpc.end();
    assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
    assert.equal(server.bodiesFor(MODELS.abort).length, 1, "no model turn after the abort");
  });
});
