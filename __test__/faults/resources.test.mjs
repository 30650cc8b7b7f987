// Running out of resources (file descriptors, processes, memory) is CODEGRAPH_RESOURCES with a
// remediation naming the resource, never the host's death, and the next call works once the
// resource is back. Each case drives a real child host (helpers/resource-host.cjs) that holds
// every descriptor but a few, at different points: before the runner loads, after the addon
// loaded but before its runtime started, between calls, and around the spawn and the
// full-output file (a truncated answer), and under `prlimit --nofile`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fakeCli, makeWorkspace, root, shellFake } from "../helpers/index.mjs";
import { runNode } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();
const HOST = path.join(root, "__test__", "helpers", "resource-host.cjs");
const FREES = "0,1,2,3,4,5,6,7,8,10,12,16";
const PRLIMIT = ["/usr/bin/prlimit", "/bin/prlimit"].find((p) => spawnSync(p, ["--version"]).status === 0);

/** The records the host printed; asserts it survived and every outcome is an answer or CODEGRAPH_RESOURCES. */
function verdict(run) {
  assert.equal(run.signal, null, `the host died: ${run.signal}\n${run.stderr}`);
  assert.equal(run.code, 0, `the host exited ${run.code}\n${run.stderr}`);
  const records = run.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(records.at(-1), { survived: true }, run.stdout);
  const calls = records.filter((r) => "free" in r);
  for (const c of calls) {
    if (!c.ok) {
      assert.equal(c.code, "CODEGRAPH_RESOURCES", JSON.stringify(c));
      assert.match(c.message, /ran out of (file descriptors|processes|memory)/, c.message);
    }
  }
  for (const r of records.filter((r) => r.after)) assert.ok(r.after.ok, `after release: ${JSON.stringify(r.after)}`);
  return calls;
}

// Each test starts Node hosts under resource limits: through explore (the default);
// the focused tools reach the same run() (tools-seam.test.mjs), both runners.
eachRunner(
  "out of resources",
  ({ entry, toolEnv }) => {
    const runnerEntry = JSON.parse(entry);
    const answer = () => fakeCli([["stdout", "an answer\n"]]);
    for (const phase of ["before-load", "after-load", "warm"]) {
      test(`no file descriptors left (${phase}): CODEGRAPH_RESOURCES, the host lives, the next call answers`, async () => {
        const run = await runNode([HOST, runnerEntry, suite.ws, answer().file, phase, FREES], {
          env: { ...process.env, ...toolEnv },
          timeoutMs: 60000,
        });
        const calls = verdict(run);
        assert.ok(
          calls.some((c) => !c.ok),
          `some call met the limit: ${run.stdout}`,
        );
      });
    }

    test("no file descriptors left while a truncated answer's full output is kept: answered or coded", async () => {
      const fake = fakeCli([["stdout", `${Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n")}\n`]]);
      const run = await runNode([HOST, runnerEntry, suite.ws, fake.file, "warm", FREES], {
        env: { ...process.env, ...toolEnv },
        timeoutMs: 60000,
      });
      verdict(run);
    });

    test("the remediation names the resource", async () => {
      const run = await runNode([HOST, runnerEntry, suite.ws, answer().file, "warm", "0"], {
        env: { ...process.env, ...toolEnv },
        timeoutMs: 60000,
      });
      const [call] = verdict(run);
      assert.equal(call.code, "CODEGRAPH_RESOURCES");
      assert.match(call.message, /file descriptors \(this process's limit\)/);
    });

    test("under a process limit (`prlimit --nproc=N` as another user): coded, and the host lives", {
      skip: (!PRLIMIT || process.getuid?.() !== 0) && "needs root (to run as nobody) and prlimit",
    }, async (t) => {
      const ws = makeWorkspace();
      fs.chmodSync(ws, 0o755);
      // A shell CLI: under a process limit a Node CLI cannot start its own threads (it aborts).
      const fake = shellFake('echo "an answer"', "a CLI that needs no threads of its own");
      for (const p of [fake.dir, fake.file]) fs.chmodSync(p, 0o755);
      let started = 0;
      for (const n of [13, 14, 16]) {
        // Node itself may not start under a tight limit (its own threads): then nothing of ours ran.
        const run = await runNode(
          [`--nproc=${n}`, process.execPath, HOST, runnerEntry, ws, fake.file, "after-load", "64"],
          { command: PRLIMIT, env: { ...process.env, ...toolEnv }, uid: 65534, gid: 65534, timeoutMs: 15000 },
        );
        if (!run.stdout.trim()) {
          t.diagnostic(`nproc=${n}: Node did not start (${run.signal ?? run.code})`);
          continue;
        }
        started += 1;
        assert.equal(run.signal, null, `nproc=${n}: the host died of ${run.signal}\n${run.stderr}`);
        const records = run.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        assert.deepEqual(records.at(-1), { survived: true }, `nproc=${n}: ${run.stdout}`);
        for (const c of records.filter((r) => "free" in r || r.after).map((r) => r.after ?? r))
          if (!c.ok) assert.equal(c.code, "CODEGRAPH_RESOURCES", `nproc=${n}: ${JSON.stringify(c)}`);
      }
      t.diagnostic(`Node started under ${started} of 3 limits`);
    });

    test("under `prlimit --nofile=N` from the start the host never dies", {
      skip: !PRLIMIT && "no prlimit",
    }, async () => {
      for (const n of [22, 24, 26, 28, 30, 34]) {
        const run = await runNode(
          [`--nofile=${n}`, process.execPath, HOST, runnerEntry, suite.ws, answer().file, "after-load", "64"],
          { command: PRLIMIT, env: { ...process.env, ...toolEnv }, timeoutMs: 60000 },
        );
        assert.equal(run.signal, null, `nofile=${n}: the host died of ${run.signal}\n${run.stderr}`);
        assert.equal(run.code, 0, `nofile=${n}: the host exited ${run.code}\n${run.stderr.slice(-2000)}`);
        const records = run.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        for (const c of records.filter((r) => "free" in r))
          if (!c.ok) assert.equal(c.code, "CODEGRAPH_RESOURCES", `nofile=${n}: ${JSON.stringify(c)}`);
        assert.doesNotMatch(run.stderr, /panicked|backtrace/, `nofile=${n}: nothing printed into the host's terminal`);
      }
    });
  },
  { tools: ["explore"] },
);
