// The long-lived CodeGraph (crates/core/src/warm.rs) that answers explore and node while the user
// has auto sync on (the call's `warm` option; lib/pi/tools/registration.js sets it), through the
// public run()/explore() over the fake CLI's `serve --mcp` (helpers/fake-mcp-server.js): one
// server answers call after call; it is asked as the CLI maps its argv; the call's deadline and
// cancel stop its whole tree; a server that dies leaves the call to a process; a write that is not
// a sync stops it first; a database replaced under it starts a new one; stopWarm() leaves nothing.
// Without `warm` nothing changes (a process per call). The native addon only: the WebAssembly
// core cannot keep a process (the Node runner answers every call with a process of its own).
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterEach, describe, test } from "node:test";
import { isAlive, makeWorkspace, readLog, tempDir, useFakeCli, waitFor, withEnv } from "../helpers/index.mjs";

const pkg = createRequire(import.meta.url)("../../index.js");
const { verbCommand } = createRequire(import.meta.url)("../../lib/contract/verbs.js");
const fake = useFakeCli();
const native = pkg.runnerInfo().name === "native addon";
afterEach(() => pkg.stopWarm());

/** Runs `fn(runs, pids)` with the fake logging its runs and the server's pids to fresh files. */
function watched(fn, extra = {}) {
  const dir = tempDir("pi-codegraph-warm-");
  const log = path.join(dir, "log.jsonl");
  const pids = path.join(dir, "pids.json");
  const env = { FAKE_CG_LOG: log, FAKE_CG_SERVE_PIDS: pids, ...extra };
  return withEnv(env, () =>
    fn(
      () => readLog(log).map((r) => r.argv.slice(0, 2).join(" ")),
      () => JSON.parse(fs.readFileSync(pids, "utf8")),
    ),
  );
}
const warm = { warm: true };
const served = /^served (\S+) (\{.*\}) by (\d+) \(call (\d+)\)$/m;

describe("the long-lived CodeGraph", { skip: !native && "the native addon only" }, () => {
  test("one server answers call after call, asked as the CLI maps its argv; without `warm`, a process per call as before", async () => {
    const ws = makeWorkspace();
    await watched(async (runs) => {
      const first = await pkg.explore("who calls main", ws, null, warm);
      const second = await pkg.node({ symbol: "main" }, ws, null, warm);
      const [, tool, args, pid, n] = served.exec(second.text);
      assert.equal(served.exec(first.text)[3], pid, "the same server");
      assert.deepEqual([tool, JSON.parse(args), n], ["codegraph_node", { symbol: "main", includeCode: true }, "2"]);
      assert.equal(first.details.warm, true);
      assert.deepEqual(runs(), ["serve --mcp"]);
      assert.deepEqual(
        pkg.warmServers().map((s) => s.pid),
        [Number(pid)],
      );
      const plain = await pkg.explore("who calls main", ws);
      assert.equal(plain.details.warm, undefined);
      assert.deepEqual(runs(), ["serve --mcp", "explore --"]);
      // search is `query`, which prints its own way: a process.
      await pkg.search({ name: "main" }, ws, null, warm);
      assert.equal(runs()[2].split(" ")[0], "query");
    });
    assert.equal(await pkg.stopWarm(), 1);
    assert.deepEqual(pkg.warmServers(), []);
  });

  for (const how of ["deadline", "cancel"]) {
    test(`the call's ${how} stops the server's whole tree; the next call starts another`, async () => {
      const ws = makeWorkspace();
      await watched(
        async (_runs, pids) => {
          const controller = new AbortController();
          const call = pkg.explore("q", ws, controller.signal, {
            ...warm,
            timeoutMs: how === "deadline" ? 1500 : 30000,
          });
          const tree = await waitFor(() => fs.existsSync(process.env.FAKE_CG_SERVE_PIDS) && pids(), {
            what: "the server",
          });
          if (how === "cancel") controller.abort();
          await assert.rejects(call, { code: how === "deadline" ? "CODEGRAPH_TIMEOUT" : "CODEGRAPH_CANCELLED" });
          assert.equal(isAlive(tree.server), false);
          // Killed before the call rejected; gone once the kernel has delivered it.
          await waitFor(() => !isAlive(tree.grandchild), { timeoutMs: 5000, what: "its grandchild gone" });
          assert.deepEqual(pkg.warmServers(), []);
          await withEnv({ FAKE_CG_SERVE: "answer" }, async () => {
            const next = await pkg.explore("q", ws, null, warm);
            assert.notEqual(Number(served.exec(next.text)[3]), tree.server);
          });
        },
        { FAKE_CG_SERVE: "hang" },
      );
    });
  }

  for (const [mode, what] of [
    ["die", "exits without answering"],
    ["flood", "answers with a line longer than the runner reads"],
  ]) {
    test(`a server that ${what} is stopped and leaves the call to a process`, async () => {
      const ws = makeWorkspace();
      await watched(
        async (runs, pids) => {
          const answer = await pkg.explore("who calls main", ws, null, warm);
          assert.equal(answer.details.warm, undefined);
          assert.deepEqual(runs(), ["serve --mcp", "explore --"]);
          assert.equal(isAlive(pids().server), false);
          assert.deepEqual(pkg.warmServers(), []);
        },
        { FAKE_CG_SERVE: mode },
      );
    });
  }

  test("a call the server declines (a JSON-RPC error) runs as a process; the server stays for the next", async () => {
    const ws = makeWorkspace();
    await watched(
      async (runs, pids) => {
        const declined = await pkg.explore("q", ws, null, warm);
        assert.equal(declined.details.warm, undefined);
        const next = await pkg.explore("q", ws, null, warm);
        assert.equal(Number(served.exec(next.text)[3]), pids().server);
        assert.deepEqual(runs(), ["serve --mcp", "explore --"]);
      },
      { FAKE_CG_SERVE: "decline-once" },
    );
  });

  test("a server CodeGraph refuses to start (another holds the index) is not tried again for a while: the calls run as processes", async () => {
    const ws = makeWorkspace();
    await watched(
      async (runs) => {
        await pkg.explore("q", ws, null, warm);
        await pkg.explore("q", ws, null, warm);
        assert.deepEqual(runs(), ["serve --mcp", "explore --", "explore --"]);
      },
      { FAKE_CG_SERVE: "refuse" },
    );
  });

  test("a write other than sync stops it first; a sync does not; a database replaced under it starts a new one", async () => {
    const ws = makeWorkspace();
    await watched(async (runs, pids) => {
      await pkg.explore("q", ws, null, warm);
      const first = pids();
      await pkg.run(verbCommand("sync"), ws);
      assert.equal(isAlive(first.server), true, "CodeGraph syncs beside its server");
      await pkg.run(verbCommand("rebuild"), ws);
      assert.equal(isAlive(first.server), false);
      await waitFor(() => !isAlive(first.grandchild), { timeoutMs: 5000, what: "its grandchild gone" });
      await pkg.explore("q", ws, null, warm);
      const second = pids();
      assert.notEqual(second.server, first.server);
      const db = path.join(ws, ".codegraph", "codegraph.db");
      fs.copyFileSync(db, `${db}.new`);
      fs.renameSync(`${db}.new`, db);
      await pkg.explore("q", ws, null, warm);
      assert.notEqual(pids().server, second.server, "a new database, a new server");
      assert.equal(isAlive(second.server), false);
      assert.deepEqual(runs(), ["serve --mcp", "sync", "index --verbose", "serve --mcp", "serve --mcp"]);
    });
  });
});

test("without the native addon, `warm` changes nothing: each call is a process of its own", {
  skip: native && "the Node runner's suite runs this",
}, async () => {
  await watched(async (runs) => {
    await pkg.explore("q", fake.ws, null, warm);
    assert.deepEqual(runs(), ["explore --"]);
    assert.equal(await pkg.stopWarm(), 0);
  });
});
