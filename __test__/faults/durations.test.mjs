// Where a call's time went, as both runners report it in `details`: `durationMs` (the whole
// runner call), `lockWaitMs` (waiting for a CodeGraph writer before the run) and `runMs` (the CLI
// run itself), with durationMs >= lockWaitMs + runMs; on a failure each as far as the call got.
// On CODEGRAPH_TIMEOUT, `writerSeen` names the CodeGraph writer active on the index at that moment.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { afterEach, test } from "node:test";
import { expectError, expectResult, fakeCli, makeWorkspace } from "../helpers/index.mjs";
import { cleanup, killAndReap, waitFor } from "../helpers/processes.mjs";
import { eachRunner, forRunner, runners, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();

/** Live processes standing in for CodeGraph's writer; killed after each test. */
const holders = [];
function holder(script = "setInterval(() => {}, 1000)", stdio = "ignore") {
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", stdio, "ignore"] });
  holders.push(child.pid);
  return child;
}
afterEach(() => cleanup(...holders.splice(0)));

const lockOf = (ws) => path.join(ws, ".codegraph", "codegraph.lock");

/** The three times are whole milliseconds, and the wait and the run fit in the call. */
function assertTimes(d, outcomeMs) {
  for (const k of ["durationMs", "lockWaitMs", "runMs"]) assert.ok(Number.isInteger(d[k]) && d[k] >= 0, `${k} ${d[k]}`);
  assert.ok(d.durationMs >= d.lockWaitMs + d.runMs, `durationMs ${d.durationMs} < ${d.lockWaitMs} + ${d.runMs}`);
  // The runner call lies within what the test timed around it (Date.now(): whole ms).
  assert.ok(d.durationMs <= outcomeMs + 1, `durationMs ${d.durationMs} > the ${outcomeMs} ms the test saw`);
}

// Each test waits out timeouts and sleeps: through explore (the default);
// the focused tools reach the same run() (tools-seam.test.mjs), both runners.
eachRunner(
  "where a call's time went",
  ({ exploreWith }) => {
    test("no writer: lockWaitMs 0, the run is part of the call", async () => {
      const fake = fakeCli([
        ["sleep", 300],
        ["stdout", "an answer\n"],
      ]);
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 20000 });
      const d = expectResult(outcome).details;
      assertTimes(d, outcome.ms);
      assert.equal(d.lockWaitMs, 0);
      assert.ok(d.runMs >= 300, `runMs ${d.runMs}`);
    });

    test("a writer that finishes during the wait: lockWaitMs is the wait, then the run", async () => {
      const ws = makeWorkspace();
      const lock = lockOf(ws);
      // As CodeGraph ends a write (after 1 s of work): it removes its lock, says when, and exits.
      const writer = holder(
        `setTimeout(() => { require("fs").unlinkSync(${JSON.stringify(lock)}); console.log(Date.now()); process.exit(0); }, 1000)`,
        "pipe",
      );
      let said = "";
      writer.stdout.on("data", (b) => {
        said += b;
      });
      const exited = once(writer, "exit");
      fs.writeFileSync(lock, String(writer.pid));
      const fake = fakeCli([
        ["failIfExists", lock],
        ["stdout", "the whole answer\n"],
      ]);
      const t0 = Date.now();
      const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 20000 });
      await exited;
      const released = Number(said.trim()) - t0;
      const r = expectResult(outcome);
      assert.equal(r.text, "the whole answer\n");
      const d = r.details;
      assertTimes(d, outcome.ms);
      // The wait began after the checks (their time varies with the machine's load) and ended at the
      // first re-read of the lock after the release (every 100 ms); the run cannot start before it.
      assert.ok(d.lockWaitMs > 0, "the call waited");
      assert.ok(
        d.durationMs - d.runMs >= released - 50,
        `${d.durationMs - d.runMs} ms before the run, released after ${released} ms`,
      );
      assert.ok(d.lockWaitMs <= released + 250, `lockWaitMs ${d.lockWaitMs}, released after ${released} ms`);
      assert.ok(d.durationMs - d.runMs >= d.lockWaitMs);
    });

    test("a busy index: lockWaitMs is the time waited, no runMs (the CLI never ran)", async () => {
      const writer = holder();
      const ws = makeWorkspace();
      fs.writeFileSync(lockOf(ws), String(writer.pid));
      const outcome = await exploreWith(fakeCli([["stdout", "must not run\n"]]).file, "q", ws, null, {
        timeoutMs: 500,
      });
      const err = expectError(outcome, "CODEGRAPH_INDEX_BUSY");
      const d = err.details;
      // It waited until its deadline (less the checks before the wait, which vary with the load).
      assert.ok(d.lockWaitMs > 0 && d.lockWaitMs <= d.durationMs, `lockWaitMs ${d.lockWaitMs}`);
      assert.ok(d.durationMs >= 500, `durationMs ${d.durationMs}`);
      assert.ok(err.message.includes(`still after ${(d.lockWaitMs / 1000).toFixed(1)} s of waiting`), err.message);
      assert.equal("runMs" in d, false);
      assert.ok(d.durationMs <= outcome.ms + 1);
      await killAndReap(writer);
    });

    test("a timeout while CodeGraph writes the index: writerSeen names the writer", async () => {
      const writer = holder();
      const ws = makeWorkspace();
      const lock = lockOf(ws);
      const fake = fakeCli([["stdout", "partial"], ["report"], ["hang"]]);
      const pending = exploreWith(fake.file, "q", ws, null, { timeoutMs: 3000 });
      // Once the CLI runs, a writer takes the lock (a `codegraph sync` started beside it).
      await waitFor(() => fs.existsSync(fake.pids), { what: "the CLI to run" });
      fs.writeFileSync(lock, String(writer.pid));
      const outcome = await pending;
      const err = expectError(outcome, "CODEGRAPH_TIMEOUT");
      const d = err.details;
      assert.deepEqual(d.writerSeen, { lock, pid: writer.pid, rebuild: false });
      assertTimes(d, outcome.ms);
      assert.equal(d.lockWaitMs, 0, "no writer before the run");
      assert.ok(d.runMs > 0 && d.durationMs >= 3000, `runMs ${d.runMs}, durationMs ${d.durationMs}`);
      assert.equal(d.partialText, "partial");
      await killAndReap(writer);
    });

    test("a timeout without a writer: writerSeen null", async () => {
      const fake = fakeCli([["stdout", "partial"], ["hang"]]);
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 500 });
      const d = expectError(outcome, "CODEGRAPH_TIMEOUT").details;
      assert.equal(d.writerSeen, null);
      assertTimes(d, outcome.ms);
      assert.equal(d.lockWaitMs, 0);
    });

    test("failures carry the times the call reached: checks only, the wait, the run", async () => {
      const noIndex = await exploreWith(fakeCli([]).file, "q", makeWorkspace({ index: false }));
      const early = expectError(noIndex, "CODEGRAPH_NO_INDEX").details;
      assert.ok(Number.isInteger(early.durationMs) && early.durationMs <= noIndex.ms + 1, `${early.durationMs}`);
      assert.equal("lockWaitMs" in early, false);
      assert.equal("runMs" in early, false);

      const badArgs = await exploreWith(fakeCli([]).file, "q", suite.ws, null, { timeoutMs: -1 });
      const refused = expectError(badArgs, "CODEGRAPH_INVALID_OPTIONS").details;
      assert.ok(Number.isInteger(refused.durationMs), `${refused.durationMs}`);

      const failed = await exploreWith(
        fakeCli([
          ["sleep", 200],
          ["exit", 3],
        ]).file,
        "q",
        suite.ws,
      );
      const d = expectError(failed, "CODEGRAPH_EXIT").details;
      assertTimes(d, failed.ms);
      assert.equal(d.lockWaitMs, 0);
      assert.ok(d.runMs >= 200, `runMs ${d.runMs}`);
    });
  },
  { tools: ["explore"] },
);

test("both runners report the same times and writers", {
  skip: runners.length !== 2 && "needs both runners",
}, async () => {
  const timeoutWs = makeWorkspace();
  const cases = {
    answer: [fakeCli([["stdout", "fine\n"]]).file, "q", suite.ws],
    "no index": [fakeCli([]).file, "q", makeWorkspace({ index: false })],
    exit: [fakeCli([["exit", 3]]).file, "q", suite.ws],
    timeout: [fakeCli([["stdout", "partial"], ["hang"]]).file, "q", timeoutWs, null, { timeoutMs: 400 }],
  };
  const seen = [];
  for (const runner of runners) {
    const { exploreWith } = forRunner(runner);
    const shapes = {};
    for (const [label, args] of Object.entries(cases)) {
      const { value, error } = await exploreWith(...args);
      const d = (value ?? error).details;
      shapes[label] = {
        code: error?.code ?? "answer",
        times: ["durationMs", "lockWaitMs", "runMs"].filter((k) => k in d),
        writerSeen: d.writerSeen,
      };
    }
    seen.push(shapes);
  }
  assert.deepEqual(seen[0], seen[1]);
  assert.deepEqual(seen[0].timeout, {
    code: "CODEGRAPH_TIMEOUT",
    times: ["durationMs", "lockWaitMs", "runMs"],
    writerSeen: null,
  });
});
