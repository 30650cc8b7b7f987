// Parallel calls on one index (issue 21): at most the limit run at once, the rest wait in a queue
// that keeps their order, tells each its place, can be cancelled and is bounded on its own; a
// call's time budget starts when it is admitted; a timeout's remediation names what the call
// observed; durations say where the user's wait went; the model gets what a stopped CLI had
// printed. Driven through explore() and the registered tool, with a fake CLI each call of which
// waits for the test's go (`gate`).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { assertStableError, fakeCli, makeWorkspace, tempDir } from "../helpers/index.mjs";
import { hostWith, plainTheme, renderText } from "../helpers/pi-host.mjs";
import { waitFor } from "../helpers/processes.mjs";
import { recording, runnerOf } from "../helpers/recording.mjs";
import { eachRunner, runners, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();

/** A fake whose every call notes its request in `<dir>/started` and answers once the test says go. */
function gatedCli() {
  const dir = tempDir("pi-codegraph-gate-");
  const fake = fakeCli([["gate", dir]]);
  return {
    ...fake,
    started: () =>
      fs.existsSync(`${dir}/started`) ? fs.readFileSync(`${dir}/started`, "utf8").split("\n").filter(Boolean) : [],
    go: (request) => fs.writeFileSync(`${dir}/${request}.go`, ""),
    releaseAll: () => fs.writeFileSync(`${dir}/all.go`, ""),
    waitStarted: (n) =>
      waitFor(() => fs.existsSync(`${dir}/started`) && gatedStarted(dir) >= n, { what: `${n} started` }),
  };
}
const gatedStarted = (dir) => fs.readFileSync(`${dir}/started`, "utf8").split("\n").filter(Boolean).length;

/**
 * Runs `fn` with the fake and the limit set for every call it starts, restoring both after; a
 * gated fake's calls are all let go at the end, so that a failed test leaves no queue behind.
 */
async function withLimit(fake, limit, fn) {
  const saved = { bin: process.env.PI_CODEGRAPH_BIN, limit: process.env.PI_CODEGRAPH_MAX_PARALLEL };
  process.env.PI_CODEGRAPH_BIN = fake.file;
  if (limit === undefined) delete process.env.PI_CODEGRAPH_MAX_PARALLEL;
  else process.env.PI_CODEGRAPH_MAX_PARALLEL = String(limit);
  try {
    return await fn();
  } finally {
    fake.releaseAll?.();
    await Promise.all(inflight.splice(0));
    for (const [name, value] of [
      ["PI_CODEGRAPH_BIN", saved.bin],
      ["PI_CODEGRAPH_MAX_PARALLEL", saved.limit],
    ]) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** Every call a test started, settled: withLimit waits for them all before the next test. */
const inflight = [];
const settled = (promise) => {
  const outcome = promise.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );
  inflight.push(outcome);
  return outcome;
};

// Parallel calls that wait on one another, both runners. The queue is run()'s, through explore;
// a focused tool (search) reaches the same run() (tools-seam.test.mjs) and runs here only what its
// registered tool adds: its cancelled call's words and its progress row (\`ownTool\` below).
eachRunner(
  "parallel calls on one index",
  ({ explore, tool: call }, runner) => {
    // The registered tool of this row (explore's, or the focused tool) and its arguments for `q`.
    const toolName = call.focused ? call.id : "codegraph_explore";
    const paramsOf = (q) => (call.focused ? call.params(q) : { request: q });
    /** run()'s queue: the explore row only. */
    const queueTest = call.focused ? () => {} : test;
    /** What the registered tool adds: every row. */
    const ownTool = test;
    queueTest("at most the limit run at once; the rest start in call order, each told its place", async () => {
      const cli = gatedCli();
      await withLimit(cli, 2, async () => {
        const places = new Map();
        const calls = ["q1", "q2", "q3", "q4", "q5"].map((q) => {
          places.set(q, []);
          return settled(explore(q, suite.ws, undefined, { onQueue: (p) => places.get(q).push(p) }));
        });
        await cli.waitStarted(2);
        assert.deepEqual(cli.started().sort(), ["q1", "q2"], "the first two run (in whichever order they start)");
        assert.deepEqual(
          ["q3", "q4", "q5"].map((q) => places.get(q)[0]?.ahead),
          [2, 3, 4],
          "each waiting call hears how many are ahead of it",
        );
        assert.ok(places.get("q3").every((p) => p.limit === 2));
        assert.deepEqual(places.get("q1"), [], "a call admitted at once never hears of a queue");
        cli.go("q2");
        await cli.waitStarted(3);
        assert.deepEqual(cli.started().slice(2), ["q3"], "the first in line goes next, and only it");
        assert.equal(places.get("q5").at(-1).ahead, 3, "the others moved up one place");
        cli.go("q1");
        await cli.waitStarted(4);
        assert.deepEqual(cli.started().slice(2), ["q3", "q4"]);
        for (const q of ["q3", "q4", "q5"]) cli.go(q);
        const outcomes = await Promise.all(calls);
        assert.deepEqual(cli.started().slice(2), ["q3", "q4", "q5"]);
        outcomes.forEach((o, i) => {
          assert.ok(o.value, o.error?.message);
          assert.equal(o.value.text, `answer: q${i + 1}\n`, "every call gets its own answer");
          const d = o.value.details;
          assert.equal(d.parallelLimit, 2);
          assert.ok(d.durationMs >= d.queueMs, `total ${d.durationMs} >= queue ${d.queueMs}`);
        });
        const [q1, , q3] = outcomes.map((o) => o.value.details);
        assert.ok(q3.queueMs > q1.queueMs, "the queued call's wait is its own");
      });
    });

    queueTest("a call cancelled while queued starts nothing and the calls behind it move up", async () => {
      const cli = gatedCli();
      await withLimit(cli, 1, async () => {
        const first = settled(explore("a1", suite.ws));
        await cli.waitStarted(1);
        const ac = new AbortController();
        const heard = [];
        const second = settled(explore("a2", suite.ws, ac.signal, { onQueue: (p) => heard.push(p) }));
        const third = [];
        const last = settled(explore("a3", suite.ws, undefined, { onQueue: (p) => third.push(p) }));
        await waitFor(() => heard.length > 0 && third.length > 0, { what: "both queued" });
        assert.equal(third.at(-1).ahead, 2);
        ac.abort();
        const { error } = await second;
        assertStableError(error, "CODEGRAPH_CANCELLED");
        assert.match(
          error.message,
          /while it waited for its turn \(1 CodeGraph query ahead of it on this index, 1 run at once\); nothing was started/,
        );
        assert.equal(error.details.queue.is, "cancelled");
        assert.equal(error.details.partialText, "");
        assert.ok(error.details.queueMs >= 0 && error.details.durationMs >= error.details.queueMs);
        await waitFor(() => third.at(-1).ahead === 1, { what: "a3 to move up" });
        cli.go("a1");
        cli.go("a3");
        assert.equal((await first).value?.text, "answer: a1\n");
        assert.equal((await last).value?.text, "answer: a3\n");
        assert.deepEqual(cli.started(), ["a1", "a3"], "the cancelled call never ran");
      });
    });

    queueTest("the queue wait is bounded on its own: four budgets, then CODEGRAPH_TIMEOUT that says why", async () => {
      const cli = gatedCli();
      await withLimit(cli, 1, async () => {
        const first = settled(explore("b1", suite.ws));
        await cli.waitStarted(1);
        const { error } = await settled(explore("b2", suite.ws, undefined, { timeoutMs: 150 }));
        assertStableError(error, "CODEGRAPH_TIMEOUT");
        assert.match(
          error.message,
          /waited \d+\.\d s for its turn \(1 CodeGraph query ahead of it on this index, 1 run at once\) and was not started/,
        );
        assert.match(error.remediation, /fewer questions in one message/);
        assert.match(error.remediation, /PI_CODEGRAPH_MAX_PARALLEL sets it/);
        assert.equal(error.details.queue.is, "timedOut");
        assert.equal(error.details.timeoutMs, 600);
        assert.ok(error.details.queueMs >= 600, `waited ${error.details.queueMs} ms`);
        cli.go("b1");
        assert.equal((await first).value?.text, "answer: b1\n", "the running call is not disturbed");
        assert.deepEqual(cli.started(), ["b1"]);
      });
    });

    queueTest("the time budget starts when a call is admitted: a wait behind a sibling does not use it", async () => {
      // The sibling takes longer than the waiting call's whole budget.
      const slow = fakeCli([
        ["sleep", 700],
        ["stdout", "done\n"],
      ]);
      await withLimit(slow, 1, async () => {
        const calls = [
          settled(explore("slow", suite.ws)),
          settled(explore("quick", suite.ws, undefined, { timeoutMs: 2000 })),
        ];
        const [a, b] = await Promise.all(calls);
        assert.ok(a.value && b.value, (a.error ?? b.error)?.message);
        assert.ok(b.value.details.queueMs >= 600, `queued ${b.value.details.queueMs} ms`);
        assert.ok(b.value.details.durationMs >= b.value.details.queueMs + 600);
      });
    });

    queueTest("a timeout's remediation names the siblings that ran beside it", async () => {
      const cli = gatedCli();
      await withLimit(cli, 2, async () => {
        const other = settled(explore("s1", suite.ws));
        await cli.waitStarted(1);
        const { error } = await settled(explore("s2", suite.ws, undefined, { timeoutMs: 300 }));
        assertStableError(error, "CODEGRAPH_TIMEOUT");
        assert.match(
          error.remediation,
          /^This was not necessarily a question too broad: 1 CodeGraph query on this index ran beside it \(2 run at once; PI_CODEGRAPH_MAX_PARALLEL sets it\)/,
        );
        assert.equal(error.details.observed.siblings, 1);
        assert.equal(error.details.parallelLimit, 2);
        cli.go("s1");
        assert.equal((await other).value?.text, "answer: s1\n");
      });
    });

    queueTest("a timeout's remediation names CodeGraph writing the index while the call ran", async () => {
      const cli = gatedCli();
      const ws = makeWorkspace();
      const lock = path.join(ws, ".codegraph", "codegraph.lock");
      await withLimit(cli, 2, async () => {
        const call = settled(explore("w1", ws, undefined, { timeoutMs: 400 }));
        await cli.waitStarted(1);
        // A `codegraph sync` of another terminal takes the lock now (a live pid: this process).
        fs.writeFileSync(lock, String(process.pid));
        const { error } = await call;
        assertStableError(error, "CODEGRAPH_TIMEOUT");
        assert.deepEqual(error.details.writerSeen, { lock, pid: process.pid, rebuild: false });
        assert.match(
          error.remediation,
          new RegExp(
            `^This was not necessarily a question too broad: CodeGraph was writing the index while it ran \\(pid ${process.pid} holds .*codegraph\\.lock\\): ask again once that write has finished`,
          ),
        );
      });
    });

    queueTest("alone on a quiet machine, a timeout still says: ask a narrower question", async () => {
      const cli = gatedCli();
      await withLimit(cli, 2, async () => {
        const loadBefore = os.loadavg()[0];
        const { error } = await settled(explore("alone", suite.ws, undefined, { timeoutMs: 200 }));
        const loadAfter = os.loadavg()[0];
        assertStableError(error, "CODEGRAPH_TIMEOUT");
        assert.equal(error.details.observed.siblings, 0);
        const cores = error.details.observed.cores;
        // The load average moves slowly; where it crossed the core count during the call, either
        // wording is right.
        if (loadBefore <= cores && loadAfter <= cores) assert.match(error.remediation, /^Ask a narrower question/);
        else if (loadBefore > cores && loadAfter > cores)
          assert.match(error.remediation, /the machine was busy \(load average/);
      });
    });

    ownTool(
      "the model gets what a cancelled CLI had printed, marked incomplete, code and remediation first",
      async () => {
        // Printed after the first progress interval (250 ms), so that a progress update carries it.
        const partial = fakeCli([["sleep", 300], ["stdout", "## Partial section\nFirst finding\n"], ["hang"]]);
        const host = await hostWith(runner.module, "partial");
        await withLimit(partial, 2, async () => {
          await host.startSession({ cwd: suite.ws });
          const tool = host.registry.find((t) => t.name === toolName);
          const ac = new AbortController();
          const updates = [];
          const run = settled(
            tool.execute(
              "c1",
              paramsOf("q"),
              ac.signal,
              (u) => {
                updates.push(u);
                if (u.content[0].text.includes("First finding")) ac.abort();
              },
              { cwd: suite.ws },
            ),
          );
          const { error } = await run;
          assert.ok(error, "the cancelled call fails");
          const lines = error.message.split("\n");
          assert.match(
            lines[0],
            new RegExp(
              `^CODEGRAPH_CANCELLED: ${call.focused ? `the codegraph ${call.subcommand} call` : "the explore"} was cancelled after codegraph had printed 33 bytes \\(the partial answer is below\\)`,
            ),
          );
          assert.match(lines[1], /^Remediation: /);
          assert.match(
            error.message,
            /\[Incomplete answer: the call was cancelled\. What codegraph had printed follows; sections after it are missing\.\]\n## Partial section\nFirst finding\n\[End of the incomplete answer: 33 bytes\.\]$/,
          );
          assert.equal(
            lines.at(-1),
            "[End of the incomplete answer: 33 bytes.]",
            "a user's cancel sends the model to no other tool",
          );
          assert.equal(error.code, "CODEGRAPH_CANCELLED");
        });
      },
    );

    ownTool("Pi's progress row shows a waiting call's place in the queue", async () => {
      const cli = gatedCli();
      const host = await hostWith(runner.module, "queue-row");
      await withLimit(cli, 1, async () => {
        await host.startSession({ cwd: suite.ws });
        const tool = host.registry.find((t) => t.name === toolName);
        const first = settled(tool.execute("c1", paramsOf("r1"), undefined, () => {}, { cwd: suite.ws }));
        await cli.waitStarted(1);
        const updates = [];
        const second = settled(
          tool.execute("c2", paramsOf("r2"), undefined, (u) => updates.push(u), { cwd: suite.ws }),
        );
        await waitFor(() => updates.length > 0, { what: "a queue update" });
        const row = renderText(tool.renderResult(updates[0], { isPartial: true, expanded: false }, plainTheme, {}));
        assert.match(row, /^Waiting: 1 CodeGraph query ahead \(1 run at once on this index\)… \d+\.\ds$/);
        cli.go("r1");
        cli.go("r2");
        const results = [await first, await second];
        assert.deepEqual(
          results.map((r) => r.value?.content[0].text),
          ["answer: r1\n", "answer: r2\n"],
        );
        const footer = renderText(
          tool.renderResult(results[1].value, { isPartial: false, expanded: true }, plainTheme, {}),
        );
        assert.match(footer, /\d+\.\d\ds \(queued \d+\.\d\ds, run \d+\.\d\ds\)/, "the footer splits the wait");
      });
    });
  },
  { tools: ["explore", "search"] },
);

test("PI_CODEGRAPH_MAX_PARALLEL: a valid value is the limit; anything else is ignored and said so", async () => {
  const { diagnose } = (await import("../../index.js")).default;
  const ws = suite.ws;
  const cases = [
    ["3", 3, "env"],
    ["1", 1, "env"],
    ["0", null, "machine"],
    ["65", null, "machine"],
    ["two", null, "machine"],
    ["1.5", null, "machine"],
    ["-1", null, "machine"],
  ];
  for (const [value, limit, source] of cases) {
    const saved = process.env.PI_CODEGRAPH_MAX_PARALLEL;
    process.env.PI_CODEGRAPH_MAX_PARALLEL = value;
    try {
      const d = await diagnose(ws);
      assert.equal(d.parallel.source, source, value);
      if (limit) assert.equal(d.parallel.limit, limit);
      else {
        assert.equal(d.parallel.envProblem.raw, value);
        assert.ok(d.parallel.limit >= 1 && d.parallel.limit <= os.availableParallelism());
      }
    } finally {
      if (saved === undefined) delete process.env.PI_CODEGRAPH_MAX_PARALLEL;
      else process.env.PI_CODEGRAPH_MAX_PARALLEL = saved;
    }
  }
  assert.ok(path.isAbsolute(ws));
});

// The tool's own budget is 30 s (it takes no timeout): the recording stub shows the 30 s the
// runner was given, then runs the call with 1 s, so the file proves both without waiting 30 s
// (the runner keeps any budget it is given: hangs.test.mjs, durations.test.mjs).
test("through the registered tool, a CLI that prints part of an answer and then hangs is stopped at the tool's 30 s, and the model gets that part", async () => {
  const fake = fakeCli([["stdout", "## Flow\n1. checkout (src/shop.ts:3)\n"], ["hang"]]);
  await withLimit(fake, 4, () =>
    Promise.all(
      runners.map(async (runner) => {
        const { glue, seen } = recording(runnerOf(runner.id), {
          options: (given) => ({ ...given, timeoutMs: 1000 }),
        });
        const host = await hostWith(glue, `timeout-${runner.id}`);
        await host.startSession({ cwd: suite.ws });
        const tool = host.registry.find((t) => t.name === "codegraph_explore");
        const { error } = await settled(tool.execute("t1", { request: "q" }, undefined, () => {}, { cwd: suite.ws }));
        assert.equal(seen.length, 1, `${runner.id}: one run`);
        const [{ command, options }] = seen;
        assert.equal(options?.timeoutMs ?? command.timeoutMs, 30000, `${runner.id}: the tool's budget is 30 s`);
        assert.ok(error, `${runner.id}: the call fails`);
        assert.equal(error.code, "CODEGRAPH_TIMEOUT");
        const [headline, remediation] = error.message.split("\n");
        assert.match(
          headline,
          /^CODEGRAPH_TIMEOUT: codegraph explore did not finish within 1000 ms and was stopped after printing 36 bytes of a partial answer \(below\)\.$/,
        );
        assert.match(remediation, /^Remediation: /);
        assert.match(
          error.message,
          /\n\[Incomplete answer: it was stopped at its 1000 ms time limit\. What codegraph had printed follows; sections after it are missing\.\]\n## Flow\n1\. checkout \(src\/shop\.ts:3\)\n\[End of the incomplete answer: 36 bytes\.\]\ncodegraph_explore is unavailable for this request/,
        );
        assert.ok(Buffer.byteLength(error.message) <= 51200);
      }),
    ),
  );
});
