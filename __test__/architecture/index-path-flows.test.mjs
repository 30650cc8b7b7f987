// Each fact flows down once: the index directory the runner found (the diagnosis' indexDir, an
// answer's indexDir) is what the stale-files line, the verbs and doctor act on and report, never
// a `.codegraph` derived again above the runners; and what a command printed reaches the code
// above it in the run's own result (its text within caps the command chose, its tail), never by
// reading its full-output file back. Both runners, over the fake CLI (which follows CODEGRAPH_DIR
// as CodeGraph 1.6.1 does), through a Pi host and the doctor command.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { doctorRows, makeWorkspace, root, tempDir, useFakeCli, withEnv } from "../helpers/index.mjs";
import { codegraphSaid, hostWith, piInteractive, recordingUi } from "../helpers/pi-host.mjs";
import { indexBytes } from "../helpers/roots.mjs";

const require = createRequire(import.meta.url);
const { indexedOutside } = require("../../lib/api/outside-files.js");
const fake = useFakeCli();
before(piInteractive);

/** A workspace whose index is only in `<ws>/.cg` (written an hour ago), and `src/a.ts` written now. */
function cgWorkspace() {
  const ws = makeWorkspace({ index: false });
  fs.mkdirSync(path.join(ws, ".cg"));
  const db = path.join(ws, ".cg", "codegraph.db");
  fs.writeFileSync(db, indexBytes());
  const hourAgo = new Date(Date.now() - 3600_000);
  fs.utimesSync(db, hourAgo, hourAgo);
  fs.mkdirSync(path.join(ws, "src"));
  fs.writeFileSync(path.join(ws, "src", "a.ts"), "export const a = 1;\n");
  return ws;
}

const { O_RDWR, O_WRONLY } = fs.constants;
/** Whether `open(file, flags)` reads (its default flags read; a runner writing its spill does not). */
const reads = (flags) =>
  flags === undefined || (typeof flags === "number" ? (flags & (O_RDWR | O_WRONLY)) !== O_WRONLY : !/[wa]/.test(flags));

/**
 * Runs `fn` while recording every path the process opens for reading or reads through `fs` (sync,
 * callback and promise forms): `fn`'s value and the paths, to prove a file was not read back.
 */
async function recordingReads(fn) {
  const opened = [];
  const saved = [];
  const spy = (obj, name) => {
    const original = obj[name];
    saved.push([obj, name, original]);
    obj[name] = function (file, ...rest) {
      const flags = name === "open" || name === "openSync" ? rest[0] : undefined;
      if (typeof flags === "function" || reads(flags)) opened.push(String(file?.path ?? file));
      return original.call(this, file, ...rest);
    };
  };
  for (const name of ["readFileSync", "openSync", "readFile", "open", "createReadStream"]) spy(fs, name);
  for (const name of ["readFile", "open"]) spy(fs.promises, name);
  try {
    return { value: await fn(), opened };
  } finally {
    for (const [obj, name, original] of saved.reverse()) obj[name] = original;
  }
}

for (const impl of implementations) {
  const { diagnose, explore, run } = impl.module;

  describe(`${impl.name}: the index directory the runner found, carried down`, () => {
    test("CODEGRAPH_DIR=.cg: the stale-files line, /codegraph status and /codegraph unlock act on <ws>/.cg", async () => {
      const ws = cgWorkspace();
      const citing = { FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "0", FAKE_CG_STDOUT: "checkout is in src/a.ts:1\n" };
      await withEnv({ CODEGRAPH_DIR: ".cg", ...citing }, async () => {
        const answer = await explore("where is checkout", ws);
        assert.equal(answer.details.indexDir, path.join(ws, ".cg"));
        assert.deepEqual(answer.details.staleFiles, [{ path: "src/a.ts", state: "changed" }]);
        assert.match(answer.text.split("\n").at(-2), /src\/a\.ts/);
      });
      await withEnv({ CODEGRAPH_DIR: ".cg" }, async () => {
        // A write that never finished left CodeGraph's lock in the index directory.
        const lock = path.join(ws, ".cg", "codegraph.lock");
        fs.writeFileSync(lock, "2147483646");
        assert.equal((await diagnose(ws)).indexDir, path.join(ws, ".cg"));
        const host = await hostWith(impl.module, "index-path");
        const ui = recordingUi();
        const ctx = { cwd: ws, hasUI: true, ui };
        await host.startSession(ctx);
        const status = await codegraphSaid(host, ctx, "status");
        assert.ok(status.includes(`lock: stale (${lock})`), status);
        await codegraphSaid(host, ctx, "unlock");
        assert.ok(ui.confirms.at(-1).body.includes(`Removes ${lock}`), ui.confirms.at(-1).body);
        assert.equal(fs.existsSync(lock), false, "unlock removed the lock where CodeGraph keeps it");
        assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false, "nothing looked at or made .codegraph");
      });
    });

    test("no index directory in the diagnosis (the workspace is gone): every writing verb says why, no dialog names a guessed .codegraph", async () => {
      const ws = makeWorkspace({ index: false });
      await withEnv({ CODEGRAPH_DIR: ".cg" }, async () => {
        const host = await hostWith(impl.module, "index-path");
        const ui = recordingUi();
        const ctx = { cwd: ws, hasUI: true, ui };
        await host.startSession(ctx);
        fs.rmSync(ws, { recursive: true, force: true });
        for (const verb of ["init", "sync", "rebuild", "uninit", "unlock"]) {
          const said = await codegraphSaid(host, ctx, verb);
          assert.match(said, new RegExp(`^/codegraph ${verb}: nothing done: .*does not exist`), said);
        }
        assert.deepEqual(ui.confirms, [], "no dialog: there is no index directory to name");
        assert.equal(fs.existsSync(ws), false, "nothing made");
      });
    });

    test("/codegraph projects add with CODEGRAPH_DIR=.cg: a directory with only a .codegraph is refused naming .cg; one with .cg is added", async () => {
      const ws = makeWorkspace({ index: false });
      const other = cgWorkspace();
      const wrongName = tempDir("pi-codegraph-bare-");
      fs.mkdirSync(path.join(wrongName, ".codegraph"));
      fs.writeFileSync(path.join(wrongName, ".codegraph", "codegraph.db"), indexBytes());
      await withEnv({ CODEGRAPH_DIR: ".cg", PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-") }, async () => {
        const host = await hostWith(impl.module, "index-path");
        const ctx = { cwd: ws, hasUI: true, ui: recordingUi() };
        await host.startSession(ctx);
        const refused = await codegraphSaid(host, ctx, `roots add ${wrongName}`);
        assert.ok(refused.includes(`${wrongName} has no CodeGraph index (.cg/codegraph.db)`), refused);
        assert.match(await codegraphSaid(host, ctx, `roots add ${other}`), /^Added /);
      });
    });

    test("sync past the caps: its summary comes from the run's own tail; the full-output file is not read", async () => {
      const ws = makeWorkspace();
      // 3,000 worker lines (past the 2,000-line cap), then CodeGraph's summary.
      await withEnv({ FAKE_CG_SYNC_FILES: "3000" }, async () => {
        const host = await hostWith(impl.module, "index-path");
        const ui = recordingUi();
        const ctx = { cwd: ws, hasUI: true, ui };
        await host.startSession(ctx);
        const { value: said, opened } = await recordingReads(() => codegraphSaid(host, ctx, "sync"));
        assert.match(said, /Synced 3000 changed files/);
        assert.match(said, /^ {2}43 nodes, 81 edges$/m);
        assert.doesNotMatch(said, /\[worker\]|changed-\d/, "no progress line in the summary");
        // Full-output files live in <tmp>/pi-codegraph-<uid>/<name>.txt (both runners).
        const spills = opened.filter((f) => /[\\/]pi-codegraph(-\d+)?[\\/][^\\/]+\.txt$/.test(f));
        assert.deepEqual(spills, [], `read back: ${spills.join(", ")}`);
      });
    });

    test("doctor's listing of the indexed files past the model's caps comes back whole, without its full-output file", async () => {
      const scratch = tempDir("pi-codegraph-outside-");
      const ws = path.join(scratch, "ws");
      fs.cpSync(fake.ws, ws, { recursive: true });
      fs.mkdirSync(path.join(scratch, "other"));
      fs.writeFileSync(path.join(scratch, "other", "keys.ts"), "export const KEY = 1;\n");
      fs.symlinkSync("../other", path.join(ws, "vendor"));
      // 2,500 indexed paths (past the 2,000-line cap): the one behind the link comes last.
      const paths = Array.from({ length: 2500 }, (_, i) => `src/f${i}.ts`);
      paths[paths.length - 1] = "vendor/keys.ts";
      const listing = `Files (${paths.length}):\n${paths.map((p) => `  ${p}\n`).join("")}`;
      const asked = [];
      // The package's run(), except that a full-output file is gone before anyone could read it.
      const runNoSpill = async (command, cwd) => {
        asked.push(command);
        const result = await run(command, cwd);
        if (result.details.fullOutputPath) fs.rmSync(result.details.fullOutputPath, { force: true });
        return result;
      };
      await withEnv({ FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "0", FAKE_CG_STDOUT: listing }, async () => {
        const found = await indexedOutside(ws, runNoSpill);
        assert.equal(found.total, 2500);
        assert.equal(found.cut, null);
        assert.deepEqual(found.links, [{ link: "vendor", target: path.join(scratch, "other"), files: 1 }]);
      });
      assert.equal(asked.length, 1);
      assert.ok(
        asked[0].maxBytes >= Buffer.byteLength(listing) && asked[0].maxLines >= 2501,
        "asked for the whole listing",
      );
    });

    test("doctor with CODEGRAPH_DIR=.cg: its index row names <ws>/.cg, and status reports ready", () => {
      const ws = cgWorkspace();
      const env = { ...process.env, PATH: fake.bin, CODEGRAPH_DIR: ".cg", PI_CODEGRAPH_RUNNER: impl.runner };
      for (const k of ["PI_CODEGRAPH_BIN", "PI_CODEGRAPH_TOOLS", "FAKE_CG_MODE"]) delete env[k];
      env.PI_CODING_AGENT_DIR = tempDir("pi-codegraph-agent-");
      const r = spawnSync(process.execPath, [path.join(root, "bin", "pi-codegraph.js"), "doctor", ws], {
        env,
        encoding: "utf8",
      });
      const rows = doctorRows(r.stdout);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.equal(rows.index, path.join(ws, ".cg"));
      assert.match(rows.status, /^ready/);
      assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false);
    });
  });
}

describe("staleness takes the index directory it is given, not CodeGraph's rule again", () => {
  const { withStaleness } = require("../../lib/api/staleness.js");
  const { createEditLedger } = require("../../lib/api/edit-ledger.js");
  // The environment says nothing of .cg: only the carried indexDir can tell.
  const noDir = { CODEGRAPH_DIR: undefined };

  test("an answer citing a file inside its index directory (details.indexDir) gets no stale-files line for it", async () => {
    const ws = cgWorkspace();
    fs.writeFileSync(path.join(ws, ".cg", "notes.ts"), "x\n");
    await withEnv(noDir, async () => {
      const answer = { text: "see .cg/notes.ts:1 and src/a.ts:1\n", details: { indexDir: path.join(ws, ".cg") } };
      const out = await withStaleness(answer, ws);
      assert.deepEqual(out.details.staleFiles, [{ path: "src/a.ts", state: "changed" }]);
    });
  });

  test("the edit ledger: a write inside a root's index directory (its diagnosis' indexDir) is not an edit of the code", async () => {
    const ws = cgWorkspace();
    await withEnv(noDir, async () => {
      const ledger = createEditLedger();
      await ledger.recheck([{ dir: ws, indexDir: path.join(ws, ".cg") }]);
      const write = (p) => ({ toolName: "write", isError: false, input: { path: p } });
      assert.equal(ledger.note(write(".cg/scratch.json"), ws, [ws]), false);
      assert.equal(ledger.note(write("src/a.ts"), ws, [ws]), true);
      assert.equal(ledger.count(), 1);
    });
  });
});
