// The index directory every check looks in is the one CodeGraph 1.6.1 opens (dist/directory.js
// `codeGraphDirNameFor`): CODEGRAPH_DIR trimmed, and on a Windows drive under WSL (/mnt/<letter>)
// `.codegraph-wsl` unless only an older `.codegraph/codegraph.db` is there. Through both runners
// over the fake CLI (which follows the same rule): diagnose, explore, the stale-files line, and the
// verbs (init, status's lock line, unlock's dialog) through a Pi host. WSL is made real here: a
// workspace under /mnt/<letter>/ and WSL_DISTRO_NAME set (skipped when /mnt cannot be written).
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, useFakeCli, withEnv } from "../helpers/index.mjs";
import { codegraphSaid, hostWith, piInteractive, recordingUi, runCommand } from "../helpers/pi-host.mjs";
import { indexBytes } from "../helpers/roots.mjs";
import { DRIVE, dirOnDrive } from "../helpers/wsl-drive.mjs";

const require = createRequire(import.meta.url);
const { verbCommand } = require("../../lib/contract/verbs.js");
const { hasIndex } = require("../../lib/pi/roots/index-probe.js");
const { scanRoots } = require("../../lib/pi/roots/scan.js");
useFakeCli();
before(piInteractive);

/** `<dir>/codegraph.db` with a SQLite header, written an hour ago. */
function dbIn(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const db = path.join(dir, "codegraph.db");
  // A database CodeGraph's by its content (the roots scan checks the schema, not only the magic).
  fs.writeFileSync(db, indexBytes());
  const hourAgo = new Date(Date.now() - 3600_000);
  fs.utimesSync(db, hourAgo, hourAgo);
  return db;
}

/** A fresh workspace on a Windows drive as WSL sees it, or null when /mnt cannot be written. */
function wslWorkspace() {
  const dir = dirOnDrive("pi-codegraph-wsl-");
  if (dir) fs.writeFileSync(path.join(dir, "main.ts"), "export function main() {}\n");
  return dir;
}
const noDrive = (() => {
  const probe = process.platform === "linux" ? wslWorkspace() : null;
  return probe ? false : `cannot make a workspace under ${DRIVE} (not Linux, or /mnt not writable)`;
})();
const WSL = { WSL_DISTRO_NAME: "Ubuntu", WSL_INTEROP: undefined, CODEGRAPH_DIR: undefined };

/** An answer of the fake that cites `src/a.ts` (the stale-files line's input). */
const CITING = { FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "0", FAKE_CG_STDOUT: "checkout is in src/a.ts:1\n" };
/** `src/a.ts`, written now (after any index dbIn wrote). */
function sourceIn(ws) {
  fs.mkdirSync(path.join(ws, "src"), { recursive: true });
  fs.writeFileSync(path.join(ws, "src", "a.ts"), "export const a = 1;\n");
}

for (const impl of implementations) {
  const { diagnose, explore, run } = impl.module;

  describe(`${impl.name}: the directory CodeGraph opens`, () => {
    test("CODEGRAPH_DIR with surrounding spaces: diagnose, explore and the stale-files line use the trimmed name", async () => {
      const ws = makeWorkspace({ index: false });
      dbIn(path.join(ws, ".cg"));
      sourceIn(ws);
      await withEnv({ CODEGRAPH_DIR: "  .cg\t", ...CITING }, async () => {
        const d = await diagnose(ws);
        assert.equal(d.ready, true, `${d.problemCode}: ${d.problem}`);
        assert.deepEqual([d.hasIndex, d.indexDir], [true, path.join(ws, ".cg")]);
        const r = await explore("q", ws);
        assert.equal(r.details.indexDir, path.join(ws, ".cg"));
        assert.deepEqual(r.details.staleFiles, [{ path: "src/a.ts", state: "changed" }]);
        assert.match(r.text, /src\/a\.ts/);
      });
    });

    test("CODEGRAPH_DIR trimmed as JavaScript trims it (U+FEFF and U+00A0 go, U+0085 stays), the same on both runners", async () => {
      const ws = makeWorkspace({ index: false });
      dbIn(path.join(ws, ".cg"));
      for (const [value, dir] of [
        ["\uFEFF.cg\u00A0", ".cg"],
        ["\n .cg \r", ".cg"],
        ["\u0085.cg", "\u0085.cg"],
        [" ../x ", ".codegraph"],
        ["   ", ".codegraph"],
      ]) {
        const d = await withEnv({ CODEGRAPH_DIR: value }, () => diagnose(ws));
        assert.equal(d.indexDir, path.join(ws, dir), JSON.stringify(value));
      }
    });

    test("/codegraph init where CODEGRAPH_DIR's index exists but is unusable: the diagnosis of that database, nothing runs", async () => {
      const ws = makeWorkspace({ index: false });
      fs.mkdirSync(path.join(ws, ".cg"));
      fs.writeFileSync(path.join(ws, ".cg", "codegraph.db"), "not a database");
      await withEnv({ CODEGRAPH_DIR: " .cg " }, async () => {
        const host = await hostWith(impl.module, "index-dir");
        const ui = recordingUi();
        const ctx = { cwd: ws, hasUI: true, ui };
        await host.startSession(ctx);
        await runCommand(host, ctx, "codegraph", "init --yes");
        const said = ui.notes.at(-1).message;
        assert.match(
          said,
          /^\/codegraph init: refused; nothing was run\. This workspace has no usable CodeGraph index/,
        );
        assert.ok(said.includes(path.join(ws, ".cg", "codegraph.db")), said);
        assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false, "no second index beside it");
      });
    });

    test("a symlink into or out of a WSL drive: the rule sees the resolved path, as the CLI's working directory is", {
      skip: noDrive,
    }, async () => {
      await withEnv(WSL, async () => {
        const onDrive = wslWorkspace();
        const into = path.join(makeWorkspace({ index: false }), "link");
        fs.symlinkSync(onDrive, into);
        assert.equal((await diagnose(into)).indexDir, path.join(into, ".codegraph-wsl"));
        const offDrive = makeWorkspace({ index: false });
        const outOf = path.join(wslWorkspace(), "link");
        fs.symlinkSync(offDrive, outOf);
        assert.equal((await diagnose(outOf)).indexDir, path.join(outOf, ".codegraph"));
      });
    });

    test("a subdirectory on a WSL drive: the enclosing project's .codegraph-wsl index is named as the ancestor", {
      skip: noDrive,
    }, async () => {
      await withEnv(WSL, async () => {
        const ws = wslWorkspace();
        dbIn(path.join(ws, ".codegraph-wsl"));
        fs.mkdirSync(path.join(ws, "sub"));
        const d = await diagnose(path.join(ws, "sub"));
        assert.equal(d.problemCode, "CODEGRAPH_NO_INDEX");
        assert.equal(d.ancestorIndex, ws);
      });
    });

    test("CODEGRAPH_DIR set: the stale-files line follows its db, not a .codegraph/ beside it", async () => {
      const ws = makeWorkspace(); // .codegraph/codegraph.db, written now
      dbIn(path.join(ws, ".cg"));
      sourceIn(ws);
      // src/a.ts is newer than .cg's db but not than .codegraph's: the line follows .cg.
      const fresh = new Date(Date.now() + 60_000);
      fs.utimesSync(path.join(ws, ".codegraph", "codegraph.db"), fresh, fresh);
      await withEnv({ CODEGRAPH_DIR: ".cg", ...CITING }, async () => {
        const r = await explore("q", ws);
        assert.deepEqual(r.details.staleFiles, [{ path: "src/a.ts", state: "changed" }]);
      });
    });

    test("a WSL Windows drive: .codegraph-wsl when it is a directory, else an older .codegraph index, else .codegraph-wsl", {
      skip: noDrive,
    }, async () => {
      await withEnv(WSL, async () => {
        const neither = wslWorkspace();
        const none = await diagnose(neither);
        assert.equal(none.problemCode, "CODEGRAPH_NO_INDEX");
        assert.equal(none.indexDir, path.join(neither, ".codegraph-wsl"), "a fresh index goes to .codegraph-wsl");

        const older = wslWorkspace();
        dbIn(path.join(older, ".codegraph"));
        const kept = await diagnose(older);
        assert.equal(kept.ready, true, `${kept.problemCode}: ${kept.problem}`);
        assert.deepEqual(
          [kept.hasIndex, kept.indexDir],
          [true, path.join(older, ".codegraph")],
          "an index built before WSL had its own is kept",
        );

        const both = wslWorkspace();
        dbIn(path.join(both, ".codegraph"));
        fs.mkdirSync(path.join(both, ".codegraph-wsl"));
        const empty = await diagnose(both);
        assert.equal(empty.problemCode, "CODEGRAPH_NO_INDEX", "the CLI opens the empty .codegraph-wsl, not .codegraph");
        assert.equal(empty.indexDir, path.join(both, ".codegraph-wsl"));
        await assert.rejects(explore("q", both), { code: "CODEGRAPH_NO_INDEX" });
        dbIn(path.join(both, ".codegraph-wsl"));
        sourceIn(both);
        const wsl = await diagnose(both);
        assert.deepEqual([wsl.hasIndex, wsl.indexDir], [true, path.join(both, ".codegraph-wsl")]);
        const r = await withEnv(CITING, () => explore("q", both));
        assert.equal(r.details.indexDir, path.join(both, ".codegraph-wsl"));
        assert.deepEqual(r.details.staleFiles, [{ path: "src/a.ts", state: "changed" }]);

        // CODEGRAPH_DIR set (trimmed): its name, with no WSL choice.
        const named = await withEnv({ CODEGRAPH_DIR: " .codegraph " }, () => diagnose(both));
        assert.deepEqual([named.hasIndex, named.indexDir], [true, path.join(both, ".codegraph")]);
        // init creates the directory the CLI will open afterwards.
        const fresh = wslWorkspace();
        await run(verbCommand("init"), fresh);
        assert.ok(fs.existsSync(path.join(fresh, ".codegraph-wsl", "codegraph.db")));
        assert.deepEqual(((d) => [d.hasIndex, d.indexDir])(await diagnose(fresh)), [
          true,
          path.join(fresh, ".codegraph-wsl"),
        ]);
      });
    });

    test("the verbs on a WSL drive: /codegraph init makes .codegraph-wsl and is ready; status and unlock name its lock files", {
      skip: noDrive,
    }, async () => {
      await withEnv(WSL, async () => {
        const ws = wslWorkspace();
        const host = await hostWith(impl.module, "index-dir");
        const ui = recordingUi();
        const ctx = { cwd: ws, hasUI: true, ui };
        await host.startSession(ctx);
        const said = (args) => codegraphSaid(host, ctx, args);
        assert.match(await said("init"), /the agent's CodeGraph tools answer from it now\./);
        assert.match(ui.confirms[0].body, new RegExp(`Creates ${ws}/\\.codegraph-wsl/`));
        assert.ok(fs.existsSync(path.join(ws, ".codegraph-wsl", "codegraph.db")));
        assert.equal(ui.statuses.get("codegraph"), "⬡ codegraph");
        // A stale codegraph.lock, where CodeGraph keeps it (what its unlock removes).
        const stale = path.join(ws, ".codegraph-wsl", "codegraph.lock");
        fs.writeFileSync(stale, "2147483646");
        assert.match(await said("status"), new RegExp(`lock: stale \\(${stale.replace(/[.]/g, "\\.")}\\)`));
        await said("unlock");
        assert.ok(ui.confirms.at(-1).body.includes(`Removes ${stale}`), ui.confirms.at(-1).body);
      });
    });
  });
}

describe("the roots scan looks where the CLI opens", () => {
  test("CODEGRAPH_DIR trimmed: a sub-project's index and the workspace's own are found", async () => {
    const ws = makeWorkspace({ index: false });
    fs.writeFileSync(path.join(ws, "package.json"), "{}\n");
    dbIn(path.join(ws, ".cg"));
    dbIn(path.join(ws, "pkg", ".cg"));
    await withEnv({ CODEGRAPH_DIR: " .cg " }, async () => {
      assert.equal(await hasIndex(ws), true);
      const scan = await scanRoots(ws);
      assert.equal(scan.own, true);
      assert.deepEqual(scan.roots, [path.join(ws, "pkg")]);
    });
  });

  test("a WSL Windows drive: a sub-project's .codegraph-wsl index is found; a .codegraph beside an empty .codegraph-wsl is not", {
    skip: noDrive,
  }, async () => {
    await withEnv(WSL, async () => {
      const ws = wslWorkspace();
      fs.writeFileSync(path.join(ws, "package.json"), "{}\n");
      dbIn(path.join(ws, "a", ".codegraph-wsl"));
      dbIn(path.join(ws, "b", ".codegraph"));
      dbIn(path.join(ws, "c", ".codegraph"));
      fs.mkdirSync(path.join(ws, "c", ".codegraph-wsl"));
      const scan = await scanRoots(ws);
      assert.deepEqual(scan.roots, [path.join(ws, "a"), path.join(ws, "b")]);
      assert.equal(await hasIndex(path.join(ws, "c")), false, "the CLI opens c/.codegraph-wsl, which has no index");
    });
  });
});
