// Auto sync end to end in the real Pi CLI (rpc mode, the pinned Pi, the package installed from its
// packed tarball as a user's `pi install` has it), with the loopback model (helpers/fake-openai.mjs)
// deciding each turn's calls from the prompt: "Write <file>" makes it call Pi's own write tool,
// "Find <name>" codegraph_search.
// - With the real pinned CodeGraph on an indexed copy of the shop fixture: with `/codegraph sync
//   auto` on, a turn that writes a new function and then a turn that asks for it: CodeGraph's answer
//   finds it, with no sync typed, and node's is the one long-lived CodeGraph's, which is gone once
//   Pi ends; with auto off the index does not have it (the answer says the
//   file changed after the index), and the status slot counts the changed file.
// - With the fake CLI (deterministic failures and a held write): a failing sync is said once and
//   auto is off afterwards; a second Pi on the same workspace never starts a second writer.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { fakeBinDir, makeWorkspace, REAL_CLI_PATH, readLog, tempDir, waitFor } from "../helpers/index.mjs";
import { installPacked } from "../helpers/packed.mjs";
import {
  contentText,
  explainRun,
  indexShop,
  piEnv,
  piMissing,
  piScratch,
  startPiRpc,
  tearDownPiSuite,
  writeModelsJson,
} from "../helpers/pi-harness.mjs";
import { processesIn } from "../helpers/processes.mjs";

const MODEL = "fake-auto-sync";
const SOURCE = "export function auditRefund(id: string): boolean {\n  return id.length > 0;\n}\n";
const nodeDir = path.dirname(process.execPath);
const realPath = REAL_CLI_PATH;

/** The loopback model's calls for a turn: from the last user prompt, once (none after a tool result). */
function plan(body) {
  const messages = body?.messages ?? [];
  const last = messages.findLastIndex((m) => m.role === "user");
  if (last === -1 || messages.slice(last).some((m) => m.role === "tool")) return [];
  const prompt = contentText(messages[last]);
  const write = /^Write (\S+)/.exec(prompt);
  if (write) return [{ id: "call_write", name: "write", arguments: { path: write[1], content: SOURCE } }];
  const find = /^Find (\S+)/.exec(prompt);
  if (find) return [{ id: "call_find", name: "codegraph_search", arguments: { name: find[1] } }];
  const show = /^Show (\S+)/.exec(prompt);
  if (show) return [{ id: "call_show", name: "codegraph_node", arguments: { symbol: show[1] } }];
  return [];
}

describe("auto sync in the real Pi CLI (rpc)", { skip: piMissing, timeout: 180000 }, () => {
  let scratch;
  let home;
  let agentDir;
  let server;
  let indexed;
  const strayPids = [];
  const env = (pathDirs, extra) =>
    piEnv({ agentDir, home, pathDirs, extra: { TMPDIR: path.join(scratch, "tmp"), ...extra } });

  before(async () => {
    ({ scratch, home, agentDir } = piScratch("pi-codegraph-auto-sync-"));
    fs.mkdirSync(path.join(scratch, "tmp"));
    indexed = indexShop(path.join(scratch, "shop"));
    server = await startFakeOpenAI({ plan });
    writeModelsJson(agentDir, server.baseUrl, [MODEL]);
    const install = (await installPacked({ cwd: scratch, env: env([nodeDir]) })).result;
    assert.equal(install.code, 0, `pi install: ${explainRun(install)}`);
  });
  after(() => tearDownPiSuite({ strayPids, server, dirs: [scratch] }));

  /** A Pi in rpc mode in `ws`; `ask(text)` sends a prompt and resolves with Pi's answer to it once the run has settled. */
  function pi(ws, pathDirs, extra) {
    const rpc = startPiRpc(
      ["--offline", "--no-session", "--no-context-files", "--provider", "fake", "--model", MODEL],
      {
        cwd: ws,
        env: env(pathDirs, extra),
      },
    );
    let n = 0;
    rpc.ask = async (message) => {
      const id = `p${++n}`;
      const ends = rpc.events.filter((e) => e.type === "agent_end").length;
      rpc.send({ id, type: "prompt", message });
      const answer = await rpc.waitForEvent((e) => e.type === "response" && e.id === id, {
        timeoutMs: 60000,
        what: `Pi's answer to ${message}`,
      });
      assert.equal(answer.success, true, JSON.stringify(answer));
      // A prompt for the model runs the agent; a /command does not.
      if (!message.startsWith("/"))
        await waitFor(() => rpc.events.filter((e) => e.type === "agent_end").length > ends, {
          timeoutMs: 60000,
          what: `the run of ${message}`,
        });
    };
    rpc.notes = () => rpc.events.filter((e) => e.type === "extension_ui_request" && e.method === "notify");
    rpc.slots = () =>
      rpc.events
        .filter((e) => e.type === "extension_ui_request" && e.method === "setStatus" && e.statusKey === "codegraph")
        .map((e) => e.statusText);
    rpc.found = () => rpc.events.findLast((e) => e.type === "tool_execution_end" && e.toolName === "codegraph_search");
    return rpc;
  }

  describe("the real CodeGraph CLI", () => {
    const copy = (name) => {
      const ws = path.join(scratch, `ws-${name}`);
      fs.cpSync(indexed, ws, { recursive: true });
      return ws;
    };

    test("auto on: a turn writes a new function, the next turn's search finds it with no sync typed", async () => {
      const ws = copy("on");
      const rpc = pi(ws, realPath);
      await rpc.ask("/codegraph sync auto");
      assert.match(rpc.notes().at(-1).message, /^\/codegraph sync auto: on\./);
      await rpc.ask("Write src/audit.ts with auditRefund");
      await rpc.ask("Find auditRefund");
      const end = rpc.found();
      assert.equal(end.isError, false, contentText(end.result));
      const text = contentText(end.result);
      assert.match(text, /auditRefund/);
      assert.match(text, /src\/audit\.ts/);
      assert.doesNotMatch(text, /Not in CodeGraph's index|changed after the CodeGraph index/, "CodeGraph's own answer");
      assert.ok(
        rpc.slots().some((s) => / · syncing \(auto\)$/.test(s)),
        rpc.slots().join("\n"),
      );
      assert.match(rpc.slots().at(-1), /^⬡ codegraph · auto$/, "synced: nothing counted as changed");
      // With auto on, one long-lived CodeGraph answers node (the native addon's); gone when Pi ends.
      await rpc.ask("Show auditRefund");
      const shown = rpc.events.findLast((e) => e.type === "tool_execution_end" && e.toolName === "codegraph_node");
      assert.match(contentText(shown.result), /auditRefund[\s\S]*src\/audit\.ts/);
      assert.equal(shown.result.details.warm, true);
      assert.equal(processesIn(ws).filter((p) => / serve --mcp/.test(p.cmd)).length, 1, "one server while Pi runs");
      assert.equal((await rpc.end()).code, 0, rpc.stderr);
      // Pi's end kills the server's tree; a killed process may still be tearing down (its command line
      // already empty, Pi gone as its parent) for a moment after Pi's exit.
      const gone = () => processesIn(ws).length === 0;
      await waitFor(gone, { timeoutMs: 3000, what: "Pi's processes in the workspace to end" }).catch(() => {});
      assert.deepEqual(processesIn(ws), [], "nothing left running after Pi");
      assert.equal(fs.existsSync(path.join(ws, ".codegraph", "writer.pid")), false);
    });

    test("auto off: the same turns; the search does not find it, and the status slot counts the changed file", async () => {
      const rpc = pi(copy("off"), realPath);
      await rpc.ask("Write src/audit.ts with auditRefund");
      await rpc.ask("Find auditRefund");
      // The index does not have it; the answer says why and where to read it (the source scan).
      assert.match(
        contentText(rpc.found().result),
        /^Not in CodeGraph's index: "auditRefund" is defined at src\/audit\.ts:1 \(its file changed after the index was written\)/,
      );
      assert.match(rpc.slots().at(-1), /^⬡ codegraph · 1 file changed since the index$/);
      assert.equal((await rpc.end()).code, 0, rpc.stderr);
    });
  });

  describe("the fake CLI", () => {
    let bin;
    before(() => {
      bin = fakeBinDir();
    });

    test("a failing sync is said once, and auto is off afterwards", async () => {
      const ws = makeWorkspace();
      const log = path.join(tempDir("pi-codegraph-auto-log-"), "log.jsonl");
      const rpc = pi(ws, [bin, nodeDir], { FAKE_CG_LOG: log, FAKE_CG_SYNC_FAIL: "1" });
      await rpc.ask("/codegraph sync auto");
      await rpc.ask("Write src/one.ts");
      await rpc.ask("Write src/two.ts");
      await rpc.ask("/codegraph doctor"); // waits for any auto sync still deciding
      const failed = rpc
        .notes()
        .filter((e) => e.message.startsWith("Auto sync, after the last turn: /codegraph sync failed"));
      assert.equal(
        failed.length,
        1,
        rpc
          .notes()
          .map((e) => e.message)
          .join("\n---\n"),
      );
      assert.equal(failed[0].notifyType, "error");
      assert.match(rpc.notes().at(-1).message, /^sync: manual/m);
      assert.deepEqual(
        readLog(log).map((r) => r.argv[0]),
        ["sync"],
        "one sync: the second edit's turn ran none",
      );
      assert.equal((await rpc.end()).code, 0, rpc.stderr);
    });

    test("a second Pi on the same workspace never starts a second writer", async () => {
      const ws = makeWorkspace();
      const gate = tempDir("pi-codegraph-auto-gate-");
      const log = path.join(tempDir("pi-codegraph-auto-log-"), "log.jsonl");
      const extra = { FAKE_CG_LOG: log, FAKE_CG_GATE: gate };
      const first = pi(ws, [bin, nodeDir], extra);
      await first.ask("/codegraph sync auto"); // kept for the workspace: the second Pi starts with it on
      await first.ask("Write src/one.ts");
      const pids = await waitFor(
        () =>
          fs.existsSync(path.join(gate, "started.json")) &&
          JSON.parse(fs.readFileSync(path.join(gate, "started.json"))),
        { timeoutMs: 30000, what: "the first Pi's sync to start" },
      );
      strayPids.push(pids.self, pids.grandchild);
      const second = pi(ws, [bin, nodeDir], extra);
      try {
        await second.ask("Write src/two.ts");
        await second.ask("/codegraph doctor");
        assert.match(
          second.notes().at(-1).message,
          /^sync: auto; after the last turn: another CodeGraph process was writing the index, so none was started$/m,
        );
        assert.deepEqual(
          readLog(log).map((r) => r.argv[0]),
          ["sync"],
          "the first Pi's sync only",
        );
      } finally {
        fs.writeFileSync(path.join(gate, "go"), "");
      }
      await first.ask("/codegraph doctor"); // waits for the first Pi's sync, now let go
      assert.equal(first.slots().at(-1), "⬡ codegraph · auto", "synced: nothing counted as changed");
      assert.equal((await second.end()).code, 0, second.stderr);
      assert.equal((await first.end()).code, 0, first.stderr);
    });
  });
});
