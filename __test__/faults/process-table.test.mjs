// The catalogue's last word on processes (useFaultsSuite's after hook: helpers/processes.mjs's
// assertCleanProcessTable): its verdict is the look that ended its wait, so a child that ends
// just after a clean look (the --version probe the last call stopped, seen mid-exit) is no
// failure, while a child no one reaps is still reported, by name.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { assertCleanProcessTable, LINUX, leftovers, procStat, waitFor, zombieChildren } from "../helpers/processes.mjs";
import { useFaultsSuite } from "./suite.mjs";

useFaultsSuite();
const skip = !LINUX && "/proc is Linux";

test("a child that ends just after the table was found clean is not reported: Node reaps it when its loop turns", {
  skip,
}, async () => {
  // An empty environment: no mark, so while it runs it is nothing the check looks for.
  const child = spawn("/bin/sleep", ["30"], { env: {}, stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await waitFor(() => procStat(child.pid)?.comm === "sleep", { what: "sleep to run" });
  assert.deepEqual([leftovers(), zombieChildren()], [[], []], "a clean table before the check");
  const verdict = assertCleanProcessTable({ timeoutMs: 1000 }); // its first look, now: clean
  // The child ends after that look. This thread does not yield until it is a zombie, so Node
  // cannot reap it yet: what a look right after a clean one can find under load.
  child.kill("SIGKILL");
  const until = Date.now() + 2000;
  while (procStat(child.pid)?.state !== "Z" && Date.now() < until) {}
  assert.equal(procStat(child.pid)?.state, "Z", "the child is a zombie before the verdict");
  await verdict;
  await exited;
  assert.equal(procStat(child.pid), null, "Node reaped it once its loop turned");
});

test("a child no one reaps during the wait is reported, named by the kernel (a zombie has no command line)", {
  skip,
}, async () => {
  // A worker's child is reaped only by the worker's own event loop; while that loop is held, the
  // child stays a zombie of this process.
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     const child = require("node:child_process").spawn("/bin/sh", ["-c", "exit 0"], { env: {}, stdio: "ignore" });
     parentPort.postMessage(child.pid);
     Atomics.wait(workerData, 0, 0);`,
    { eval: true, workerData: gate },
  );
  try {
    const pid = await new Promise((resolve) => worker.once("message", resolve));
    await waitFor(() => procStat(pid)?.state === "Z", { what: "the worker's child to end" });
    await assert.rejects(assertCleanProcessTable({ timeoutMs: 200 }), (e) => {
      assert.match(e.message, /no unreaped \(zombie\) children of the test process/);
      assert.deepEqual(e.actual, [{ pid, ppid: process.pid, state: "Z", comm: "sh" }]);
      return true;
    });
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await waitFor(() => procStat(pid) === null, { what: "the worker to reap its child" });
  } finally {
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await worker.terminate();
  }
});
