// Parallel calls in the real Pi CLI (the pinned devDependency): the loopback fake model
// (helpers/fake-openai.mjs) answers the prompt with ONE assistant message holding eight
// codegraph_explore calls, each a different question about __test__/fixtures/shop. Pi runs the
// tool calls of one message in parallel (pi-agent-core's executeToolCallsParallel: every call
// started, then awaited together) and hands the model their results in the order of the calls.
// The tool runs the real pinned CodeGraph CLI on an indexed copy of the fixture, so the eight
// explores run as eight concurrent CLI processes on one index.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { REAL_CLI_PATH, waitFor } from "../helpers/index.mjs";
import { installPacked } from "../helpers/packed.mjs";
import {
  assistantText,
  contentText,
  explainRun,
  jsonModeArgs,
  piEnv,
  piMissing,
  runPi,
  startPiSuite,
  tearDownPiSuite,
} from "../helpers/pi-harness.mjs";
import { cmdline, isAlive, LINUX, processesIn } from "../helpers/processes.mjs";

const TOOL = "codegraph_explore";
const MODEL = "fake-parallel";
/** The parallel limit the test sets (PI_CODEGRAPH_MAX_PARALLEL): fewer than the calls. */
const LIMIT = "3";
const PROMPT = "Explore the shop: checkout, refunds, totals, validation, stock, restocking, payments, main.";
// Eight questions, each naming a symbol; `names` is the blast-radius line CodeGraph 1.6.1 gives
// that symbol (name and definition site) in the answer to that question.
const CALLS = [
  { request: "how does CheckoutService.checkout call charge", names: "`checkout` (src/checkout.ts:7)" },
  { request: "what does StripeProcessor.refund call", names: "`refund` (src/stripe.ts:9)" },
  { request: "how does calculateTotal use applyDiscount", names: "`applyDiscount` (src/cart.ts:16)" },
  { request: "who calls validateCart", names: "`validateCart` (src/cart.ts:7)" },
  { request: "how does Inventory.remove use has_stock", names: "`has_stock` (py/inventory.py:5)" },
  { request: "how does restock_all call Inventory.add", names: "`add` (py/inventory.py:8)" },
  { request: "what implements PaymentProcessor", names: "`PaymentProcessor` (src/types.ts:6)" },
  { request: "how does main construct CheckoutService", names: "`CheckoutService` (src/checkout.ts:4)" },
].map((c, i) => ({ ...c, id: `call_cg_${i + 1}` }));
const ids = CALLS.map((c) => c.id);
/** What the CLI process runs (CodeGraph 1.6.1's launcher execs its bundled node on this script). */
const CLI_SCRIPT = path.join("bin", "codegraph.js");

const nodeDir = path.dirname(process.execPath);
const realPath = REAL_CLI_PATH;
/** The answer's heading: CodeGraph opens its exploration of a request with it. */
const heading = (request) => `**Exploration: ${request}**`;

describe("eight parallel codegraph_explore calls in the real Pi CLI", { skip: piMissing, timeout: 120000 }, () => {
  let scratch;
  let server;
  let agentDir;
  let home;
  let ws;
  let run;
  let piPid;
  const strayPids = [];
  /** Every process seen running in the workspace while Pi ran (Pi itself left out): pid → cmdline. */
  const seen = new Map();
  /** The most CodeGraph CLI processes (the bundle's node running codegraph.js) seen at once. */
  let mostAtOnce = 0;

  before(async () => {
    let indexed;
    ({ scratch, home, indexed, server, agentDir } = await startPiSuite("pi-codegraph-parallel-", {
      calls: CALLS.map(({ id, request }) => ({ id, request })),
      models: [MODEL],
    }));
    ws = indexed;
    // Three at once on this index, so that five of the eight calls wait in the queue.
    const env = (pathDirs) =>
      piEnv({
        agentDir,
        home,
        pathDirs,
        extra: { TMPDIR: path.join(scratch, "tmp"), PI_CODEGRAPH_MAX_PARALLEL: LIMIT },
      });
    const install = (await installPacked({ cwd: scratch, env: env([nodeDir]) })).result;
    assert.equal(install.code, 0, `pi install: ${explainRun(install)}`);

    // Watch the workspace's process table while Pi runs: what ran there, and how many at once.
    // Reading /proc is not atomic: a CLI that ends while one is read and the next that starts
    // would both be counted. A CLI in two consecutive looks was running between them, so those
    // ran at once.
    let before = new Set();
    const look = () => {
      const now = processesIn(ws, { except: [piPid] });
      const cli = new Set(now.filter((p) => p.cmd.includes(CLI_SCRIPT)).map((p) => p.pid));
      mostAtOnce = Math.max(mostAtOnce, [...cli].filter((pid) => before.has(pid)).length);
      before = cli;
      for (const p of now) if (!seen.has(p.pid)) seen.set(p.pid, p.cmd);
    };
    const watcher = LINUX ? setInterval(() => piPid && look(), 20) : undefined;
    try {
      run = await runPi(jsonModeArgs(MODEL, PROMPT), {
        cwd: ws,
        env: env(realPath),
        timeoutMs: 90000,
        onSpawn: (child) => {
          piPid = child.pid;
        },
      });
    } finally {
      clearInterval(watcher);
    }
  });

  after(() => tearDownPiSuite({ strayPids, server, dirs: [scratch] }));

  test("one message, eight calls: every call answers its own question, in the order of the calls", (t) => {
    assert.equal(run.code, 0, explainRun(run));
    assert.deepEqual(
      run.events.filter((e) => e.type === "__unparsable__"),
      [],
      "stdout is pure JSONL",
    );
    const bodies = server.bodiesFor(MODEL);
    assert.equal(bodies.length, 2, "one tool-call turn, one final turn");

    // Pi took the eight calls from one assistant message, arguments reassembled.
    const asked = run.events.filter((e) => e.type === "message_end" && e.message?.role === "assistant");
    const toolCalls = asked[0].message.content.filter((c) => c.type === "toolCall");
    assert.deepEqual(
      toolCalls.map((c) => [c.id, c.arguments]),
      CALLS.map((c) => [c.id, { request: c.request }]),
    );
    const starts = run.events.filter((e) => e.type === "tool_execution_start" && e.toolName === TOOL);
    assert.deepEqual(
      starts.map((e) => e.toolCallId),
      ids,
    );

    // What Pi reported for each call (tool_execution_end, in the order the calls finished).
    const ends = new Map(
      run.events.filter((e) => e.type === "tool_execution_end" && e.toolName === TOOL).map((e) => [e.toolCallId, e]),
    );
    assert.deepEqual([...ends.keys()].sort(), [...ids].sort(), "one end per call");
    t.diagnostic(`finished in the order: ${[...ends.keys()].join(", ")}`);

    // What the model got: the tool messages of its second request, in the order of the calls.
    const sent = bodies[1].messages.filter((m) => m.role === "tool");
    assert.deepEqual(
      sent.map((m) => m.tool_call_id),
      ids,
      "the results come back in the order of the calls",
    );
    // Pi's own transcript holds the results in that order too.
    const results = run.events.filter((e) => e.type === "message_end" && e.message?.role === "toolResult");
    assert.deepEqual(
      results.map((e) => e.message.toolCallId),
      ids,
    );

    CALLS.forEach((call, i) => {
      const end = ends.get(call.id);
      const text = contentText(sent[i]);
      assert.equal(end.isError, false, `${call.id} failed: ${contentText(end.result)}`);
      assert.equal(contentText(end.result), text, `${call.id}: what Pi reported is what the model got`);
      assert.equal(results[i].message.isError, false);
      // Its own question's answer...
      assert.ok(text.includes(heading(call.request)), `${call.id} answers "${call.request}":\n${text.slice(0, 600)}`);
      assert.ok(text.includes(call.names), `${call.id}'s answer names ${call.names}`);
      // ...and no other call's.
      for (const other of CALLS) {
        if (other !== call) assert.ok(!text.includes(heading(other.request)), `${call.id} holds ${other.id}'s answer`);
      }
      const d = end.result.details;
      assert.equal(d.exitCode, 0);
      assert.equal(d.cliVersion, "1.6.1");
      assert.equal(d.cwd, ws, "ran in Pi's workspace");
      assert.equal(d.parallelLimit, Number(LIMIT));
      assert.ok(d.durationMs >= d.queueMs, `${call.id}: the total includes the queue wait`);
      t.diagnostic(`${call.id} durationMs=${d.durationMs} queueMs=${d.queueMs} runMs=${d.runMs}`);
    });
    const waited = CALLS.filter((call) => ends.get(call.id).result.details.queueMs > 0).length;
    assert.equal(waited, CALLS.length - Number(LIMIT), "all but the first three waited for a turn");
    assert.match(assistantText(run.events), /FAKE_MODEL_DONE/, "Pi ran the model's second turn");
  });

  test("no codegraph process is left running after Pi exits", { skip: !LINUX && "reads /proc" }, async (t) => {
    const list = [...seen].map(([pid, cmd]) => `${pid} ${cmd}`).join("\n");
    t.diagnostic(
      `processes seen in the workspace: ${seen.size}; CodeGraph CLI processes at once: at most ${mostAtOnce}`,
    );
    // The watcher saw the CLI run (so the checks below are not vacuous), and the runs overlapped.
    assert.ok(mostAtOnce >= 2, `the explores ran concurrently; seen:\n${list}`);
    assert.ok(mostAtOnce <= Number(LIMIT), `at most ${LIMIT} ran at once on the index; seen:\n${list}`);
    try {
      await waitFor(() => processesIn(ws).length === 0, { timeoutMs: 3000, what: "the workspace's processes to end" });
    } catch {
      // Still running in the workspace: ours for sure; the teardown kills them (by pid).
      const left = processesIn(ws);
      strayPids.push(...left.map((p) => p.pid));
      assert.deepEqual(left, [], "processes left running in the workspace");
    }
    // One that left the workspace (a daemon's chdir) is still a CodeGraph process under its pid.
    assert.deepEqual(
      [...seen.keys()].filter((pid) => isAlive(pid) && cmdline(pid).includes("codegraph")),
      [],
      `every CodeGraph process seen in the workspace has ended; seen:\n${list}`,
    );
  });
});
