// The focused tools in the real Pi CLI (the pinned devDependency): what reaches the model's
// request (its tools array and system prompt) as the user turns them on and off with
// `/codegraph tools`, across Pi processes, under PI_CODEGRAPH_TOOLS, and what Pi does with a
// model's call of one (its schema refuses bad arguments before our code or CodeGraph runs). The
// model is the loopback fake (helpers/fake-openai.mjs), which records every request; the CLI is
// the pinned CodeGraph behind a wrapper that logs each start; the agent dir is a temp dir.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { recordingCli, root, tempDir, waitFor } from "../helpers/index.mjs";
import { installPacked } from "../helpers/packed.mjs";
import {
  contentText,
  explainRun,
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
import { startTuiPi, tmuxMissing } from "../helpers/tmux-pi.mjs";

const require = createRequire(import.meta.url);
const { FOCUSED_WORDS } = require("../../lib/pi/guidance.js");

// Every focused tool, in the order real Pi's request carries them: the default set (with explore).
const FOCUSED = ["codegraph_node", "codegraph_relations", "codegraph_search", "codegraph_changes"];
const NO_NODE_LINE = "(codegraph_node does not exist here)";
const relationsCall = (id, args) => [{ id, name: "codegraph_relations", arguments: args }];
// One model id per case keeps each case's requests apart; [] answers with plain text.
const BY_MODEL = {
  "fake-toggle": [],
  "fake-saved": [],
  "tui-model": [],
  "fake-bad-limit": relationsCall("call_rel_1", { relation: "callers", symbol: "charge", limit: "abc" }),
  "fake-bad-relation": relationsCall("call_rel_2", { relation: "nope", symbol: "charge" }),
  "fake-parent-file": relationsCall("call_rel_4", { relation: "callers", symbol: "charge", file: "../../etc/passwd" }),
  "fake-good-relation": relationsCall("call_rel_3", { relation: "callers", symbol: "charge", file: "src/types.ts" }),
};
const nodeDir = path.dirname(process.execPath);
const realCli = path.join(root, "node_modules", ".bin", "codegraph");
const systemDirs = ["/usr/bin", "/bin"].filter((d) => fs.existsSync(d));
const base = (model) => ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", model];
const json = (model, prompt) => ["--mode", "json", ...base(model), prompt];
const systemOf = (body) => contentText(body.messages.find((m) => m.role === "system" || m.role === "developer"));
const focusedIn = (body) => toolNames(body).filter((n) => FOCUSED.includes(n));

/** Pi collapses whitespace in a snippet and trims a guideline before writing it into the prompt. */
const oneLine = (s) => s.replace(/\s+/g, " ").trim();
/** Whether the system prompt carries `name`'s snippet line and its guideline line. */
function advertises(system, name) {
  const lines = system.split("\n");
  const w = FOCUSED_WORDS[name];
  return lines.includes(`- ${name}: ${oneLine(w.snippet)}`) && lines.includes(`- ${w.guideline.trim()}`);
}
/** Every mention of a focused tool in the system prompt, except explore's "does not exist here" line. */
const mentions = (system) =>
  system
    .split("\n")
    .filter((l) => !l.includes(NO_NODE_LINE))
    .filter((l) => FOCUSED.some((n) => l.includes(n)));

describe("the focused tools in the real Pi CLI", { skip: piMissing, timeout: 180000 }, () => {
  let scratch;
  let home;
  let agentDir;
  let indexed;
  let server;
  let wrapperDir;
  let log;
  const env = (extra = {}) =>
    piEnv({
      agentDir,
      home,
      pathDirs: [wrapperDir, nodeDir, ...systemDirs],
      extra: { TMPDIR: path.join(scratch, "tmp"), ...extra },
    });
  /** A fresh copy of the indexed fixture: its own project, so its own saved choice. */
  const workspace = (name) => {
    const dir = path.join(scratch, `ws-${name}`);
    fs.cpSync(indexed, dir, { recursive: true });
    return dir;
  };
  /** The CodeGraph commands the wrapper saw start, other than the version probe and status. */
  const cliStarts = () =>
    (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n") : []).filter((l) =>
      /^(callers|callees|impact|node|query|explore)\b/.test(l),
    );

  before(async () => {
    ({ scratch, home, agentDir } = piScratch("pi-codegraph-tools-pi-"));
    fs.mkdirSync(path.join(scratch, "tmp"));
    indexed = indexShop(path.join(scratch, "shop"));
    wrapperDir = path.join(scratch, "bin");
    log = path.join(scratch, "starts.log");
    recordingCli(wrapperDir, log, realCli);
    server = await startFakeOpenAI({ byModel: BY_MODEL });
    writeModelsJson(agentDir, server.baseUrl, Object.keys(BY_MODEL));
    const install = (await installPacked({ cwd: scratch, env: env() })).result;
    assert.equal(install.code, 0, `pi install: ${explainRun(install)}`);
  });
  after(() => tearDownPiSuite({ strayPids: [], server, dirs: [scratch] }));

  describe("one rpc session: off, on, off", () => {
    const model = "fake-toggle";
    let rpc;
    /** Sends `message` as a prompt; a model turn waits for its agent_end, a command for its response. */
    const send = async (id, message, { turn = true } = {}) => {
      const ended = rpc.events.filter((e) => e.type === "agent_end").length;
      rpc.send({ id, type: "prompt", message });
      const r = await rpc.waitForEvent((e) => e.type === "response" && e.id === id, { what: `${id} accepted` });
      assert.equal(r.success, true, JSON.stringify(r));
      if (turn)
        await waitFor(() => rpc.events.filter((e) => e.type === "agent_end").length > ended, {
          timeoutMs: 20000,
          what: `${id}'s agent_end`,
        });
      return server.bodiesFor(model).at(-1);
    };
    const notes = () =>
      rpc.events.filter((e) => e.type === "extension_ui_request" && e.method === "notify").map((e) => e.message);

    before(() => {
      rpc = startPiRpc(base(model), { cwd: workspace("toggle"), env: env() });
    });
    after(async () => {
      const exit = await rpc.end();
      assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
    });

    test("a fresh session: every tool in the tools array, each advertised in the prompt (the default)", async () => {
      const body = await send("p1", "hello");
      assert.ok(toolNames(body).includes("codegraph_explore"), JSON.stringify(toolNames(body)));
      assert.deepEqual(focusedIn(body), FOCUSED);
      const system = systemOf(body);
      for (const name of FOCUSED) assert.ok(advertises(system, name), `${name}'s snippet and guideline`);
      assert.ok(!system.includes(NO_NODE_LINE), "codegraph_node is there: nothing says it is not");
    });

    test("/codegraph tools node relations: the next request carries exactly them, with their words", async () => {
      const before = server.bodiesFor(model).length;
      await send("c1", "/codegraph tools node relations", { turn: false });
      assert.equal(server.bodiesFor(model).length, before, "a command reaches no model");
      assert.ok(
        notes().some((m) => /codegraph_node/.test(m) && /codegraph_relations/.test(m)),
        JSON.stringify(notes()),
      );
      const body = await send("p2", "and now?");
      assert.deepEqual(focusedIn(body), ["codegraph_node", "codegraph_relations"]);
      assert.ok(toolNames(body).includes("codegraph_explore"));
      const system = systemOf(body);
      assert.ok(advertises(system, "codegraph_node"), "node's snippet and guideline");
      assert.ok(advertises(system, "codegraph_relations"), "relations' snippet and guideline");
      assert.ok(!advertises(system, "codegraph_search"));
      assert.ok(!advertises(system, "codegraph_changes"));
      assert.doesNotMatch(system, /codegraph_search/);
      assert.ok(!system.includes(NO_NODE_LINE), "explore no longer says codegraph_node does not exist");
    });

    test("/codegraph tools off: the next request has explore alone again", async () => {
      await send("c2", "/codegraph tools off", { turn: false });
      const body = await send("p3", "and now?");
      assert.deepEqual(focusedIn(body), []);
      assert.ok(toolNames(body).includes("codegraph_explore"));
      const system = systemOf(body);
      assert.deepEqual(mentions(system), []);
      assert.ok(system.includes(NO_NODE_LINE));
    });
  });

  test("the choice lasts: a new Pi process in the project starts with it; PI_CODEGRAPH_TOOLS overrides it", async () => {
    const model = "fake-saved";
    const ws = workspace("saved");
    const set = await runPi(json(model, "/codegraph tools node relations"), { cwd: ws, env: env() });
    assert.equal(set.code, 0, explainRun(set));
    assert.equal(server.bodiesFor(model).length, 0, "the command reached no model");

    const next = await runPi(json(model, "hello"), { cwd: ws, env: env() });
    assert.equal(next.code, 0, explainRun(next));
    assert.deepEqual(focusedIn(server.bodiesFor(model).at(-1)), ["codegraph_node", "codegraph_relations"]);

    const overridden = await runPi(json(model, "hello"), { cwd: ws, env: env({ PI_CODEGRAPH_TOOLS: "search" }) });
    assert.equal(overridden.code, 0, explainRun(overridden));
    const body = server.bodiesFor(model).at(-1);
    assert.deepEqual(focusedIn(body), ["codegraph_search"]);
    assert.ok(advertises(systemOf(body), "codegraph_search"));

    // Another project in the same agent dir: its own (default) choice.
    const other = await runPi(json(model, "hello"), { cwd: workspace("other"), env: env() });
    assert.equal(other.code, 0, explainRun(other));
    assert.deepEqual(focusedIn(server.bodiesFor(model).at(-1)), FOCUSED);
  });

  describe("a model's call of codegraph_relations", () => {
    /** One json-mode run whose model calls codegraph_relations once: what Pi reported and what the model got. */
    async function relationsRun(model) {
      const ws = workspace(model);
      const run = await runPi(json(model, "who calls charge?"), {
        cwd: ws,
        env: env({ PI_CODEGRAPH_TOOLS: "relations" }),
      });
      assert.equal(run.code, 0, explainRun(run));
      const bodies = server.bodiesFor(model);
      assert.equal(bodies.length, 2, "the call's turn and the final turn");
      assert.deepEqual(focusedIn(bodies[0]), ["codegraph_relations"]);
      const ends = run.events.filter((e) => e.type === "tool_execution_end" && e.toolName === "codegraph_relations");
      assert.equal(ends.length, 1);
      const sent = contentText(bodies[1].messages.find((m) => m.role === "tool"));
      assert.equal(contentText(ends[0].result), sent, "what Pi reported is what the model got");
      return { isError: ends[0].isError, sent };
    }

    for (const [model, field] of [
      ["fake-bad-limit", "limit"],
      ["fake-bad-relation", "relation"],
    ]) {
      test(`a bad ${field} is refused by Pi's schema: no CodeGraph process runs`, async () => {
        const before = cliStarts().length;
        const { isError, sent } = await relationsRun(model);
        assert.equal(isError, true, sent);
        assert.match(sent, /^Validation failed for tool "codegraph_relations"/);
        assert.match(sent, new RegExp(`${field}`));
        assert.deepEqual(cliStarts().slice(before), [], "no CodeGraph command started");
      });
    }

    test("a `file` the schema allows but our rule refuses (../../etc/passwd): a coded error, no CodeGraph process", async () => {
      const before = cliStarts().length;
      const { isError, sent } = await relationsRun("fake-parent-file");
      assert.equal(isError, true, sent);
      assert.match(sent, /^CODEGRAPH_INVALID_REQUEST:/);
      assert.match(sent, /file/);
      assert.doesNotMatch(sent, /root:/, "nothing of /etc/passwd");
      assert.deepEqual(cliStarts().slice(before), [], "no CodeGraph command started");
    });

    test("a valid call returns CodeGraph's answer", async () => {
      const before = cliStarts().length;
      const { isError, sent } = await relationsRun("fake-good-relation");
      assert.equal(isError, false, sent);
      assert.match(sent, /Callers of "charge" \(1\)/);
      assert.match(sent, /PaymentProcessor::charge/);
      assert.match(sent, /src\/checkout\.ts:7/);
      assert.deepEqual(cliStarts().slice(before), ["callers --file=src/types.ts -- charge"]);
    });
  });

  test("/reload in interactive Pi keeps the choice (Pi turns every extension tool on again; we re-apply it)", {
    skip: tmuxMissing,
  }, async () => {
    const tuiScratch = tempDir("pi-codegraph-tools-tui-");
    const pi = await startTuiPi({
      name: `pcg-tools-${process.pid}`,
      scratch: tuiScratch,
      cwd: workspace("reload"),
      baseUrl: server.baseUrl,
      pathDirs: [wrapperDir, nodeDir, ...systemDirs].join(path.delimiter),
    });
    const screen = () => pi.screen();
    const fail = (e) => {
      throw new Error(`${e.message}; screen:\n${screen()}`);
    };
    try {
      await waitFor(() => screen().includes("⬡ codegraph"), { timeoutMs: 20000, what: "Pi's status bar" }).catch(fail);
      pi.type("/codegraph tools node");
      await waitFor(() => screen().includes("/codegraph tools node"), { what: "the typed command" }).catch(fail);
      pi.keys("Enter");
      await waitFor(
        () => screen().includes("CodeGraph tools on from the next request: codegraph_explore, codegraph_node."),
        {
          what: "the command's notice",
        },
      ).catch(fail);
      pi.type("/reload");
      await waitFor(() => screen().includes("/reload"), { what: "the typed /reload" }).catch(fail);
      pi.keys("Enter");
      // Pi's notice once the reload is done (its "Reloading …" box may come and go between two
      // screen reads: the extension's reload is quick).
      await waitFor(() => screen().includes("Reloaded keybindings"), { timeoutMs: 20000, what: "the reload" }).catch(
        fail,
      );
      pi.type("hello");
      pi.keys("Enter");
      const body = await waitFor(() => server.bodiesFor("tui-model")[0], {
        timeoutMs: 20000,
        what: "the request",
      }).catch(fail);
      assert.deepEqual(focusedIn(body), ["codegraph_node"]);
      assert.ok(advertises(systemOf(body), "codegraph_node"));
    } finally {
      pi.stop();
      fs.rmSync(tuiScratch, { recursive: true, force: true });
    }
  });
});
