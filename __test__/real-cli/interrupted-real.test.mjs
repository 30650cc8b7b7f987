// What an interrupted write leaves with the real pinned CodeGraph 1.6.1, and that we never call it
// ready: an `init` cancelled through our runner (as Esc in the loader or /codegraph cancel does),
// a rebuild cancelled the same way, and an `init` whose host process (Pi) was stopped by SIGTERM.
// Each leaves `codegraph.lock` naming a process that is gone (and CodeGraph's own status says
// state "indexing": the last index run never finished); then diagnose says
// CODEGRAPH_INDEX_INTERRUPTED, explore is refused, `/codegraph status` still reads CodeGraph's
// report, and a rebuild makes it ready. Both runners. (CodeGraph's own `index.state` is no
// reliable sign: stopped right after it took its lock, an init leaves state null and 0 files.)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { isAlive, REAL_CLI_PATH, root, tempDir, waitFor, withEnv } from "../helpers/index.mjs";
import { codegraphSaid, hostWith, recordingUi } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const { verbCommand } = require("../../lib/contract/verbs.js");
const { parseIndexStatus } = require("../../lib/contract/index-status.js");
const realBin = path.join(root, "node_modules", ".bin");
const cliMissing = fs.existsSync(path.join(realBin, "codegraph")) ? false : "the pinned CodeGraph CLI is not installed";
const realPath = REAL_CLI_PATH.join(path.delimiter);
const ENV = { PATH: realPath, DO_NOT_TRACK: "1", PI_CODEGRAPH_BIN: undefined, CODEGRAPH_DIR: undefined };

/** A project of `n` small TypeScript files: long enough an init to be stopped mid-write. */
const FILES = 1500;
function project(n = FILES) {
  const ws = path.join(tempDir("pi-codegraph-interrupted-real-"), "p");
  fs.mkdirSync(path.join(ws, "src"), { recursive: true });
  fs.writeFileSync(path.join(ws, "package.json"), "{}\n");
  for (let i = 0; i < n; i++)
    fs.writeFileSync(
      path.join(ws, "src", `m${i}.ts`),
      `export function f${i}(a: number) { return a + ${i}; }\nexport class C${i} { m() { return f${i}(1); } }\n`,
    );
  return ws;
}

for (const impl of implementations) {
  const { diagnose, explore, run } = impl.module;
  const lockOf = (ws) => path.join(ws, ".codegraph", "codegraph.lock");

  /** What must hold after an interrupted write: not ready, explore refused, CodeGraph's status not complete. */
  async function assertInterrupted(ws, t) {
    const d = await diagnose(ws);
    assert.equal(d.ready, false, "never ready on an unfinished index");
    assert.equal(d.problemCode, "CODEGRAPH_INDEX_INTERRUPTED", `${d.problemCode}: ${d.problem}`);
    await assert.rejects(explore("f12", ws), { code: "CODEGRAPH_INDEX_INTERRUPTED" });
    const status = parseIndexStatus((await run(verbCommand("status"), ws)).text);
    t.diagnostic(`CodeGraph's status: state ${status.state}, ${status.fileCount} files`);
    // "indexing" once CodeGraph marked the run (its status then says it never finished); null when
    // it was stopped before the mark reached the disk. Never "complete", and never all the files.
    assert.notEqual(status.state, "complete");
    assert.ok(!(status.fileCount >= FILES), `${status.fileCount} of ${FILES} files`);
    return d;
  }

  describe(`${impl.name}: interrupted writes with the real CodeGraph CLI`, {
    skip: cliMissing,
    timeout: 120000,
  }, () => {
    test("init cancelled mid-write, then a cancelled rebuild: interrupted each time; a whole rebuild makes it ready", async (t) => {
      const ws = project();
      await withEnv(ENV, async () => {
        const ac = new AbortController();
        const init = run(verbCommand("init"), ws, ac.signal).catch((e) => e);
        await waitFor(() => fs.existsSync(lockOf(ws)), { timeoutMs: 20000, what: "init to take its lock" });
        ac.abort();
        assert.equal((await init).code, "CODEGRAPH_CANCELLED");
        t.diagnostic(`left: ${fs.readdirSync(path.join(ws, ".codegraph")).join(", ")}`);
        assert.ok(fs.existsSync(lockOf(ws)), "the stopped init left its lock");
        await assertInterrupted(ws, t);

        const again = new AbortController();
        const rebuild = run(verbCommand("rebuild"), ws, again.signal).catch((e) => e);
        const rebuildPid = path.join(ws, ".codegraph", "rebuild.pid");
        await waitFor(() => fs.existsSync(rebuildPid) && isLive(ws), {
          timeoutMs: 20000,
          what: "the rebuild to take its locks",
        });
        again.abort();
        assert.equal((await rebuild).code, "CODEGRAPH_CANCELLED");
        const d = await assertInterrupted(ws, t);
        assert.match(d.problem, /the last rebuild of this workspace's CodeGraph index never finished/);

        await run(verbCommand("rebuild"), ws);
        const ready = await diagnose(ws);
        assert.equal(ready.ready, true, `${ready.problemCode}: ${ready.problem}`);
        assert.match((await explore("f12", ws)).text, /f12/);
      });
    });

    test("init whose host (Pi) is stopped by SIGTERM: the CLI is stopped with it and the index is not ready", async (t) => {
      const ws = project();
      await withEnv(ENV, async () => {
        const load =
          impl.id === "node"
            ? `require(${JSON.stringify(path.join(root, "index.js"))}).forRunner(require(${JSON.stringify(path.join(root, "lib", "runners", "node.js"))}))`
            : `require(${JSON.stringify(path.join(root, "index.js"))})`;
        const script = `const pkg = ${load};
          const { verbCommand } = require(${JSON.stringify(path.join(root, "lib", "contract", "verbs.js"))});
          pkg.run(verbCommand("init"), ${JSON.stringify(ws)}).then(() => console.log("finished"), (e) => console.log(e.code));`;
        const host = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
        let said = "";
        host.stdout.on("data", (d) => {
          said += d;
        });
        await waitFor(() => fs.existsSync(lockOf(ws)) && isLive(ws), {
          timeoutMs: 20000,
          what: "init to take its lock",
        });
        const writer = Number(fs.readFileSync(lockOf(ws), "utf8"));
        host.kill("SIGTERM");
        await once(host, "exit");
        await waitFor(() => !isAlive(writer), {
          timeoutMs: 10000,
          what: `the CLI (pid ${writer}) to stop with its host`,
        });
        t.diagnostic(
          `host said: ${JSON.stringify(said)}; left: ${fs.readdirSync(path.join(ws, ".codegraph")).join(", ")}`,
        );
        await assertInterrupted(ws, t);
      });
    });
  });
}

// The verbs a user types after a stopped rebuild tell one state (the real CLI, the addon): the
// unlock dialog names only what CodeGraph's unlock removes (each gone after it), /codegraph,
// /codegraph status and a second unlock agree that the index is usable but unfinished, and a whole
// rebuild ends that.
describe("after a cancelled rebuild, the verbs tell one state", { skip: cliMissing, timeout: 120000 }, () => {
  test("unlock removes what it names; /codegraph, status and a second unlock agree; a whole rebuild ends it", async () => {
    const ws = project();
    const { run } = implementations[0].module;
    await withEnv(ENV, async () => {
      await run(verbCommand("init"), ws);
      const ac = new AbortController();
      const rebuild = run(verbCommand("rebuild"), ws, ac.signal).catch((e) => e);
      await waitFor(() => fs.existsSync(path.join(ws, ".codegraph", "rebuild.pid")) && isLive(ws), {
        timeoutMs: 20000,
        what: "the rebuild to take its locks",
      });
      ac.abort();
      assert.equal((await rebuild).code, "CODEGRAPH_CANCELLED");

      const host = await hostWith(implementations[0].module, "interrupted");
      const ctx = { cwd: ws, hasUI: true, ui: recordingUi() };
      await host.startSession(ctx);
      const said = (args) => codegraphSaid(host, ctx, args);
      assert.match(
        await said(""),
        /not ready \(CODEGRAPH_INDEX_INTERRUPTED\)[\s\S]*Next: \/codegraph rebuild, or \/codegraph unlock/,
      );

      const unlocked = await said("unlock");
      const [dialog] = ctx.ui.confirms;
      const named = [...dialog.body.matchAll(/(\S+\.codegraph\/\S+?)[,.]? /g)].map((m) => m[1]);
      assert.deepEqual(
        named.map((f) => path.basename(f)),
        ["codegraph.lock"],
        dialog.body,
      );
      assert.equal(fs.existsSync(named[0]), false, "what the dialog named is gone");
      assert.match(unlocked, /\/codegraph unlock: done in [\s\S]*Note: the index may hold only part of the project/);

      const brief = await said("");
      assert.match(brief, /^pi-codegraph: ready, from an unfinished index[\s\S]*\nNext: \/codegraph rebuild/);
      const status = await said("status");
      assert.match(status, /state: unfinished \(the last index write was stopped before its end/);
      assert.match(status, /lock: none/);
      assert.doesNotMatch(status, /stale|extractor changed|state: indexing/);

      const again = await said("unlock");
      assert.equal(ctx.ui.confirms.length, 1, "nothing to remove: nothing asked");
      assert.match(again, /^\/codegraph unlock: no stale lock was there; nothing changed\./);
      assert.doesNotMatch(again, /done/);

      await said("rebuild --yes");
      assert.match(await said(""), /^pi-codegraph: ready\n/);
      assert.doesNotMatch(await said("status"), /unfinished|rebuild recommended/);
      await host.shutdown(ctx);
    });
  });
});

/** The lock names a live process (the write is under way, not yet stopped). */
function isLive(ws) {
  try {
    const pid = Number.parseInt(fs.readFileSync(path.join(ws, ".codegraph", "codegraph.lock"), "utf8"), 10);
    return pid > 0 && isAlive(pid);
  } catch {
    return false;
  }
}
