// Hangs: a CLI that never ends, never closes its pipes or never answers --version is bounded by
// the deadline, stopped, and reported with what it had said.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import {
  expectError,
  expectResult,
  FAKE_VERSION,
  fakeCli,
  makeWorkspace,
  root,
  tempDir,
  withEnv,
} from "../helpers/index.mjs";
import { assertNothingLeft, isAlive, processesDie, runNode, waitFor } from "../helpers/processes.mjs";
import { eachRunner, saved, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();
const require = createRequire(import.meta.url);
const nodeRunner = require(path.join(root, "lib/runners/node.js"));
const { sourceChangesRequest } = require(path.join(root, "lib/contract/source-changes.js"));

// Timeouts dominate this topic: through explore (the default);
// the focused tools reach the same run() (tools-seam.test.mjs), both runners.
eachRunner(
  "hangs",
  ({ exploreWith, diagnose, callee }, runner) => {
    test("a walk of a large tree in flight never holds up a run's checks: the explore answers first", {
      skip: runner.id !== "node" && "the addon's checks run on its blocking pool, never queued behind a walk",
    }, async () => {
      // 40,000 files walked with a long budget: the walk takes many times what an explore takes
      // (both warm). The checks run in a worker of their own, not behind the walk.
      const ws = makeWorkspace();
      for (let d = 0; d < 200; d += 1) {
        const dir = path.join(ws, "src", `d${d}`);
        fs.mkdirSync(dir, { recursive: true });
        for (let f = 0; f < 200; f += 1) fs.writeFileSync(path.join(dir, `f${f}.ts`), "x\n");
      }
      const walk = (deadlineMs) => nodeRunner.changedSource(ws, { ...sourceChangesRequest(0), deadlineMs });
      const fake = fakeCli([["stdout", "answered\n"]]);
      expectResult(await exploreWith(fake.file, "q", ws));
      await walk(1);
      const order = [];
      const walked = walk(30000).then((found) => order.push(`walked ${found.filesSeen} files`));
      const answered = exploreWith(fake.file, "q", ws).then((outcome) => order.push(expectResult(outcome).text));
      await Promise.all([walked, answered]);
      assert.equal(order[0], "answered\n", order.join(" | "));
      assert.match(order[1], /^walked \d{5} files$/);
    });

    test("prints stderr forever: bounded by the timeout (CODEGRAPH_TIMEOUT), writer stopped", async () => {
      const fake = fakeCli([["stderrForever", "endless-stderr\n"]]);
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 1000 });
      expectError(outcome, "CODEGRAPH_TIMEOUT");
      assert.ok(outcome.ms >= 1000 && outcome.ms < 5000, `took ${outcome.ms} ms`);
      await assertNothingLeft();
    });

    test("closes stdout but keeps running: CODEGRAPH_TIMEOUT with a short timeoutMs, process stopped", async () => {
      const fake = fakeCli([["closeStdout"], ["report"], ["hang"]]);
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 800 });
      const err = expectError(outcome, "CODEGRAPH_TIMEOUT");
      assert.equal(err.details.timeoutMs, 800);
      assert.ok(outcome.ms >= 800 && outcome.ms < 5000, `took ${outcome.ms} ms`);
      const p = fake.readPids();
      assert.ok(p, "the fake had started");
      await waitFor(() => !isAlive(p.self), { timeoutMs: 2000, what: "the CLI to die" });
      await assertNothingLeft();
    });

    test("closes stdout and stderr but keeps running: CODEGRAPH_TIMEOUT, process stopped", async () => {
      const fake = fakeCli([["report"], ["closeStdout"], ["closeStderr"], ["hang"]]);
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 800 });
      expectError(outcome, "CODEGRAPH_TIMEOUT");
      assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
      const p = fake.readPids();
      await waitFor(() => !isAlive(p.self), { timeoutMs: 2000, what: "the CLI to die" });
      await assertNothingLeft();
    });

    test("a run stopped by the timeout keeps what the CLI said on stderr", async () => {
      // Nothing reported is lost: a CLI stuck after explaining why (a lock, a prompt) should leave
      // that explanation in the error, as CODEGRAPH_EXIT does.
      const fake = fakeCli([
        ["stderr", "stuck: waiting for the index lock\n"],
        ["stdout", "partial answer\n"],
        ["report"],
        ["hang"],
      ]);
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 800 });
      const err = expectError(outcome, "CODEGRAPH_TIMEOUT");
      await assertNothingLeft();
      assert.match(String(err.details.stderrTail ?? ""), /stuck: waiting for the index lock/, "details.stderrTail");
      assert.match(err.message, /stuck: waiting for the index lock/, "the message carries the stderr tail");
    });

    test("a run stopped by the timeout or a cancel keeps the partial answer in details.partialText", async () => {
      const fake = fakeCli([["stdout", "partial answer\n"], ["report"], ["hang"]]);
      const timedOut = expectError(
        await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 800 }),
        "CODEGRAPH_TIMEOUT",
      );
      assert.equal(timedOut.details.partialText, "partial answer\n");
      assert.equal(timedOut.details.partialBytes, 15);
      assert.match(timedOut.message, /after printing 15 bytes of a partial answer/);
      const ac = new AbortController();
      const pending = exploreWith(fake.file, "q", suite.ws, ac.signal, { timeoutMs: 15000 });
      await waitFor(() => fake.readPids() && isAlive(fake.readPids().self), { what: "the fake to start" });
      ac.abort();
      const err = expectError(await pending, "CODEGRAPH_CANCELLED");
      assert.ok(["", "partial answer\n"].includes(err.details.partialText), err.details.partialText);
      assert.equal(err.details.partialBytes, Buffer.byteLength(err.details.partialText));
      await assertNothingLeft();
    });

    test("starts slowly (1 s), then answers: a normal result", async () => {
      const fake = fakeCli([
        ["sleep", 1000],
        ["stdout", "slow but sure\n"],
      ]);
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 20000 });
      const result = expectResult(outcome);
      assert.equal(result.text, "slow but sure\n");
      const { durationMs, lockWaitMs, runMs } = result.details;
      assert.ok(runMs >= 1000, `runMs ${runMs}`);
      assert.ok(durationMs >= lockWaitMs + runMs, `durationMs ${durationMs}`);
      assert.equal(result.details.cliVersion, FAKE_VERSION);
      await assertNothingLeft();
    });

    test("a --version that never answers: the answer is not delayed, the probe dies by the deadline", async () => {
      const fake = fakeCli([["stdout", "answer without waiting\n"]], { version: "hang" });
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 1500 });
      const result = expectResult(outcome);
      assert.equal(result.text, "answer without waiting\n");
      assert.equal(result.details.cliVersion ?? null, null);
      const probe = await waitFor(() => fake.readPids(), { what: "the probe to start" });
      // Not delayed: the answer came while the probe still hung (a busy machine slows both, so no
      // clock is asked); it is stopped by the call's 1.5 s deadline (not the probe's own 5 s).
      assert.ok(isAlive(probe.probe), "the probe still hung when the answer came");
      await waitFor(() => !isAlive(probe.probe), { timeoutMs: 3000, what: "the probe to be stopped at the deadline" });

      // An abort while only the version is pending: the call has already answered.
      const ac = new AbortController();
      const again = exploreWith(fake.file, "q", suite.ws, ac.signal, { timeoutMs: 1500 });
      const r2 = expectResult(await again);
      ac.abort();
      assert.equal(r2.text, "answer without waiting\n");

      // session_start's diagnosis waits at most about a second for it.
      const started = Date.now();
      const d = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => diagnose(suite.ws));
      assert.equal(d.ready, true);
      assert.ok(Date.now() - started < 2500, `diagnose took ${Date.now() - started} ms`);
      await assertNothingLeft("after the probes' deadlines");
    });

    test("a call that fails while its --version probe hangs: the probe is stopped with it", async () => {
      const fake = fakeCli([["waitPids"], ["stderr", "boom\n"], ["exit", 3]], { version: "hang" });
      const err = expectError(
        await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 15000 }),
        "CODEGRAPH_EXIT",
      );
      assert.equal(err.details.cliVersion ?? null, null);
      const probe = await waitFor(() => fake.readPids(), { what: "the probe to start" });
      // Stopped at once with the call (not at the 15 s deadline, nor the probe's own 5 s).
      await processesDie([probe.probe], "the probe to be stopped with the failed call");
      await assertNothingLeft();
    });

    test("filesystem checks that do not answer (a stalled thread pool): the call still settles by its deadline", async () => {
      // One libuv pool thread, held by a blocking open of a FIFO with no writer: any fs call
      // queued behind it stalls, as on a hung mount. The addon checks on a pool of its own.
      const fifo = path.join(tempDir(), "stall");
      execFileSync("mkfifo", [fifo], { env: { PATH: saved.PATH } });
      const fake = fakeCli([["stdout", "answered\n"]]);
      const script = `const fs = require("node:fs");
fs.promises.open(${JSON.stringify(fifo)}, "r").catch(() => {});
const started = Date.now();
setImmediate(() => ${callee}("q", ${JSON.stringify(suite.ws)}, null, { timeoutMs: 500 }).then(
(r) => ({ text: r.text }), (e) => ({ code: e.code, message: e.message })).then((out) => {
process.stdout.write(JSON.stringify({ ...out, ms: Date.now() - started }));
fs.closeSync(fs.openSync(${JSON.stringify(fifo)}, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); // release the pool
}));`;
      const r = await runNode(["-e", script], {
        env: { ...process.env, PI_CODEGRAPH_BIN: fake.file, UV_THREADPOOL_SIZE: "1" },
        timeoutMs: 15000,
      });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.ok(out.ms < 2500, `settled after ${out.ms} ms`);
      // The checks stall with the pool (the filesystem did not answer), or, where they do not use it
      // (both runners' cores check on threads of their own), the CLI runs and answers, or a busy
      // machine does not finish it within the 500 ms: each settles by the deadline, and says so.
      if (out.code) {
        assert.equal(out.code, "CODEGRAPH_TIMEOUT", out.message);
        assert.match(out.message, /the filesystem did not answer|did not finish within 500 ms/);
      } else assert.equal(out.text, "answered\n");
      await assertNothingLeft();
    });
  },
  { tools: ["explore"] },
);
