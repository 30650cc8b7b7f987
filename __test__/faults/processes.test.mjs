// Nothing left running: grandchildren, daemons, strays that left the group, aborts at every
// stage, and a host that exits or is killed while a call runs.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import { expectError, expectResult, fakeCli, shellFake, tempDir, withEnv } from "../helpers/index.mjs";
import {
  assertNothingLeft,
  cleanup,
  isAlive,
  processesDie,
  procStat,
  runNode,
  waitFor,
} from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();

eachRunner("the CLI's descendants", ({ exploreWith }) => {
  test("exits but leaves a grandchild holding stdout open: the answer, promptly, grandchild killed", async () => {
    const fake = fakeCli([["grandchild", "inherit"], ["report"], ["stdout", "answer before exit\n"]]);
    const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 20000 });
    const result = expectResult(outcome);
    assert.equal(result.text, "answer before exit\n");
    assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
    const p = fake.readPids();
    await processesDie([p.grandchild], "the grandchild to die");
    await assertNothingLeft();
  });

  /** A fake that starts a daemon in a new session (ignoring SIGTERM), waits until it runs, answers, exits. */
  const daemonFake = (stdio) =>
    fakeCli([["daemon", stdio], ["report"], ["stdout", "answer from a daemonising CLI\n"], ["exit", 0]]);

  test("forks a daemon (new session, ignores SIGTERM): the call settles with the answer and the CLI is reaped", async (t) => {
    const fake = daemonFake("ignore");
    let p;
    try {
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 20000 });
      const result = expectResult(outcome);
      assert.equal(result.text, "answer from a daemonising CLI\n");
      assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
      p = fake.readPids();
      assert.ok(!isAlive(p.self), "the CLI itself is gone");
      // The documented limit (docs/security.md, "Nothing left running"): a daemon in its own session is
      // outside the process group and the reaper's reach; only a cgroup could follow it.
      const st = procStat(p.daemon);
      t.diagnostic(
        `daemon ${p.daemon} after the call: ${st && st.state !== "Z" ? "still running (escaped the group)" : "gone"}`,
      );
    } finally {
      cleanup(p?.daemon);
    }
    await assertNothingLeft();
  });

  test("forks a daemon that keeps stdout open (new session): the call still settles promptly", async (t) => {
    const fake = daemonFake(["ignore", "inherit", "inherit"]);
    let p;
    try {
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 20000 });
      const result = expectResult(outcome);
      assert.equal(result.text, "answer from a daemonising CLI\n");
      assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms (must not wait for the daemon or the timeout)`);
      p = fake.readPids();
      t.diagnostic(`daemon ${p.daemon} after the call: ${isAlive(p.daemon) ? "still running" : "gone"}`);
    } finally {
      cleanup(p?.daemon);
    }
    await assertNothingLeft();
  });

  test("a descendant that left the process group (setpgid) dies with the tree on timeout", async () => {
    // perl's setpgrp(0, 0) moves the child into a process group of its own.
    const fake = shellFake(
      `perl -e 'setpgrp(0, 0); sleep 1000' &\nstray=$!\nwhile [ "$(cut -d' ' -f5 /proc/$stray/stat)" = "$$" ]; do sleep 0.01; done\npg=$(cut -d' ' -f5 /proc/$stray/stat)\necho "{\\"self\\": $$, \\"stray\\": $stray, \\"strayGroup\\": $pg}" > "$PIDS.tmp" && mv "$PIDS.tmp" "$PIDS"\nwait`,
      "a child that calls setpgrp (perl) and waits until it left the group",
    );
    let p;
    try {
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 1000 });
      expectError(outcome, "CODEGRAPH_TIMEOUT");
      p = fake.readPids();
      assert.ok(p, "the fake had started");
      assert.notEqual(p.strayGroup, p.self, "the stray really left the CLI's group");
      await processesDie([p.self, p.stray], "the stray outside the group to die");
    } finally {
      cleanup(p?.stray);
    }
    await assertNothingLeft();
  });
});

eachRunner("the host", ({ explore, exploreWith, callee }) => {
  /**
   * Writes its pid to the file the request names in `pids` (so calls are told apart; a bare name,
   * which every tool passes as it is), then hangs.
   */
  let sleeper;
  let pids;
  before(() => {
    pids = tempDir("pi-codegraph-faults-pids-");
    sleeper = fakeCli([["pidToRequest", pids], ["hang"]]);
  });
  let k = 0;
  const pidFile = () => {
    k += 1;
    return `call-${k}.pid`;
  };
  const readPid = (f) =>
    fs.existsSync(path.join(pids, f)) ? Number(fs.readFileSync(path.join(pids, f), "utf8")) : null;

  test("50 aborts in a row, at every stage: all CODEGRAPH_CANCELLED, nothing left", async (t) => {
    const started = [0, 0, 0]; // per stage: calls whose CLI had written its pid
    for (let i = 0; i < 50; i += 1) {
      const f = pidFile();
      const ac = new AbortController();
      const pending = exploreWith(sleeper.file, f, suite.ws, ac.signal, { timeoutMs: 15000 });
      const stage = i % 3;
      if (stage === 0)
        ac.abort(); // before the CLI can have started
      else if (stage === 1) await new Promise((r) => setImmediate(r)).then(() => ac.abort());
      else {
        await waitFor(() => readPid(f), { what: `call ${i} to start` });
        ac.abort();
      }
      const outcome = await pending;
      expectError(outcome, "CODEGRAPH_CANCELLED");
      assert.ok(outcome.ms < 5000, `call ${i} took ${outcome.ms} ms`);
      const pid = readPid(f);
      if (pid) started[stage] += 1;
      if (pid) await waitFor(() => !isAlive(pid), { timeoutMs: 2000, what: `call ${i}'s CLI to die` });
      assert.equal(getEventListeners(ac.signal, "abort").length, 0, "the abort listener was removed");
    }
    // Stage 2 waited for each CLI, so all 16 of them ran; stages 0 and 1 may or may not have.
    assert.equal(started[2], 16);
    t.diagnostic(`CLIs that had started when aborted, by stage (sync, next tick, running): ${started.join(", ")}`);
    await assertNothingLeft();
  });

  test("abort before start: CODEGRAPH_CANCELLED at once, nothing runs, no listener left", async () => {
    const ac = new AbortController();
    ac.abort();
    const f = pidFile();
    const outcome = await exploreWith(sleeper.file, f, suite.ws, ac.signal);
    expectError(outcome, "CODEGRAPH_CANCELLED");
    assert.ok(outcome.ms < 1000);
    assert.equal(getEventListeners(ac.signal, "abort").length, 0);
    assert.equal(fs.existsSync(f), false, "the CLI never started");
    await assertNothingLeft();
  });

  test("one AbortSignal reused for several calls, then aborted: finished calls unaffected, running ones cancelled", async () => {
    const echo = fakeCli([["stdout", "done\n"]]);
    const ac = new AbortController();
    let own = 0;
    ac.signal.addEventListener("abort", () => {
      own += 1;
    });
    for (let i = 0; i < 3; i += 1) {
      assert.equal(expectResult(await exploreWith(echo.file, "q", suite.ws, ac.signal)).text, "done\n");
    }
    assert.equal(getEventListeners(ac.signal, "abort").length, 1, "finished calls removed their listeners");
    const files = [pidFile(), pidFile(), pidFile()];
    // All three run at once (not the machine's parallel limit): the subject is the signal.
    const pending = withEnv({ PI_CODEGRAPH_BIN: sleeper.file, PI_CODEGRAPH_MAX_PARALLEL: "3" }, async () =>
      files.map((f) =>
        explore(f, suite.ws, ac.signal, { timeoutMs: 15000 }).then(
          (value) => ({ value }),
          (error) => ({ error }),
        ),
      ),
    );
    const running = await pending;
    const started = await waitFor(() => files.every(readPid) && files.map(readPid), { what: "three calls to start" });
    assert.equal(getEventListeners(ac.signal, "abort").length, 4);
    ac.abort();
    for (const outcome of await Promise.all(running)) expectError(outcome, "CODEGRAPH_CANCELLED");
    await waitFor(() => started.every((p) => !isAlive(p)), { timeoutMs: 2000, what: "all three CLIs to die" });
    assert.equal(own, 1, "the caller's own listener fired once");
    assert.equal(getEventListeners(ac.signal, "abort").length, 1, "only the caller's listener remains");
    // And the spent signal cancels any later call at once.
    expectError(await exploreWith(echo.file, "q", suite.ws, ac.signal), "CODEGRAPH_CANCELLED");
    await assertNothingLeft();
  });

  test("a script whose only pending work is an explore waits for the answer", async () => {
    const slow = fakeCli([
      ["sleep", 500],
      ["stdout", "late answer\n"],
    ]);
    const script = `${callee}("q", ${JSON.stringify(suite.ws)}).then(
      (r) => process.stdout.write("RESULT " + r.text), (e) => process.stdout.write("ERROR " + e.code));`;
    const r = await runNode(["-e", script], { env: { ...process.env, PI_CODEGRAPH_BIN: slow.file } });
    assert.equal(r.stdout, "RESULT late answer\n", r.stderr);
    await assertNothingLeft();
  });

  /** A child Node that starts an explore of a hanging CLI (with a grandchild) and reports its pids. */
  function hostScript(then) {
    const fake = fakeCli([["grandchild", "ignore"], ["report"], ["hang"]]);
    const script = `
const fs = require("node:fs");
${callee}("q", ${JSON.stringify(suite.ws)}).then(
() => process.stdout.write("SETTLED\\n"), (e) => process.stdout.write("SETTLED " + e.code + "\\n"));
const t = setInterval(() => {
if (!fs.existsSync(${JSON.stringify(fake.pids)})) return;
clearInterval(t);
process.stdout.write("RUNNING\\n");
${then}
}, 5);
setTimeout(() => process.exit(3), 10000);`;
    return { fake, script };
  }

  async function assertDiesWithHost(t, { fake }, r) {
    const p = fake.readPids();
    assert.ok(p, `the CLI had started (host stdout: ${r.stdout}, stderr: ${r.stderr})`);
    try {
      await waitFor(() => !isAlive(p.self) && !isAlive(p.grandchild), {
        timeoutMs: 3000,
        what: "the CLI tree to die with its host",
      }).catch((e) => {
        const state = (pid) => `${pid}: ${isAlive(pid) ? `alive, ppid ${procStat(pid)?.ppid}` : "gone"}`;
        t.diagnostic(`after the host ended: CLI ${state(p.self)}; grandchild ${state(p.grandchild)}`);
        throw e;
      });
    } finally {
      cleanup(p.self, p.grandchild);
    }
    await assertNothingLeft();
  }

  test("Node calls process.exit(0) while a call runs: the CLI tree dies with it", async (t) => {
    const host = hostScript("process.exit(0);");
    const r = await runNode(["-e", host.script], { env: { ...process.env, PI_CODEGRAPH_BIN: host.fake.file } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "RUNNING\n");
    await assertDiesWithHost(t, host, r);
  });

  test("Node is SIGKILLed while a call runs: the CLI tree dies with it where the OS allows", async (t) => {
    const host = hostScript("");
    const r = await runNode(["-e", host.script], {
      env: { ...process.env, PI_CODEGRAPH_BIN: host.fake.file },
      onStdout: (out, child) => out.includes("RUNNING") && child.kill("SIGKILL"),
    });
    assert.equal(r.signal, "SIGKILL");
    await assertDiesWithHost(t, host, r);
  });
});
