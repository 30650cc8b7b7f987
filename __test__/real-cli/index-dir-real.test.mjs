// With the real pinned CodeGraph 1.6.1 on a Windows drive as WSL sees it (a workspace under
// /mnt/q/ and WSL_DISTRO_NAME set; skipped where /mnt cannot be written): `/codegraph init` makes
// `.codegraph-wsl/` (CodeGraph's own rule), and then every check of ours looks there too:
// readiness, explore, the stale-files line, `/codegraph status`, and a stale lock that
// `/codegraph unlock` removes. Through a Pi host, on both runners.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { REAL_CLI_PATH, root, waitFor, withEnv } from "../helpers/index.mjs";
import { codegraphSaid, hostWith, piInteractive, recordingUi } from "../helpers/pi-host.mjs";
import { DRIVE, dirOnDrive } from "../helpers/wsl-drive.mjs";

const realBin = path.join(root, "node_modules", ".bin");
const cliMissing = fs.existsSync(path.join(realBin, "codegraph")) ? false : "the pinned CodeGraph CLI is not installed";
const realPath = REAL_CLI_PATH.join(path.delimiter);
const ENV = {
  PATH: realPath,
  DO_NOT_TRACK: "1",
  PI_CODEGRAPH_BIN: undefined,
  CODEGRAPH_DIR: undefined,
  WSL_DISTRO_NAME: "Ubuntu",
};

/** A copy of the shop fixture on the drive, or null when /mnt cannot be written. */
function shopOnDrive() {
  const dir = dirOnDrive("pi-codegraph-wsl-real-");
  if (!dir) return null;
  fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), dir, { recursive: true });
  fs.rmSync(path.join(dir, ".codegraph"), { recursive: true, force: true });
  return dir;
}
const noDrive = process.platform !== "linux" || !fs.existsSync("/mnt") ? "not Linux, or no /mnt" : false;
before(piInteractive);

for (const impl of implementations) {
  describe(`${impl.name}: the real CLI on a WSL Windows drive`, {
    skip: cliMissing || noDrive,
    timeout: 120000,
  }, () => {
    test("/codegraph init makes .codegraph-wsl; ready, explore, the stale-files line, status and unlock all look there", async (t) => {
      const ws = shopOnDrive();
      if (!ws) return t.skip(`cannot make a workspace under ${DRIVE}`);
      await withEnv(ENV, async () => {
        const host = await hostWith(impl.module, "index-dir-real");
        const ui = recordingUi();
        const ctx = { cwd: ws, hasUI: true, ui };
        await host.startSession(ctx);
        const said = (args) => codegraphSaid(host, ctx, args);
        const wslDir = path.join(ws, ".codegraph-wsl");
        assert.match(await said("init"), /the agent's CodeGraph tools answer from it now\./);
        assert.ok(fs.statSync(path.join(wslDir, "codegraph.db")).size > 4096, "CodeGraph made .codegraph-wsl");
        assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false);
        assert.equal(ui.statuses.get("codegraph"), "⬡ codegraph");

        const d = await impl.module.diagnose(ws);
        assert.equal(d.ready, true, `${d.problemCode}: ${d.problem}`);
        assert.deepEqual([d.hasIndex, d.indexDir], [true, wslDir]);
        const request = "how does checkout reach charge";
        const fresh = await impl.module.explore(request, ws);
        assert.match(fresh.text, /src\/index\.ts/);
        assert.equal(fresh.details.indexDir, wslDir);
        assert.equal(fresh.details.staleFiles, undefined);

        const db = path.join(wslDir, "codegraph.db");
        const written = Math.max(
          fs.statSync(db).mtimeMs,
          fs.statSync(`${db}-wal`, { throwIfNoEntry: false })?.mtimeMs ?? 0,
        );
        await waitFor(() => Date.now() > written + 50, { what: "the clock to pass the index's mtime" });
        fs.appendFileSync(path.join(ws, "src", "index.ts"), "// edited after the index\n");
        const stale = await impl.module.explore(request, ws);
        assert.deepEqual(stale.details.staleFiles, [{ path: "src/index.ts", state: "changed" }]);

        const status = await said("status");
        assert.match(status, /lock: none/);
        // A write killed mid-way leaves its lock in .codegraph-wsl: not ready, then unlock removes it.
        const lock = path.join(wslDir, "codegraph.lock");
        fs.writeFileSync(lock, "2147483646");
        assert.match(await said("status"), new RegExp(`lock: stale \\(${lock.replace(/[.]/g, "\\.")}\\)`));
        await host.beforeAgentStart(ctx);
        assert.equal(ui.statuses.get("codegraph"), "⬡ codegraph: index unfinished");
        const unlocked = await said("unlock");
        assert.ok(ui.confirms.at(-1).body.includes(`Removes ${lock}`), ui.confirms.at(-1).body);
        assert.match(unlocked, /^\/codegraph unlock: done/);
        assert.equal(fs.existsSync(lock), false, "CodeGraph's unlock removed the lock we named");
        // Unlock opened the index (an empty -wal) but wrote nothing: the edit is still after it.
        // Bare /codegraph waits for the walk the turn began.
        assert.match(await said(""), /^pi-codegraph: ready, 1 file changed since the index: src\/index\.ts/);
        assert.equal(ui.statuses.get("codegraph"), "⬡ codegraph · 1 file changed since the index");
      });
    });
  });
}
