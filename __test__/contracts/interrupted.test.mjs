// An index whose last write never finished (a cancelled or killed `init`/`index`/`sync` leaves its
// `codegraph.lock` naming a process that is gone; CodeGraph 1.6.1's own `status` then says "The
// last index run never finished") is never served as ready: diagnose says
// CODEGRAPH_INDEX_INTERRUPTED, every command that reads the index is refused with it (status,
// which reports that state itself, still runs), and the status slot, the bare `/codegraph` report
// and the tool's guidance follow. Both runners over the fake CLI; the real CLI is in
// interrupted-real.test.mjs.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, readJsonFile, readLog, tempDir, useFakeCli, waitFor, withEnv } from "../helpers/index.mjs";
import { codegraphSaid, hostWith, piInteractive, recordingUi } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const { verbCommand } = require("../../lib/contract/verbs.js");
useFakeCli();
before(piInteractive);

/** A pid that ran and has exited (reaped): nothing runs under it now. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid;
/** A workspace whose `.codegraph/codegraph.lock` names a writer that is gone. */
function interruptedWorkspace() {
  const ws = makeWorkspace();
  const lock = path.join(ws, ".codegraph", "codegraph.lock");
  fs.writeFileSync(lock, String(deadPid()));
  return { ws, lock };
}

/** A Pi session in `cwd`: `said(args)` runs `/codegraph <args>` and returns what it said. */
async function session(pkg, cwd) {
  const host = await hostWith(pkg, "interrupted");
  const ui = recordingUi();
  const ctx = { cwd, hasUI: true, ui };
  await host.startSession(ctx);
  const said = (args) => codegraphSaid(host, ctx, args);
  const tool = () => host.registry.find((t) => t.name === "codegraph_explore");
  return { host, ui, ctx, said, tool, status: () => ui.statuses.get("codegraph") };
}

for (const impl of implementations) {
  const { diagnose, explore, run, search } = impl.module;

  describe(`${impl.name}: an index whose last write never finished`, () => {
    test("a stale codegraph.lock: not ready, explore and the focused tools refused, status still answers", async () => {
      const { ws, lock } = interruptedWorkspace();
      const d = await diagnose(ws);
      assert.equal(d.ready, false);
      assert.equal(d.problemCode, "CODEGRAPH_INDEX_INTERRUPTED");
      assert.deepEqual(
        [d.hasIndex, d.indexDir],
        [true, path.join(ws, ".codegraph")],
        "the index is there, only unfinished",
      );
      assert.ok(d.indexProblem.includes(lock), d.indexProblem);
      assert.match(d.remediation, /\/codegraph rebuild/);
      assert.match(d.remediation, /\/codegraph unlock/);

      const log = path.join(tempDir("pi-codegraph-interrupted-"), "log.jsonl");
      await withEnv({ FAKE_CG_LOG: log }, async () => {
        const err = await explore("q", ws).catch((e) => e);
        assert.equal(err.code, "CODEGRAPH_INDEX_INTERRUPTED", err.message);
        assert.match(err.message, /never finished/);
        assert.match(err.remediation, /\/codegraph rebuild/);
        assert.equal(err.details.indexDir, path.join(ws, ".codegraph"));
        await assert.rejects(search({ name: "main" }, ws), { code: "CODEGRAPH_INDEX_INTERRUPTED" });
        assert.deepEqual(readLog(log), [], "nothing ran on the unfinished index");
        const status = await run(verbCommand("status"), ws);
        assert.match(status.text, /"initialized":true/);
      });

      // A rebuild's stale rebuild.pid beside it: the words say a rebuild was interrupted.
      fs.writeFileSync(
        path.join(ws, ".codegraph", "rebuild.pid"),
        JSON.stringify({ pid: deadPid(), mode: "rebuild", startedAt: 1 }),
      );
      assert.match((await diagnose(ws)).problem, /the last rebuild of this workspace's CodeGraph index never finished/);
      // The lock gone (`codegraph unlock`, or the next write): the index is used as it is.
      fs.rmSync(lock);
      assert.equal((await diagnose(ws)).ready, true);
    });

    test("an init stopped right after it took its lock (the database still one page): interrupted at once, not 'being created'", async () => {
      const { ws } = interruptedWorkspace();
      // The main file as `codegraph init` has it before its first checkpoint: one page counting one.
      const page = Buffer.alloc(4096);
      page.write("SQLite format 3\0", 0, "latin1");
      page.writeUInt16BE(4096, 16);
      page.writeUInt32BE(1, 28);
      fs.writeFileSync(path.join(ws, ".codegraph", "codegraph.db"), page);
      assert.equal((await diagnose(ws)).problemCode, "CODEGRAPH_INDEX_INTERRUPTED");
      const err = await explore("q", ws).catch((e) => e);
      assert.equal(err.code, "CODEGRAPH_INDEX_INTERRUPTED", err.message);
      assert.ok(!(err.details.lockWaitMs > 0), `no wait for a writer that is gone (${err.details.lockWaitMs} ms)`);
      // A rebuild stopped right after it recreated the database, its lock since removed by unlock:
      // the rebuild.pid it took first says the database is no init being created.
      fs.rmSync(path.join(ws, ".codegraph", "codegraph.lock"));
      const stale = JSON.stringify({ pid: deadPid(), mode: "rebuild" });
      fs.writeFileSync(path.join(ws, ".codegraph", "rebuild.pid"), stale);
      const d = await diagnose(ws);
      assert.equal(d.problemCode, undefined, d.problem);
    });

    test("a writer that dies while an explore waits for it, leaving its lock: refused after the wait, the CLI never ran", async () => {
      const ws = makeWorkspace();
      const lock = path.join(ws, ".codegraph", "codegraph.lock");
      // Dies without removing its lock, as a killed CodeGraph write does.
      const writer = spawn(process.execPath, ["-e", "setTimeout(() => process.exit(0), 400)"], { stdio: "ignore" });
      fs.writeFileSync(lock, String(writer.pid));
      const log = path.join(tempDir("pi-codegraph-interrupted-"), "log.jsonl");
      const err = await withEnv({ FAKE_CG_LOG: log }, () =>
        explore("q", ws, null, { timeoutMs: 20000 }).catch((e) => e),
      );
      assert.equal(err.code, "CODEGRAPH_INDEX_INTERRUPTED", err.message);
      assert.ok(err.details.lockWaitMs > 0, `it waited for the writer first (${err.details.lockWaitMs} ms)`);
      assert.deepEqual(readLog(log), []);
    });

    test("Pi: the slot, the guidance and /codegraph say the index is unfinished; /codegraph rebuild makes it ready", async () => {
      const { ws } = interruptedWorkspace();
      const s = await session(impl.module, ws);
      assert.equal(s.status(), "⬡ codegraph: index unfinished");
      assert.match(s.tool().promptGuidelines[0], /^Do not call codegraph_explore until .*CODEGRAPH_INDEX_INTERRUPTED/);
      assert.match(s.tool().promptSnippet, /\/codegraph rebuild/);
      const report = await s.said("");
      assert.match(report, /not ready \(CODEGRAPH_INDEX_INTERRUPTED\)/);
      assert.match(report, /\/codegraph unlock/);
      assert.match(await s.said("rebuild --yes"), /the agent's CodeGraph tools answer from it now\./);
      assert.equal(s.status(), "⬡ codegraph");
    });

    test("Pi: /codegraph sync and /codegraph unlock are not refused on an unfinished index, and each makes it ready", async () => {
      for (const verb of ["sync", "unlock"]) {
        const { ws, lock } = interruptedWorkspace();
        const s = await session(impl.module, ws);
        assert.equal(s.status(), "⬡ codegraph: index unfinished");
        if (verb === "unlock") {
          await s.said(verb);
          assert.ok(s.ui.confirms.at(-1).body.includes(`Removes ${lock}`), s.ui.confirms.at(-1).body);
        } else assert.match(await s.said(`${verb} --yes`), /the agent's CodeGraph tools answer from it now\./);
        assert.equal(fs.existsSync(lock), false, verb);
        assert.equal(s.status(), "⬡ codegraph", verb);
      }
    });

    test("Pi: a /codegraph init cancelled mid-write leaves its lock: not ready afterwards, not 'ready'", async () => {
      const ws = makeWorkspace({ index: false });
      const gate = tempDir("pi-codegraph-gate-");
      const s = await session(impl.module, ws);
      await withEnv({ FAKE_CG_GATE: gate }, async () => {
        const running = s.said("init --yes");
        await waitFor(() => readJsonFile(path.join(gate, "started.json")), { what: "the fake to reach its gate" });
        await s.said("cancel");
        assert.match(await running, /cancelled/);
      });
      assert.ok(fs.existsSync(path.join(ws, ".codegraph", "codegraph.lock")), "the stopped init left its lock");
      assert.equal(s.status(), "⬡ codegraph: index unfinished");
      assert.equal((await diagnose(ws)).problemCode, "CODEGRAPH_INDEX_INTERRUPTED");
      await assert.rejects(explore("q", ws), { code: "CODEGRAPH_INDEX_INTERRUPTED" });
    });
  });
}

describe("both runners say the same about an unfinished index", { skip: implementations.length < 2 }, () => {
  test("the same code, words and details from explore, and the same diagnosis", async () => {
    const { ws } = interruptedWorkspace();
    fs.writeFileSync(
      path.join(ws, ".codegraph", "rebuild.pid"),
      JSON.stringify({ pid: deadPid(), mode: "rebuild", startedAt: 1 }),
    );
    const said = await Promise.all(
      implementations.map(async ({ module }) => {
        const err = await module.explore("q", ws).catch((e) => e);
        const d = await module.diagnose(ws);
        const keys = Object.keys(err.details).filter((k) => !/^cliVersion|durationMs/.test(k));
        return {
          error: { code: err.code, message: err.message, remediation: err.remediation, keys: keys.sort() },
          diagnosis: [d.ready, d.problemCode, d.problem, d.remediation, d.indexProblem, d.indexDir, d.hasIndex],
        };
      }),
    );
    assert.deepEqual(said[0], said[1]);
  });
});
