// CodeGraph's lock files judged by CodeGraph 1.6.1's own rules (dist/utils.js FileLock,
// dist/mcp/writer-lock.js): `codegraph.lock` lives only when kill(pid, 0) succeeds, so another
// user's live process (EPERM: pid 1, a pid reused after a reboot) is a stale lock, which the CLI
// writes over; `rebuild.pid` lives on EPERM too. The pid is parseInt's.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { afterEach, test } from "node:test";
import { expectError, expectResult, fakeCli, makeWorkspace } from "../helpers/index.mjs";
import { procStat, runNode, waitFor } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

useFaultsSuite();

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
/** A workspace (readable by `nobody`) whose `.codegraph/<name>` holds `content`. */
function lockedWorkspace(name, content) {
  const ws = makeWorkspace();
  fs.writeFileSync(path.join(ws, ".codegraph", name), content);
  for (const p of [ws, path.join(ws, ".codegraph")]) fs.chmodSync(p, 0o777);
  fs.chmodSync(path.join(ws, ".codegraph", "codegraph.db"), 0o666);
  return ws;
}

/**
 * explore() in a child host running as another user than pid 1's owner (nobody when we are root),
 * with `timeoutMs` (a busy index is waited for until it, so a test that expects the wait gives it
 * the least that shows it).
 */
async function exploreAsOtherUser(callee, ws, bin, timeoutMs = 3000) {
  const script = `process.env.PI_CODEGRAPH_BIN = ${JSON.stringify(bin)};
    (${callee})("q", ${JSON.stringify(ws)}, null, { timeoutMs: ${timeoutMs} }).then(
      (r) => console.log(JSON.stringify({ text: r.text })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));`;
  const run = await runNode(["-e", script], isRoot ? { uid: NOBODY, gid: NOBODY } : {});
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split("\n").at(-1));
}

/** Live processes to name in lock files: killed, and reaped, after each test. */
const holders = [];
afterEach(async () => {
  for (const child of holders.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, "exit");
    child.kill("SIGKILL");
    await exited;
  }
});
function holder() {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  holders.push(child);
  return child;
}

// Each test starts a host as another user: through explore (the default);
// the focused tools reach the same run() (tools-seam.test.mjs), both runners.
eachRunner(
  "lock files judged as CodeGraph judges them",
  ({ exploreWith, callee }) => {
    const answering = () => {
      const fake = fakeCli([["stdout", "an answer\n"]]);
      for (const p of [fake.dir, fake.file]) fs.chmodSync(p, 0o755);
      fs.chmodSync(`${fake.file}.spec.json`, 0o644);
      return fake;
    };

    test("codegraph.lock naming another user's live process (pid 1, EPERM) is stale: no wait, an interrupted write", async () => {
      const ws = lockedWorkspace("codegraph.lock", "1\n");
      const started = Date.now();
      const out = await exploreAsOtherUser(callee, ws, answering().file);
      // Stale by CodeGraph's rule: the write that took it never finished (refused at once, as
      // lib/words says: rebuild, or unlock to use the index as it is).
      assert.equal(out.code, "CODEGRAPH_INDEX_INTERRUPTED", out.message);
      assert.ok(Date.now() - started < 2500, "no wait for a writer that is not one");
    });

    test("rebuild.pid naming another user's live process (EPERM) is a live rebuild, as CodeGraph says", async () => {
      const ws = lockedWorkspace("rebuild.pid", JSON.stringify({ pid: 1, mode: "rebuild", startedAt: 1 }));
      const out = await exploreAsOtherUser(callee, ws, answering().file, 600);
      assert.equal(out.code, "CODEGRAPH_INDEX_BUSY", out.message);
    });

    test("codegraph.lock read as parseInt reads it: `<pid>abc` and ` <pid>\\n` name a live writer", async () => {
      for (const content of [`${process.pid}abc`, ` ${process.pid}\n`]) {
        const ws = lockedWorkspace("codegraph.lock", content);
        const outcome = await exploreWith(answering().file, "q", ws, null, { timeoutMs: 400 });
        expectError(outcome, "CODEGRAPH_INDEX_BUSY");
      }
    });

    test("rebuild.pid without CodeGraph's `mode` is not CodeGraph's: answered", async () => {
      const ws = lockedWorkspace("rebuild.pid", JSON.stringify({ pid: process.pid }));
      expectResult(await exploreWith(answering().file, "q", ws));
    });

    test("a lock naming a zombie (exited, not reaped) is no writer: refused at once as an interrupted write", async (t) => {
      if (process.platform !== "linux") return t.skip("zombie state from /proc");
      // The child exits once its parent has exec'd into sleep (which never reaps it; the shell
      // itself might, before its exec): it stays a zombie.
      const parent = spawn("/bin/sh", ["-c", "/bin/sleep 1 & echo $!; exec /bin/sleep 30"], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      holders.push(parent);
      let out = "";
      parent.stdout.on("data", (d) => {
        out += d;
      });
      await waitFor(() => out.includes("\n"), { what: "the zombie's pid" });
      const zombie = Number(out.trim());
      await waitFor(() => procStat(zombie)?.state === "Z", {
        what: `the zombie ${zombie} (${JSON.stringify(procStat(zombie))})`,
      });
      const ws = lockedWorkspace("codegraph.lock", String(zombie));
      const outcome = await exploreWith(answering().file, "q", ws, null, { timeoutMs: 5000 });
      expectError(outcome, "CODEGRAPH_INDEX_INTERRUPTED");
      assert.ok(outcome.ms < 2500, `took ${outcome.ms} ms`);
    });

    test("the lock replaced during the wait: the busy error names the writer holding it at the end", async () => {
      const first = holder();
      const second = holder();
      const ws = lockedWorkspace("codegraph.lock", String(first.pid));
      const lock = path.join(ws, ".codegraph", "codegraph.lock");
      const pending = exploreWith(answering().file, "q", ws, null, { timeoutMs: 1200 });
      // Another writer takes over (atomically, as a new lock file) and the first one ends.
      fs.writeFileSync(`${lock}.tmp`, String(second.pid));
      fs.renameSync(`${lock}.tmp`, lock);
      first.kill("SIGKILL");
      const err = expectError(await pending, "CODEGRAPH_INDEX_BUSY");
      assert.ok(err.message.includes(`pid ${second.pid} holds`), err.message);
    });
  },
  { tools: ["explore"] },
);
