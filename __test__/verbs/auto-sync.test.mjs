// Auto sync (`/codegraph sync auto|manual`, lib/pi/auto-sync.js) through a Pi host
// (helpers/pi-host.mjs) over the fake CLI, which acts out `sync` on `.codegraph/codegraph.db` and
// logs every run: off by default; on, a turn whose edits touch an indexed language runs one sync
// and a turn without them runs none; a tool call meanwhile waits for it and says how long; the
// choice is kept in Pi's agent directory, never in the workspace; a failure is said once and turns
// it off; another writer on the index is left alone; /codegraph cancel stops it. The end to end
// in real Pi with the real CLI: __test__/real-pi/auto-sync-pi.test.mjs.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import {
  hashTree,
  isAlive,
  makeWorkspace,
  readLog,
  tempDir,
  useAgentDirEnv,
  waitFor,
  withEnv,
} from "../helpers/index.mjs";
import { codegraphSaid, hostWith, piInteractive, recordingUi } from "../helpers/pi-host.mjs";

const pkg = createRequire(import.meta.url)("../../index.js");
/** What answers the tools while auto sync is on: one long-lived CodeGraph (the native addon), or a process per call. */
const answeredWith = (calls) => (pkg.runnerInfo().name === "native addon" ? ["serve"] : Array(calls).fill("explore"));
useAgentDirEnv(["PI_CODEGRAPH_TOOLS"]);
before(piInteractive);

/** A session in `ws`, with `/codegraph` (`cg`), a Pi edit (`edit`), a turn's end (`turnEnd`) and a tool call (`explore`). */
async function session(ws, { trusted = true } = {}) {
  const host = await hostWith(pkg, "auto-sync");
  const ui = recordingUi();
  const ctx = { cwd: ws, hasUI: true, ui, isProjectTrusted: () => trusted };
  await host.startSession(ctx);
  const state = () => host.registry.find((t) => t.name === "codegraph_explore");
  return {
    host,
    ui,
    ctx,
    cg: (args) => codegraphSaid(host, ctx, args),
    /** Pi's write tool wrote `rel` (the file written now, after the index). */
    async edit(rel, text = "export function added() {}\n") {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
      await host.toolResult({ toolName: "write", input: { path: rel } }, ctx);
    },
    turnEnd: () => host.turnEnd(ctx),
    explore: () => state().execute("call-1", { request: "who calls added" }, undefined, undefined, ctx),
    slot: () => ui.statuses.get("codegraph"),
  };
}

/**
 * `/codegraph sync auto`, and its catch-up decided (the report waits for it): the turns that
 * follow are the test's alone.
 */
async function turnOn(s) {
  const said = await s.cg("sync auto");
  await s.cg("doctor");
  return said;
}

/** Runs `fn(log)` with the fake logging its runs to a fresh file (`extra`: more of the fake's env). */
function logged(fn, extra = {}) {
  const file = path.join(tempDir("pi-codegraph-auto-log-"), "log.jsonl");
  return withEnv({ FAKE_CG_LOG: file, ...extra }, () => fn(() => readLog(file).map((r) => r.argv[0])));
}

/** The auto sync the last turn started, finished: the report waits for it (the session's own promise, no clock). */
const syncDone = (s) => s.cg("doctor");

describe("auto sync", () => {
  test("off by default: a turn that changed an indexed file runs no sync; the status slot does not say auto", async () => {
    const ws = makeWorkspace();
    const s = await session(ws);
    await logged(async (runs) => {
      await s.edit("src/added.ts");
      await s.turnEnd();
      await s.explore();
      assert.deepEqual(runs(), ["explore"]);
    });
    assert.doesNotMatch(s.slot(), /auto/);
    assert.match(await s.cg("doctor"), /^sync: manual/m);
    const complete = async (prefix) =>
      (await s.host.commands.get("codegraph").getArgumentCompletions(prefix))?.map((i) => i.value) ?? null;
    assert.deepEqual(await complete("sync "), ["sync auto", "sync manual"]);
    assert.deepEqual(await complete("sync m"), ["sync manual"]);
    assert.equal(await complete("sync auto"), null, "typed in full: Enter runs it");
  });

  test("on: kept in Pi's agent directory (the workspace untouched); one sync per turn that changed an indexed file; none after a turn without, nor for a file CodeGraph does not index", async () => {
    const ws = makeWorkspace();
    const s = await session(ws);
    const before = hashTree(ws);
    const said = await turnOn(s);
    assert.match(said, /^\/codegraph sync auto: on\./);
    const kept = /Kept for this workspace \((.+)\)\./.exec(said)[1];
    assert.ok(kept.includes(path.join("pi-codegraph", "sync")), kept);
    assert.deepEqual(hashTree(ws), before, "nothing of the choice is written in the workspace");
    assert.match(s.slot(), / · auto$/);
    await logged(async (runs) => {
      await s.edit("src/added.ts");
      await s.turnEnd();
      const answer = await s.explore();
      assert.ok(answer.details.syncWaitMs > 0, "the call waited for the sync the turn started");
      assert.deepEqual(runs(), ["sync", ...answeredWith(1)]);
      assert.doesNotMatch(s.slot(), /changed/, "the synced index is newer than the edit");

      await s.turnEnd(); // nothing changed since
      await s.edit("README.md", "# notes\n"); // not a language CodeGraph indexes
      await s.turnEnd();
      const second = await s.explore();
      assert.equal(second.details.syncWaitMs, undefined);
      assert.deepEqual(runs(), ["sync", ...answeredWith(2)]);
    });
    // A new session in the same workspace: the choice holds.
    const again = await session(ws);
    assert.match(again.slot(), / · auto$/);
    assert.match(await again.cg("sync manual"), /^\/codegraph sync manual: auto sync off\./);
    await logged(async (runs) => {
      await again.edit("src/more.ts");
      await again.turnEnd();
      await again.explore();
      assert.deepEqual(runs(), ["explore"]);
    });
    assert.doesNotMatch(again.slot(), /auto/);
  });

  test("on: the calls are answered by one long-lived CodeGraph, stopped when auto sync is turned off and when the session ends (the native addon; contracts/warm.test.mjs holds its guarantees)", {
    skip: pkg.runnerInfo().name !== "native addon" && "the Node runner keeps no process",
  }, async () => {
    const ws = makeWorkspace();
    const s = await session(ws);
    await turnOn(s);
    const pidOf = (answer) => Number(/ by (\d+) \(call \d+\)/.exec(answer.content[0].text)[1]);
    await logged(async (runs) => {
      const [first, second] = [await s.explore(), await s.explore()];
      assert.deepEqual([first.details.warm, second.details.warm], [true, true]);
      assert.equal(pidOf(first), pidOf(second));
      assert.deepEqual(runs(), ["serve"]);
      assert.match(
        await s.cg("doctor"),
        new RegExp(
          `^sync: auto.*; explore and node answered by one CodeGraph kept running for this session \\(pid ${pidOf(first)};`,
          "m",
        ),
      );
      await s.cg("sync manual");
      await waitFor(() => !isAlive(pidOf(first)), { timeoutMs: 5000, what: "the server stopped" });
      const off = await s.explore();
      assert.equal(off.details.warm, undefined, "auto off: a process per call again");
      assert.deepEqual(runs(), ["serve", "explore"]);
      await turnOn(s);
      const again = await s.explore();
      assert.equal(again.details.warm, true);
      await s.host.shutdown(s.ctx);
      assert.equal(isAlive(pidOf(again)), false, "stopped before session_shutdown returned");
      assert.deepEqual(pkg.warmServers(), []);
    });
  });

  test("a project Pi does not trust: auto sync is not turned on, and a choice saved earlier is not applied", async () => {
    const ws = makeWorkspace();
    await (await session(ws)).cg("sync auto"); // saved while it was trusted
    const s = await session(ws, { trusted: false });
    await logged(async (runs) => {
      assert.match(await s.cg("sync auto"), /^\/codegraph sync auto: not turned on: Pi does not trust the project /);
      await s.edit("src/added.ts");
      await s.turnEnd();
      await s.cg("doctor");
      assert.deepEqual(runs(), []);
    });
    assert.doesNotMatch(s.slot(), /auto/);
  });

  test("a failing sync is said once and turns auto off, for later sessions too", async () => {
    const ws = makeWorkspace();
    const s = await session(ws);
    await turnOn(s);
    await logged(
      async (runs) => {
        await s.edit("src/added.ts");
        await s.turnEnd();
        await syncDone(s);
        await s.edit("src/again.ts");
        await s.turnEnd();
        await s.explore();
        assert.deepEqual(runs(), ["sync", "explore"]);
      },
      { FAKE_CG_SYNC_FAIL: "1" },
    );
    const errors = s.ui.notes.filter((n) => n.type === "error").map((n) => n.message);
    assert.equal(errors.length, 1, errors.join("\n---\n"));
    assert.match(
      errors[0],
      /^Auto sync, after the last turn: \/codegraph sync failed after \d+\.\d s: codegraph sync exited with code 1\.\nstderr:\nError: sync stopped: worker exited/,
    );
    assert.match(errors[0], /\nAuto sync is off: \/codegraph sync runs it by hand/);
    assert.doesNotMatch(s.slot(), /auto/);
    assert.doesNotMatch((await session(ws)).slot(), /auto/, "kept off");
  });

  test("another writer holds the index: no second writer starts, nothing is said, auto stays on", async () => {
    const ws = makeWorkspace();
    const s = await session(ws);
    await turnOn(s);
    const lock = path.join(ws, ".codegraph", "codegraph.lock");
    fs.writeFileSync(lock, String(process.pid)); // a live writer (this process stands in for it)
    const notes = s.ui.notes.length;
    try {
      await logged(async (runs) => {
        await s.edit("src/added.ts");
        await s.turnEnd();
        // The report waits for the decision the turn's end started, and says it.
        assert.match(
          await s.cg("doctor"),
          /^sync: auto; after the last turn: another CodeGraph process was writing the index, so none was started$/m,
        );
        assert.deepEqual(runs(), []);
      });
    } finally {
      fs.rmSync(lock, { force: true });
    }
    assert.deepEqual(
      s.ui.notes.slice(notes).filter((n) => !n.message.startsWith("pi-codegraph:")),
      [],
      "nothing said but the report asked for",
    );
  });

  test("/codegraph cancel stops a running auto sync and its whole tree; auto stays on", async () => {
    const ws = makeWorkspace();
    const gate = tempDir("pi-codegraph-auto-gate-");
    const s = await session(ws);
    await turnOn(s);
    await logged(
      async () => {
        await s.edit("src/added.ts");
        await s.turnEnd();
        const pids = await waitFor(
          () =>
            fs.existsSync(path.join(gate, "started.json")) &&
            JSON.parse(fs.readFileSync(path.join(gate, "started.json"))),
          { what: "the fake sync to start" },
        );
        assert.match(s.slot(), /syncing \(auto\)/);
        assert.match(await s.cg("sync"), /sync.*running/i, "a typed write meanwhile is refused as busy");
        assert.match(await s.cg("cancel"), /^\/codegraph cancel: stopping \/codegraph sync/);
        await syncDone(s);
        await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), {
          timeoutMs: 5000,
          what: "the fake sync and its grandchild to be gone",
        });
      },
      { FAKE_CG_GATE: gate },
    );
    assert.ok(s.ui.notes.some((n) => /^Auto sync: cancelled, CodeGraph stopped mid-write/.test(n.message)));
    assert.match(await s.cg("doctor"), /^sync: auto; after the last turn: the sync was cancelled$/m);
  });
});
