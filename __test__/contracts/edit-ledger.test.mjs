// The session's ledger of files Pi's own edit/write tools changed after the index
// (lib/api/edit-ledger.js createEditLedger, fed from tool_result in lib/pi/session.js) is bounded: at most
// MAX_EDITS_TRACKED (1000) files are tracked; past that the count shows as "1000+", the status
// slot is not updated again (its text no longer changes), and a turn's recheck stats the index
// files only, never an edited file. Counted, not timed: entries shown, setStatus calls, stats.
// Through a Pi host over the fake CLI, on the native runner (the ledger is the glue's alone).
import assert from "node:assert/strict";
import fs from "node:fs";
import fsp from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { makeWorkspace, useFakeCli } from "../helpers/index.mjs";
import { hostWith, recordingUi } from "../helpers/pi-host.mjs";
import { waitFor } from "../helpers/processes.mjs";
import { makeMonorepo } from "../helpers/roots.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const { createEditLedger } = require("../../lib/api/edit-ledger.js");
const { CHANGE_WALK_LIMITS } = require("../../lib/contract/source-changes.js");
/** The ledger's bound (lib/api/edit-ledger.js MAX_EDITS_TRACKED), as the user sees it. */
const BOUND = 1000;

useFakeCli();

async function session(ws) {
  const host = await hostWith(pkg, "ledger");
  const ui = recordingUi();
  const ctx = { cwd: ws, hasUI: true, ui };
  await host.startSession(ctx);
  await host.beforeAgentStart(ctx);
  const slotCalls = () => ui.statusLog.filter((e) => e.key === "codegraph").length;
  const edit = (file) => host.toolResult({ toolName: "edit", input: { path: file } }, ctx);
  const report = async () => {
    const from = ui.notes.length;
    await host.commands.get("codegraph").handler("", ctx);
    return ui.notes[from].message.split("\n")[0];
  };
  return { host, ctx, ui, slotCalls, edit, report, slot: () => ui.statuses.get("codegraph") };
}

/** Runs `fn` counting fs.promises stat/lstat calls on paths under each of `dirs`: the counts, in order. */
async function countingStats(dirs, fn) {
  const saved = { stat: fsp.stat, lstat: fsp.lstat };
  const counts = dirs.map(() => 0);
  for (const name of ["stat", "lstat"])
    fsp[name] = (p, ...rest) => {
      dirs.forEach((d, i) => {
        if (String(p).startsWith(d + path.sep)) counts[i] += 1;
      });
      return saved[name].call(fsp, p, ...rest);
    };
  try {
    await fn();
  } finally {
    Object.assign(fsp, saved);
  }
  return counts;
}

test(`past ${BOUND} edited files: "1000+", no status update per edit, a turn stats no edited file; a newer index clears it`, async () => {
  const ws = makeWorkspace();
  const s = await session(ws);
  assert.equal(s.slot(), "⬡ codegraph");
  const before = s.slotCalls();
  for (let i = 0; i < BOUND; i += 1) await s.edit(`src/f${i}.ts`);
  assert.equal(s.slot(), "⬡ codegraph · 1000 files changed since the index");
  assert.equal(s.slotCalls() - before, BOUND, "one update per new count up to the bound");

  await s.edit("src/past-the-bound-0.ts");
  assert.equal(s.slot(), "⬡ codegraph · 1000+ files changed since the index");
  const atBound = s.slotCalls();
  for (let i = 1; i < 2000; i += 1) await s.edit(`src/past-the-bound-${i}.ts`);
  await s.edit("src/f7.ts"); // a tracked file again
  assert.equal(s.slotCalls(), atBound, "past the bound the slot's text does not change: no update");
  assert.equal(
    await s.report(),
    "pi-codegraph: ready, 1000+ files changed since the index: src/f0.ts, src/f1.ts, src/f2.ts and 997+ more",
  );

  const dirs = [path.join(ws, "src"), path.join(ws, ".codegraph")];
  const [edited, index] = await countingStats(dirs, () => s.host.beforeAgentStart(s.ctx));
  assert.ok(index > 0 && index <= 4, `the recheck stats the index files (${index} stats)`);
  assert.equal(edited, 0, "never an edited file");
  assert.equal(s.slot(), "⬡ codegraph · 1000+ files changed since the index");

  // The user's sync writes the index after every edit: all of it is dropped, the tracked and the rest.
  const later = Date.now() / 1000 + 60;
  fs.utimesSync(path.join(ws, ".codegraph", "codegraph.db"), later, later);
  await s.host.beforeAgentStart(s.ctx);
  assert.equal(s.slot(), "⬡ codegraph");
  assert.equal(await s.report(), "pi-codegraph: ready");
});

test("the bound per root: a newer index in one root drops that root's edits past the bound, another root's keep the count at least 1+", async () => {
  const ws = makeWorkspace();
  const [a, b] = ["a", "b"].map((d) => path.join(ws, d));
  const ledger = createEditLedger({ maxTracked: 3 });
  const roots = [a, b];
  const edit = (file) => ledger.note({ toolName: "write", input: { path: file } }, ws, roots);
  for (const f of ["a/1.ts", "a/2.ts", "a/3.ts", "a/4.ts", "b/1.ts"]) assert.equal(edit(f), true);
  assert.deepEqual([ledger.count(), ledger.more()], [3, true], "3 tracked, the rest past the bound");
  // Root a's index is written after all of them; b has none (its edits stay).
  for (const r of roots) fs.mkdirSync(path.join(r, ".codegraph"), { recursive: true });
  fs.copyFileSync(path.join(ws, ".codegraph", "codegraph.db"), path.join(a, ".codegraph", "codegraph.db"));
  const later = Date.now() / 1000 + 60;
  fs.utimesSync(path.join(a, ".codegraph", "codegraph.db"), later, later);
  // Each root with the index directory its diagnosis found.
  await ledger.recheck(roots.map((dir) => ({ dir, indexDir: path.join(dir, ".codegraph") })));
  assert.deepEqual([ledger.count(), ledger.more()], [1, true], "b's edit past the bound is still counted");
  // Room again: a new edit is tracked one by one.
  edit("a/5.ts");
  assert.deepEqual([ledger.count(), ledger.more()], [1, true]);
});

test("changes no Pi tool reported (a bash command's, the editor's between turns) reach the status bar and /codegraph; a newer index clears them", async () => {
  const ws = makeWorkspace();
  const at = (rel, secondsAgo) => {
    const t = Date.now() / 1000 - secondsAgo;
    fs.utimesSync(path.join(ws, rel), t, t);
  };
  at("main.ts", 180);
  at(".codegraph/codegraph.db", 120);
  fs.mkdirSync(path.join(ws, "node_modules", "dep"), { recursive: true });
  const s = await session(ws);
  assert.equal(await s.report(), "pi-codegraph: ready", "nothing newer than the index");

  // A shell command writes source, a README, a dependency's file, and deletes nothing.
  fs.writeFileSync(path.join(ws, "gen.ts"), "export const g = 1;\n");
  fs.writeFileSync(path.join(ws, "NOTES.md"), "not a file CodeGraph indexes\n");
  fs.writeFileSync(path.join(ws, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
  await s.host.toolResult({ toolName: "read", input: { path: "gen.ts" } }, s.ctx);
  assert.equal(s.slot(), "⬡ codegraph", "another tool does not walk");
  await s.host.toolResult({ toolName: "bash", input: { command: "node gen.js" } }, s.ctx);
  await waitFor(() => s.slot() === "⬡ codegraph · 1 file changed since the index", { what: "the walk after bash" });
  assert.equal(await s.report(), "pi-codegraph: ready, 1 file changed since the index: gen.ts");

  // The user's editor, between turns: the next turn's walk finds it.
  at("main.ts", 0);
  await s.host.beforeAgentStart(s.ctx);
  await waitFor(() => s.slot() === "⬡ codegraph · 2 files changed since the index", { what: "the walk before a turn" });
  assert.equal(await s.report(), "pi-codegraph: ready, 2 files changed since the index: gen.ts, main.ts");

  // The index written after them (a sync): nothing counted, and the walks find nothing newer.
  at(".codegraph/codegraph.db", -5);
  await s.host.beforeAgentStart(s.ctx);
  assert.equal(await s.report(), "pi-codegraph: ready");
  assert.equal(s.slot(), "⬡ codegraph");
});

test("a session started after files changed says so from the start", async () => {
  const ws = makeWorkspace();
  const t = Date.now() / 1000 - 120;
  fs.utimesSync(path.join(ws, ".codegraph", "codegraph.db"), t, t);
  const s = await session(ws);
  await waitFor(() => s.slot() === "⬡ codegraph · 1 file changed since the index", { what: "the start's walk" });
});

test("in a monorepo the walk looks in each project against its own index; a file outside every project is not counted", async () => {
  const ws = makeMonorepo(); // packages/api and packages/web, each indexed; no index of the workspace's own
  const s = await session(ws);
  assert.equal(await s.report(), "pi-codegraph: ready");
  fs.writeFileSync(path.join(ws, "packages", "api", "src", "late.ts"), "export const late = 1;\n");
  fs.mkdirSync(path.join(ws, "tools"));
  fs.writeFileSync(path.join(ws, "tools", "x.ts"), "export const x = 1;\n");
  await s.host.toolResult({ toolName: "bash", input: { command: "./gen" } }, s.ctx);
  assert.equal(await s.report(), "pi-codegraph: ready, 1 file changed since the index: packages/api/src/late.ts");
});

test("a walk that finds more than it lists counts at least that many: 1000+", () => {
  const ledger = createEditLedger({ maxTracked: 3 });
  const root = makeWorkspace();
  const files = ["a", "b", "c", "d"].map((n) => path.join(root, `${n}.ts`));
  assert.equal(ledger.noteChanged(root, files.slice(0, 2), false), true);
  assert.deepEqual([ledger.count(), ledger.more()], [2, false]);
  assert.equal(ledger.noteChanged(root, files.slice(0, 2), false), false, "the same files again: no change");
  ledger.noteChanged(root, files, true);
  assert.deepEqual([ledger.count(), ledger.more()], [3, true]);
});

test("a file dated in the future counts until the index is written after it: /codegraph sync and the count agree", async () => {
  const ws = makeWorkspace();
  const hour = 3600;
  fs.utimesSync(path.join(ws, "main.ts"), Date.now() / 1000 - 2 * hour, Date.now() / 1000 - 2 * hour);
  const future = path.join(ws, "future.ts");
  fs.writeFileSync(future, "export const later = 1;\n");
  fs.utimesSync(future, Date.now() / 1000 + hour, Date.now() / 1000 + hour); // an archive's date, a skewed clock
  const db = path.join(ws, ".codegraph", "codegraph.db");
  fs.utimesSync(db, Date.now() / 1000 - 60, Date.now() / 1000 - 60);
  const s = await session(ws);
  await waitFor(() => s.slot() === "⬡ codegraph · 1 file changed since the index", { what: "the start's walk" });
  // The sync writes the index after the file was written: its date in the future is no later write.
  await s.host.commands.get("codegraph").handler("sync --yes", s.ctx);
  await s.host.beforeAgentStart(s.ctx);
  assert.equal(s.slot(), "⬡ codegraph");
  assert.equal(await s.report(), "pi-codegraph: ready");
});

test("a walk a bound ended says its count is a lower bound, and that a change past it is not counted", async () => {
  const ws = makeWorkspace();
  // More files than the walk reads (CHANGE_WALK_LIMITS.maxFiles), the one change sorted last.
  const many = path.join(ws, "gen");
  fs.mkdirSync(many);
  for (let i = 0; i < CHANGE_WALK_LIMITS.maxFiles + 1; i += 1) fs.writeFileSync(path.join(many, `f${i}.ts`), "");
  const db = path.join(ws, ".codegraph", "codegraph.db");
  fs.utimesSync(db, Date.now() / 1000 + 60, Date.now() / 1000 + 60); // the index newer than all of them
  const s = await session(ws);
  await waitFor(() => /not counted/u.test(s.slot() ?? ""), { what: "the start's walk", timeoutMs: 30_000 });
  assert.match(s.slot(), /^⬡ codegraph · changes past [\d,]+ files not counted$/u);
  assert.match(
    await s.report(),
    /^pi-codegraph: ready; the walk for changes stopped at (its bound of 50,000 files|its time bound after reading [\d,]+ files), so a change past them is not counted \(\/codegraph status asks CodeGraph\)$/u,
  );
});
