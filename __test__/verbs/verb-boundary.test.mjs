// Every `/codegraph` verb says one thing, the same way, when the workspace's index directory is
// not its own (a link a repository ships, to an index outside or to nowhere; a link among
// CodeGraph's files): the diagnosis's one fact and one remediation, decided before any dialog
// (a recording UI shows no confirm) and before anything runs (the fake CLI's log stays empty),
// with the directories around the workspace byte-identical. And uninit says, before its dialog,
// that it will not delete a directory holding files CodeGraph does not make. Through the Pi host
// harness over the fake CLI, for both runners.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, readLog, tempDir, useFakeCli, withEnv } from "../helpers/index.mjs";
import { hostWith, recordingUi, runCommand } from "../helpers/pi-host.mjs";
import { snapshot } from "../helpers/snapshot.mjs";

let pkg;
useFakeCli();

const VERBS = ["status", "init", "sync", "rebuild", "uninit", "unlock"];
const dbBytes = () => Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.alloc(64)]);

/** `outer/ws` (no index of its own) beside `outer/other`, a project with an index, and `outer/victim`. */
function nest() {
  const outer = tempDir("pi-codegraph-vb-");
  const ws = path.join(outer, "ws");
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, "main.ts"), "export function main() {}\n");
  fs.mkdirSync(path.join(outer, "other", ".codegraph"), { recursive: true });
  fs.writeFileSync(path.join(outer, "other", ".codegraph", "codegraph.db"), dbBytes());
  fs.writeFileSync(path.join(outer, "victim"), "precious\n");
  return { outer, ws };
}

/** The cases where the index directory is not the workspace's own; `says` is what the one fact names. */
const CASES = [
  {
    name: ".codegraph -> ../other/.codegraph (an index outside)",
    make: (ws) => fs.symlinkSync("../other/.codegraph", path.join(ws, ".codegraph")),
    says: /resolves to .*other.*outside the workspace/,
  },
  {
    name: ".codegraph -> .. (no index there: init would write into the parent)",
    make: (ws) => fs.symlinkSync("..", path.join(ws, ".codegraph")),
    says: /resolves to .*outside the workspace/,
  },
  {
    name: "a dangling .codegraph -> ../gone",
    make: (ws) => fs.symlinkSync("../gone", path.join(ws, ".codegraph")),
    says: /is a symbolic link \(to .*gone\)/,
  },
  {
    name: ".codegraph/.gitignore -> ../../victim beside a real index",
    make: (ws) => {
      fs.mkdirSync(path.join(ws, ".codegraph"));
      fs.writeFileSync(path.join(ws, ".codegraph", "codegraph.db"), dbBytes());
      fs.symlinkSync("../../victim", path.join(ws, ".codegraph", ".gitignore"));
    },
    says: /\.gitignore resolves to .*victim, outside the workspace/,
  },
];

/** A Pi session in `cwd` with a recording UI (every confirm recorded, and accepted). */
async function session(cwd, hasUI = true) {
  const host = await hostWith(pkg, "verb-boundary");
  const ui = recordingUi();
  const ctx = { cwd, hasUI, ui };
  await host.startSession(ctx);
  const said = async (args) => {
    const from = ui.notes.length;
    await runCommand(host, ctx, "codegraph", args);
    return ui.notes.slice(from);
  };
  return { ui, said };
}

/** Runs `fn` with the fake CLI logging to a fresh file; resolves with what it logged. */
async function cliCalls(fn) {
  const log = path.join(tempDir("pi-codegraph-vb-log-"), "log.jsonl");
  await withEnv({ FAKE_CG_LOG: log }, fn);
  return fs.existsSync(log) ? readLog(log).filter((r) => r.argv?.[0] !== "--version") : [];
}

for (const impl of implementations) {
  describe(`one fact for every verb (${impl.name})`, () => {
    before(() => {
      pkg = impl.module;
    });

    for (const c of CASES) {
      test(`${c.name}: every verb says the same refusal, asks nothing, runs nothing`, async () => {
        const { outer, ws } = nest();
        c.make(ws);
        const before = snapshot(outer);
        const { ui, said } = await session(ws);
        const texts = [];
        const calls = await cliCalls(async () => {
          for (const verb of VERBS) {
            const notes = await said(verb);
            assert.equal(notes.length, 1, `${verb}: ${JSON.stringify(notes)}`);
            assert.equal(notes[0].type, "warning", verb);
            texts.push(notes[0].message);
          }
        });
        assert.deepEqual(ui.confirms, [], "no dialog before a refusal");
        assert.deepEqual(calls, [], "nothing ran");
        assert.deepEqual(snapshot(outer), before);
        for (const [i, text] of texts.entries()) {
          assert.match(text, new RegExp(`^/codegraph ${VERBS[i]}: refused; nothing was run\\. The index directory `));
          assert.match(text, c.says);
          assert.match(text, /Remove the link/);
          assert.doesNotMatch(text, /run \/codegraph init first|already exists|use \/codegraph sync/i);
        }
        // `/codegraph doctor` (the report) names the same fact; bare `/codegraph` never offers a
        // verb as the next step that would be refused here.
        const report = (await said("doctor")).map((n) => n.message).join("\n");
        assert.match(report, /^verbs: refused: the index directory /m);
        const brief = (await said("")).map((n) => n.message).join("\n");
        assert.doesNotMatch(brief, /^Next: \/codegraph (init|sync)/m);
        // One fact, one remediation: the same words but for the verb's name.
        const bare = texts.map((t, i) => t.replace(`/codegraph ${VERBS[i]}:`, "/codegraph VERB:"));
        assert.equal(new Set(bare).size, 1, bare.join("\n"));
      });
    }

    test("--yes meets the same refusal, before anything runs", async () => {
      const { outer, ws } = nest();
      fs.symlinkSync("..", path.join(ws, ".codegraph"));
      const before = snapshot(outer);
      const { ui, said } = await session(ws);
      const calls = await cliCalls(async () => {
        for (const verb of ["init", "rebuild", "uninit"]) {
          const [note] = await said(`${verb} --yes`);
          assert.match(note.message, /refused; nothing was run\. The index directory .* outside the workspace/);
        }
      });
      assert.deepEqual(calls, []);
      assert.deepEqual(ui.confirms, []);
      assert.deepEqual(snapshot(outer), before);
    });

    test("a codegraph.db CodeGraph cannot open: every verb says the diagnosis (move it, then init), asks nothing, runs nothing", async () => {
      for (const bytes of ["garbage\n", ""]) {
        const ws = makeWorkspace();
        fs.writeFileSync(path.join(ws, ".codegraph", "codegraph.db"), bytes);
        const before = snapshot(ws);
        const { ui, said } = await session(ws);
        const texts = [];
        const calls = await cliCalls(async () => {
          for (const verb of VERBS) texts.push(...(await said(verb)).map((n) => n.message));
        });
        assert.equal(texts.length, VERBS.length, texts.join("\n"));
        for (const [i, text] of texts.entries()) {
          assert.match(
            text,
            new RegExp(`^/codegraph ${VERBS[i]}: refused; nothing was run\\. This workspace has no usable`),
          );
          assert.match(text, /Move or delete .*codegraph\.db.*\/codegraph init/);
          assert.doesNotMatch(text, /already exists|use \/codegraph sync/i);
        }
        assert.deepEqual([ui.confirms, calls], [[], []]);
        assert.deepEqual(snapshot(ws), before);
      }
    });

    test("uninit with a file CodeGraph does not make: refused before its dialog (the report says so), the file kept; sync still asks and runs", async () => {
      const ws = makeWorkspace();
      fs.writeFileSync(path.join(ws, ".codegraph", "notes.txt"), "mine\n");
      const before = snapshot(ws);
      const { ui, said } = await session(ws);
      const calls = await cliCalls(async () => {
        const [note] = await said("uninit");
        assert.equal(note.type, "warning");
        assert.match(
          note.message,
          /^\/codegraph uninit: refused; nothing was run\. The index directory .* is not CodeGraph's alone to delete: .*notes\.txt is not a file CodeGraph makes/,
        );
        assert.match(note.message, /Move .*notes\.txt out of/);
      });
      assert.deepEqual(ui.confirms, []);
      assert.deepEqual(calls, []);
      assert.deepEqual(snapshot(ws), before);
      assert.match(
        (await said("doctor")).map((n) => n.message).join("\n"),
        /^uninit: refused: .*notes\.txt is not a file/m,
      );
      const syncCalls = await cliCalls(() => said("sync"));
      assert.deepEqual(ui.confirms, [], "sync is not stopped by it (and asks nothing)");
      assert.deepEqual(
        syncCalls.map((r) => r.argv[0]),
        ["sync"],
      );
    });
  });
}
