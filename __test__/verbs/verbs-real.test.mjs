// The `/codegraph` verbs' command descriptions (lib/contract/verbs.js verbCommand) through run() with
// the real pinned CodeGraph 1.6.1 on a copy of the shop fixture, in lifecycle order (init, status,
// sync, rebuild, unlock, uninit), checking what each leaves on disk; and the runner's refusal of a
// write from a subdirectory, where CodeGraph itself would walk up to the project's index.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { REAL_CLI_PATH, rejectsWith, root, tempDir, withEnv } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const { verbCommand } = require("../../lib/contract/verbs.js");
const { parseIndexStatus, writeProgress } = require("../../lib/contract/index-status.js");
const realBin = path.join(root, "node_modules", ".bin");
const cliMissing = fs.existsSync(path.join(realBin, "codegraph")) ? false : "the pinned CodeGraph CLI is not installed";
const realPath = REAL_CLI_PATH.join(path.delimiter);

for (const impl of implementations) {
  describe(`${impl.name}: the verbs on the real CodeGraph CLI`, { skip: cliMissing, timeout: 120000 }, () => {
    let ws;
    let scratch;
    const run = (verb, opts) => impl.module.run(verbCommand(verb), ws, undefined, opts);
    const db = () => path.join(ws, ".codegraph", "codegraph.db");
    const env = (fn) => withEnv({ PATH: realPath, DO_NOT_TRACK: "1", PI_CODEGRAPH_BIN: undefined }, fn);

    before(() => {
      scratch = tempDir("pi-codegraph-verbs-real-");
      ws = path.join(scratch, "shop");
      fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
      fs.rmSync(path.join(ws, ".codegraph"), { recursive: true, force: true });
    });
    after(() => fs.rmSync(scratch, { recursive: true, force: true }));

    test("init → status → sync → rebuild → unlock → uninit", async (t) => {
      await env(async () => {
        const seen = [];
        const init = await run("init", { onProgress: (p) => seen.push(p.text) });
        assert.match(init.text, /Indexed 7 files/);
        assert.ok(fs.statSync(db()).size > 4096, "init made an index");
        t.diagnostic(`init: ${init.details.durationMs} ms; progress reports: ${seen.length}`);

        const status = parseIndexStatus((await run("status")).text);
        assert.equal(status.fileCount, 7);
        assert.equal(status.state, "complete");
        assert.equal(status.builtWithVersion, "1.6.1");
        assert.deepEqual(status.pendingChanges, { added: 0, modified: 0, removed: 0 });
        assert.equal(status.reindexRecommended, false);

        fs.appendFileSync(path.join(ws, "src", "cart.ts"), "\nexport function addedLater() { return 1; }\n");
        const pending = parseIndexStatus((await run("status")).text);
        assert.equal(pending.pendingChanges.modified, 1);
        const sync = await run("sync");
        assert.match(sync.text, /Synced 1 changed files|Modified: 1/);
        assert.equal(parseIndexStatus((await run("status")).text).pendingChanges.modified, 0);

        const rebuild = await run("rebuild");
        assert.match(rebuild.text, /Phase: parsing/);
        assert.deepEqual(writeProgress(rebuild.text.split("Phase: resolving")[0]), {
          phase: "parsing",
          done: 7,
          total: 7,
          percent: 100,
        });
        assert.equal(fs.existsSync(path.join(ws, ".codegraph", "rebuild.pid")), false, "the rebuild finished");

        // A stale lock, as a killed write leaves it.
        const lock = path.join(ws, ".codegraph", "codegraph.lock");
        fs.writeFileSync(lock, "2147483646");
        const unlock = await run("unlock");
        t.diagnostic(`unlock said: ${JSON.stringify(unlock.text)}`);
        assert.equal(fs.existsSync(lock), false, "unlock removed the stale lock");
        assert.ok(fs.existsSync(db()), "unlock leaves the index");

        await run("uninit");
        assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false, "uninit deleted .codegraph/");
        for (const f of ["src/cart.ts", "src/checkout.ts", "py/inventory.py"])
          assert.ok(fs.existsSync(path.join(ws, f)), `${f} is still there`);
      });
    });

    test("with file watching off (CODEGRAPH_NO_WATCH=1) in a git repository, init installs CodeGraph's git hooks and uninit removes them", async (t) => {
      const git = ["/usr/bin/git", "/bin/git"].find((g) => fs.existsSync(g));
      if (!git) return t.skip("git is not installed");
      execFileSync(git, ["init", "-q"], { cwd: ws, stdio: "ignore" });
      const hooks = ["post-commit", "post-merge", "post-checkout"].map((h) => path.join(ws, ".git", "hooks", h));
      await withEnv(
        { PATH: realPath, DO_NOT_TRACK: "1", PI_CODEGRAPH_BIN: undefined, CODEGRAPH_NO_WATCH: "1" },
        async () => {
          const init = await run("init");
          assert.match(init.text, /Installed git post-commit, post-merge, post-checkout hooks/);
          for (const h of hooks) assert.match(fs.readFileSync(h, "utf8"), /codegraph/, h);
          await run("uninit");
        },
      );
      for (const h of hooks)
        assert.ok(!fs.existsSync(h) || !/codegraph/.test(fs.readFileSync(h, "utf8")), `${h} removed`);
      assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false);
      fs.rmSync(path.join(ws, ".git"), { recursive: true, force: true });
    });

    test("from a subdirectory of an indexed project, every write is refused and the project's index is untouched", async () => {
      await env(async () => {
        await run("init");
        const sub = path.join(ws, "src");
        const before_ = fs.readFileSync(db());
        const mtime = fs.statSync(db()).mtimeMs;
        for (const verb of ["status", "sync", "rebuild", "unlock", "uninit"]) {
          const err = await rejectsWith(impl.module.run(verbCommand(verb), sub), "CODEGRAPH_NO_INDEX");
          assert.equal(err.details.ancestorIndex, ws, verb);
        }
        assert.deepEqual(fs.readFileSync(db()), before_);
        assert.equal(fs.statSync(db()).mtimeMs, mtime);
        await run("uninit");
      });
    });
  });
}
