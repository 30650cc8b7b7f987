// Roots in the real Pi CLI (the pinned devDependency) with the real pinned CodeGraph CLI. An
// ancestor's index added by the user: Pi starts in `src/` of an indexed copy of the shop fixture
// (no index of its own there). Before the user adds the ancestor the tool is unavailable, and the prompt
// names the enclosing project; after `/codegraph projects add ..` (typed, over rpc) the model's
// explore answers from it, its answer begins with the line saying how its paths become paths
// `read` accepts, and Pi's `read` of a path built from that line and a `file:line` the answer
// cites opens that line of the right file. The added root is kept: a new Pi process in the same
// agent dir answers from it without adding it again. And a monorepo (helpers/monorepo.mjs): the
// tool's `project` reaches the model as an enum of the labels, and a path where a label goes is
// refused by Pi's schema before any process starts. The model is the loopback fake
// (helpers/fake-openai.mjs), whose `plan` builds the reads from the explore result it was sent.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { recordingCli, root, waitFor } from "../helpers/index.mjs";
import { buildMonorepo, citations } from "../helpers/monorepo.mjs";
import { installPacked } from "../helpers/packed.mjs";
import {
  contentText,
  indexShop,
  piEnv,
  piMissing,
  piScratch,
  runPi,
  startPiRpc,
  tearDownPiSuite,
  toolNames,
  writeModelsJson,
} from "../helpers/pi-harness.mjs";

const MODEL = "fake-roots";
const QUESTION = "how does checkout reach charge";
const MONO_MODEL = "fake-mono";
/** In the monorepo: one call with a label, one with a path where a label goes (Pi's schema refuses it). */
const MONO_CALLS = [
  {
    id: "call_label",
    name: "codegraph_explore",
    arguments: { project: "packages/other", request: "how does reconcileAccounts reach balanceOf" },
  },
  { id: "call_path", name: "codegraph_explore", arguments: { project: "../shop", request: QUESTION } },
];
const nodeDir = path.dirname(process.execPath);
const realCli = path.join(root, "node_modules", ".bin", "codegraph");
const systemDirs = ["/usr/bin", "/bin"].filter((d) => fs.existsSync(d));
const base = (model) => ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", model];
const systemOf = (body) => contentText(body.messages.find((m) => m.role === "system" || m.role === "developer"));
/** The path line of an answer from a root outside the workspace: label, directory, absolute and relative prefixes. */
const PATH_LINE =
  /^Project (\S+) \((.+)\): its paths are relative to that directory; for read, prefix them with (.+) \(or (.+) from the workspace\)\.$/;

/** The messages of a request since its last user message (this prompt's turn so far). */
function thisTurn(body) {
  const messages = body?.messages ?? [];
  const last = messages.findLastIndex((m) => m.role === "user");
  return { prompt: contentText(messages[last]), since: messages.slice(last + 1) };
}

/**
 * The fake model: for QUESTION, first a call of codegraph_explore (no project: one root); then,
 * from the explore result it was sent, two reads of the first `file:line` it cites, one with the
 * path line's workspace-relative prefix, one with its absolute prefix, each of that one line; then
 * text. Any other prompt: text.
 */
function plan(body) {
  if (body?.model !== MODEL) return undefined;
  const { prompt, since } = thisTurn(body);
  if (prompt !== QUESTION) return [];
  const results = since.filter((m) => m.role === "tool");
  if (results.length === 0) return [{ id: "call_cg_1", name: "codegraph_explore", arguments: { request: QUESTION } }];
  if (results.length > 1) return [];
  const answer = contentText(results[0]);
  const line = PATH_LINE.exec(answer.split("\n")[0]);
  const [cited] = citations(answer);
  if (!line || !cited) return [];
  const [, , , absolute, relative] = line;
  const read = (id, prefix) => ({
    id,
    name: "read",
    arguments: { path: prefix + cited.file, offset: cited.line, limit: 1 },
  });
  return [read("call_read_rel", relative), read("call_read_abs", absolute)];
}

describe("roots in the real Pi CLI", { skip: piMissing, timeout: 180000 }, () => {
  let scratch;
  let home;
  let agentDir;
  let shop;
  let ws;
  let server;
  let wrapperDir;
  let log;
  const env = () =>
    piEnv({
      agentDir,
      home,
      pathDirs: [wrapperDir, nodeDir, ...systemDirs],
      extra: { TMPDIR: path.join(scratch, "tmp") },
    });
  const expectedLine = () =>
    `Project ../../shop (${shop}/): its paths are relative to that directory; for read, prefix them with ${shop}/ (or ../ from the workspace).`;

  before(async () => {
    ({ scratch, home, agentDir } = piScratch("pi-codegraph-roots-pi-"));
    fs.mkdirSync(path.join(scratch, "tmp"));
    shop = indexShop(path.join(scratch, "shop"));
    ws = path.join(shop, "src");
    wrapperDir = path.join(scratch, "bin");
    log = path.join(scratch, "starts.log");
    recordingCli(wrapperDir, log, realCli);
    server = await startFakeOpenAI({ plan, byModel: { [MONO_MODEL]: MONO_CALLS } });
    writeModelsJson(agentDir, server.baseUrl, [MODEL, MONO_MODEL]);
    const install = (await installPacked({ cwd: scratch, env: env() })).result;
    assert.equal(install.code, 0, `pi install: exit ${install.code}; stderr:\n${install.stderr.slice(-3000)}`);
  });
  after(() => tearDownPiSuite({ strayPids: [], server, dirs: [scratch] }));

  /** The explore commands the wrapper saw start (the request follows `--`). */
  const explores = () =>
    (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n") : []).filter((l) => l.startsWith("explore"));

  /** An rpc Pi in the workspace; `send` prompts it (a model turn waits for its agent_end). */
  function piSession() {
    const rpc = startPiRpc(base(MODEL), { cwd: ws, env: env() });
    const send = async (id, message, { turn = true } = {}) => {
      const ended = rpc.events.filter((e) => e.type === "agent_end").length;
      const requests = server.bodiesFor(MODEL).length;
      rpc.send({ id, type: "prompt", message });
      const r = await rpc.waitForEvent((e) => e.type === "response" && e.id === id, {
        timeoutMs: 30000,
        what: `${id} accepted`,
      });
      assert.equal(r.success, true, JSON.stringify(r));
      if (turn)
        await waitFor(() => rpc.events.filter((e) => e.type === "agent_end").length > ended, {
          timeoutMs: 30000,
          what: `${id}'s agent_end`,
        });
      return server.bodiesFor(MODEL).slice(requests);
    };
    const end = async () => {
      const exit = await rpc.end();
      assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
    };
    /** What the status slot was set to, in order. */
    const statuses = () =>
      rpc.events
        .filter((e) => e.type === "extension_ui_request" && e.method === "setStatus" && e.statusKey === "codegraph")
        .map((e) => e.statusText);
    return { rpc, send, end, statuses };
  }

  /**
   * The question's turn (its requests, in order): explore's result begins with the path line; the
   * reads the model built from it (relative and absolute) each return that line of the cited file.
   */
  function assertAnswerAndReads(bodies, rpc) {
    assert.equal(bodies.length, 3, "explore's turn, the reads' turn, the final turn");
    const [first] = thisTurn(bodies[0]).since;
    assert.equal(first, undefined, "the first request carries no tool result");
    const explored = thisTurn(bodies[1]).since.filter((m) => m.role === "tool");
    assert.equal(explored.length, 1);
    assert.equal(explored[0].tool_call_id, "call_cg_1");
    const answer = contentText(explored[0]);
    const [line] = answer.split("\n");
    assert.equal(line, expectedLine(), answer.slice(0, 400));
    assert.match(answer, /CheckoutService|checkout/);
    // The prefixes the model reads: exactly the root, absolute, and ../ from the workspace.
    const [, label, dir, absolute, relative] = PATH_LINE.exec(line);
    assert.deepEqual([label, dir, absolute, relative], ["../../shop", `${shop}/`, `${shop}/`, "../"]);
    assert.equal(path.resolve(ws, relative), shop);

    const [cited] = citations(answer);
    assert.ok(cited, "explore's answer cites a file:line");
    const expected = fs.readFileSync(path.join(shop, cited.file), "utf8").split("\n")[cited.line - 1];
    assert.ok(expected.trim(), `${cited.file}:${cited.line} is a line with code`);
    const reads = thisTurn(bodies[2]).since.filter((m) => m.role === "tool" && m.tool_call_id !== "call_cg_1");
    assert.deepEqual(
      reads.map((m) => m.tool_call_id),
      ["call_read_rel", "call_read_abs"],
    );
    for (const m of reads) assert.ok(contentText(m).startsWith(`${expected}\n`), contentText(m));
    const calls = rpc.events.filter((e) => e.type === "tool_execution_end" && e.toolName === "read");
    assert.equal(calls.length, 2);
    for (const c of calls) assert.equal(c.isError, false, contentText(c.result));
    const started = rpc.events
      .filter((e) => e.type === "tool_execution_start" && e.toolName === "read")
      .map((e) => e.args.path);
    assert.deepEqual(started, [`../${cited.file}`, `${shop}/${cited.file}`]);
    return { cited, expected };
  }

  test("unavailable before the ancestor is added; `/codegraph projects add ..` adds it; the model's read of a path built from the answer opens the cited line", async (t) => {
    assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false, "no index of its own in src/");
    const { rpc, send, end, statuses } = piSession();
    try {
      const [hello] = await send("p1", "hello");
      assert.deepEqual(statuses(), ["⬡ codegraph: no index here (parent project has one)"]);
      const system = systemOf(hello);
      assert.ok(toolNames(hello).includes("codegraph_explore"));
      assert.ok(system.includes("codegraph_explore: Unavailable in this workspace (CODEGRAPH_NO_INDEX)"), system);
      assert.ok(system.includes(`The enclosing project ${shop} has a CodeGraph index`), system);

      const requests = server.bodiesFor(MODEL).length;
      await send("c1", "/codegraph projects add ..", { turn: false });
      const added = await rpc.waitForEvent(
        (e) => e.type === "extension_ui_request" && e.method === "notify" && /^Added /.test(e.message),
        { what: "the added notice" },
      );
      assert.equal(
        added.message,
        `Added ../../shop (${shop}): the codegraph tools can now ask it by that name; kept for this workspace.`,
      );
      assert.equal(server.bodiesFor(MODEL).length, requests, "a command reaches no model");
      const saved = fs.readdirSync(path.join(agentDir, "pi-codegraph", "roots"));
      assert.equal(saved.length, 1, "kept in the agent dir");
      assert.deepEqual(
        JSON.parse(fs.readFileSync(path.join(agentDir, "pi-codegraph", "roots", saved[0]), "utf8")).roots,
        [shop],
      );
      assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false, "nothing written in the workspace");
      assert.equal(statuses().at(-1), "⬡ codegraph · ../../shop", "the slot names the root the tools answer from");

      const bodies = await send("p2", QUESTION);
      const ready = systemOf(bodies[0]);
      assert.doesNotMatch(ready, /Unavailable in this workspace/);
      // One root: the tool has no project parameter (the root is used implicitly).
      const explore = bodies[0].tools.find((t) => t.function?.name === "codegraph_explore");
      assert.deepEqual(Object.keys(explore.function.parameters.properties), ["request"]);
      const { cited, expected } = assertAnswerAndReads(bodies, rpc);
      t.diagnostic(`read ../${cited.file} at line ${cited.line}: ${JSON.stringify(expected)}`);
    } finally {
      await end();
    }
  });

  test("the added root is kept: a new Pi process in the same agent dir answers from it", async () => {
    const { rpc, send, end, statuses } = piSession();
    try {
      const bodies = await send("p1", QUESTION);
      assert.deepEqual(statuses(), ["⬡ codegraph · ../../shop"], "the first the slot says");
      assert.doesNotMatch(systemOf(bodies[0]), /Unavailable in this workspace/);
      assertAnswerAndReads(bodies, rpc);
      assert.equal(
        rpc.events.filter(
          (e) => e.type === "extension_ui_request" && e.method === "notify" && /^Added /.test(e.message),
        ).length,
        0,
        "nothing was added again",
      );
    } finally {
      await end();
    }
    assert.equal(explores().length, 2, "one explore per question");
  });

  test("in a monorepo, the model picks a project by its label; Pi's schema refuses a path there", async () => {
    const { ws: mono } = buildMonorepo(path.join(scratch, "mono"));
    const before = explores().length;
    const run = await runPi(["--mode", "json", ...base(MONO_MODEL), "which calls?"], {
      cwd: mono,
      env: env(),
    });
    assert.equal(run.code, 0, `exit ${run.code}; stderr:\n${run.stderr.slice(-3000)}`);
    const bodies = server.bodiesFor(MONO_MODEL);
    assert.equal(bodies.length, 2, "the calls' turn and the final turn");
    const explore = bodies[0].tools.find((t) => t.function?.name === "codegraph_explore").function.parameters;
    assert.equal(explore.properties.project.type, "string");
    assert.deepEqual([...explore.properties.project.enum].sort(), ["packages/other", "packages/shop"]);
    assert.ok(explore.required.includes("project"), "no index at the root: project is required");
    assert.ok(systemOf(bodies[0]).includes("Several CodeGraph projects are indexed here: pass project to pick one;"));

    const results = Object.fromEntries(
      bodies[1].messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, contentText(m)]),
    );
    const other = results.call_label;
    assert.ok(
      other.startsWith(
        "Project packages/other (packages/other/): its paths are relative to that directory; for read, prefix them with packages/other/.\n",
      ),
      other.slice(0, 300),
    );
    assert.match(other, /`balanceOf` \(src\/ledger\.ts:13\)/);
    assert.match(results.call_path, /^Validation failed for tool "codegraph_explore"/);
    assert.match(results.call_path, /project/);
    const ends = run.events.filter((e) => e.type === "tool_execution_end" && e.toolName === "codegraph_explore");
    assert.deepEqual(ends.map((e) => e.isError).sort(), [false, true]);
    assert.deepEqual(
      explores().slice(before),
      ["explore -- how does reconcileAccounts reach balanceOf"],
      "only the labelled call ran",
    );
  });
});
