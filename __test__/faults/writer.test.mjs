// The index while CodeGraph writes it (`codegraph init`, `index`, `sync`: `.codegraph/codegraph.lock`,
// and `rebuild.pid` for a full rebuild). The CLI would answer from a half-built graph without a
// word, so an explore waits for the writer, bounded, and otherwise says CODEGRAPH_INDEX_BUSY;
// lock files that are stale, foreign or not regular files never delay or hang an answer.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, test } from "node:test";
import { expectError, expectResult, fakeCli, makeWorkspace, tempDir, withEnv } from "../helpers/index.mjs";
import { assertNothingLeft, cleanup, killAndReap, processesDie } from "../helpers/processes.mjs";
import { eachRunner, saved, useFaultsSuite } from "./suite.mjs";

useFaultsSuite();

/** A live process to name in a lock file (CodeGraph's writer stands in); `end` removes the lock and exits. */
const holders = [];
function holder(script = "setInterval(() => {}, 1000)") {
  const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
  holders.push(child.pid);
  return child;
}
afterEach(() => cleanup(...holders.splice(0)));

/** A workspace with an index and `.codegraph/<name>` holding `content`. */
function lockedWorkspace(name, content) {
  const ws = makeWorkspace();
  const lock = path.join(ws, ".codegraph", name);
  fs.writeFileSync(lock, content);
  return { ws, lock };
}

const rebuildJson = (pid) => `${JSON.stringify({ pid, mode: "rebuild", startedAt: Date.now(), ready: false })}\n`;

// Writers held for a while per test: through explore (the default);
// the focused tools reach the same run() (tools-seam.test.mjs), both runners.
eachRunner(
  "the index while CodeGraph writes it",
  ({ exploreWith, diagnose }) => {
    test("codegraph.lock held by a live writer: CODEGRAPH_INDEX_BUSY after the wait, the CLI never ran", async () => {
      const writer = holder();
      const { ws, lock } = lockedWorkspace("codegraph.lock", String(writer.pid));
      const ran = path.join(tempDir(), "ran");
      const fake = fakeCli([["appendArgv0", ran]]);
      // A timeout shorter than the wait: the wait ends at the deadline, and says why.
      const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 1500 });
      const err = expectError(outcome, "CODEGRAPH_INDEX_BUSY");
      assert.ok(outcome.ms >= 1400 && outcome.ms < 5000, `took ${outcome.ms} ms`);
      assert.ok(err.message.includes(`pid ${writer.pid} holds ${lock}`), err.message);
      // The wait began once the checks were done (a first call also starts the Node runner's core
      // worker): it says how long it waited, as lockWaitMs counts it.
      const waited = /`codegraph init`, `index` or `sync`.*still after (\d+\.\d) s of waiting/.exec(err.message);
      assert.ok(waited, err.message);
      assert.equal(waited[1], (err.details.lockWaitMs / 1000).toFixed(1), err.message);
      assert.ok(err.details.lockWaitMs > 0, `waited ${err.details.lockWaitMs} ms`);
      assert.match(err.remediation, /Ask again once CodeGraph has finished/);
      assert.ok(err.remediation.includes(`the lock is stale: delete ${lock}`), err.remediation);
      assert.equal(err.details.indexDir, path.join(ws, ".codegraph"));
      assert.equal(fs.existsSync(ran), false, "the CLI never ran on the half-built index");

      const d = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => diagnose(ws));
      assert.equal(d.ready, false);
      assert.equal(d.problemCode, "CODEGRAPH_INDEX_BUSY");
      assert.deepEqual([d.hasIndex, d.indexDir], [true, path.join(ws, ".codegraph")]);
      assert.match(d.indexProblem, new RegExp(`pid ${writer.pid} holds`));
      await killAndReap(writer);
      // Killed mid-write, it left its lock: the write never finished.
      const left = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => diagnose(ws));
      assert.equal(left.problemCode, "CODEGRAPH_INDEX_INTERRUPTED");
      fs.rmSync(lock); // as CodeGraph ends a write (or `codegraph unlock`)
      const ready = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => diagnose(ws));
      assert.equal(
        ready.ready,
        true,
        `no lock and no writer: ready again (got ${ready.problemCode}: ${ready.indexProblem})`,
      );
    });

    test("rebuild.pid held (a `codegraph index` rebuild): CODEGRAPH_INDEX_BUSY naming the rebuild", async () => {
      const writer = holder();
      const { ws, lock } = lockedWorkspace("rebuild.pid", rebuildJson(writer.pid));
      const outcome = await exploreWith(fakeCli([["stdout", "must not run\n"]]).file, "q", ws, null, {
        timeoutMs: 300,
      });
      const err = expectError(outcome, "CODEGRAPH_INDEX_BUSY");
      assert.ok(err.message.includes(`pid ${writer.pid} holds ${lock}: a \`codegraph index\` rebuild`), err.message);
      await killAndReap(writer);
    });

    test("the writer finishes during the wait: the CLI runs after it, and the answer is whole", async () => {
      const ws = makeWorkspace();
      const lock = path.join(ws, ".codegraph", "codegraph.lock");
      // As CodeGraph ends a write: it removes its lock, then exits.
      const writer = holder(
        `setTimeout(() => { require("fs").unlinkSync(${JSON.stringify(lock)}); process.exit(0); }, 400)`,
      );
      fs.writeFileSync(lock, String(writer.pid));
      const fake = fakeCli([
        ["failIfExists", lock],
        ["stdout", "the whole answer\n"],
      ]);
      const r = expectResult(await exploreWith(fake.file, "q", ws, null, { timeoutMs: 20000 }));
      assert.equal(r.text, "the whole answer\n");
      await processesDie([writer.pid]);
    });

    test("stale, foreign and special lock files never delay an answer, and are never opened", async () => {
      const gone = holder();
      await killAndReap(gone);
      const daemon = holder();
      const mkfifo = (p) => execFileSync("mkfifo", [p], { env: { PATH: saved.PATH } });
      // A dead writer's codegraph.lock: no wait, but the write it took never finished.
      const stale = makeWorkspace();
      fs.writeFileSync(path.join(stale, ".codegraph", "codegraph.lock"), String(gone.pid));
      const refused = await exploreWith(fakeCli([["stdout", "answer\n"]]).file, "q", stale, null, { timeoutMs: 20000 });
      expectError(refused, "CODEGRAPH_INDEX_INTERRUPTED");
      assert.ok(refused.ms < 2000, `a dead writer's lock: took ${refused.ms} ms`);
      const cases = {
        "a dead rebuild": ["rebuild.pid", (p) => fs.writeFileSync(p, rebuildJson(gone.pid))],
        "an MCP server's writer.pid (held for its whole life)": [
          "writer.pid",
          (p) => fs.writeFileSync(p, JSON.stringify({ pid: daemon.pid, mode: "daemon" })),
        ],
        "no pid at all": ["codegraph.lock", (p) => fs.writeFileSync(p, "locked")],
        "pid 0": ["codegraph.lock", (p) => fs.writeFileSync(p, "0")],
        "a bare pid in rebuild.pid": ["rebuild.pid", (p) => fs.writeFileSync(p, String(daemon.pid))],
        "a FIFO": ["codegraph.lock", mkfifo],
        "a directory": ["rebuild.pid", (p) => fs.mkdirSync(p)],
        "a symlink to /dev/zero": ["codegraph.lock", (p) => fs.symlinkSync("/dev/zero", p)],
        "a symlink to /dev/stdin": ["rebuild.pid", (p) => fs.symlinkSync("/dev/stdin", p)],
      };
      const fake = fakeCli([["stdout", "answer\n"]]);
      for (const [label, [name, make]] of Object.entries(cases)) {
        const ws = makeWorkspace();
        make(path.join(ws, ".codegraph", name));
        const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 20000 });
        assert.equal(expectResult(outcome).text, "answer\n", label);
        assert.ok(outcome.ms < 2000, `${label}: took ${outcome.ms} ms`);
        const d = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => diagnose(ws));
        assert.equal(d.ready, true, label);
      }
      await killAndReap(daemon);
    });

    test("a cancel while waiting for the writer: CODEGRAPH_CANCELLED at once, the CLI never ran", async () => {
      const writer = holder();
      const { ws } = lockedWorkspace("codegraph.lock", String(writer.pid));
      const ran = path.join(tempDir(), "ran");
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 300);
      const outcome = await exploreWith(fakeCli([["appendArgv0", ran]]).file, "q", ws, ac.signal);
      expectError(outcome, "CODEGRAPH_CANCELLED");
      assert.ok(outcome.ms < 2000, `took ${outcome.ms} ms`);
      assert.equal(fs.existsSync(ran), false);
      await killAndReap(writer);
      await assertNothingLeft();
    });
  },
  { tools: ["explore"] },
);
