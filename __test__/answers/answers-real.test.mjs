// What the model reads is true, against the real, pinned CodeGraph CLI on fixtures made to show
// where CodeGraph 1.6.1's own words mislead: the trimmed-files labels of a long explore answer
// (an index of 500 files or more). Through the public seam: explore() on the package (the
// runner the machine loads; the words above it exist once, lib/api/).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { doctorRows, root, tempDir } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const { changedFileNames } = require("../../lib/api/changed-files.js");
const { verbCommand } = require("../../lib/contract/verbs.js");
const { parseIndexStatus } = require("../../lib/contract/index-status.js");
const cliBin = path.join(root, "node_modules", ".bin");
const originalPath = process.env.PATH;

/** Writes `files` (relative path → text) under `dir`. */
function writeTree(dir, files) {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

/** Indexes `dir` with the pinned CLI, as the user's `/codegraph init` would. */
function indexTree(dir) {
  execFileSync(path.join(cliBin, "codegraph"), ["init", "-y", "."], {
    cwd: dir,
    env: { ...process.env, DO_NOT_TRACK: "1" },
    stdio: "ignore",
  });
}

/** CodeGraph's own `status --json` facts for `dir`, read through the package's run(). */
const statusOf = async (dir) => parseIndexStatus((await pkg.run(verbCommand("status"), dir)).text);

const lines = (n, line) => Array.from({ length: n }, (_, i) => line(i + 1)).join("\n");

/**
 * 560 TypeScript files: CodeGraph names trimmed files only on an index of 500 or more. Two files
 * end in `task/mod.ts` and two in `current_thread/mod.ts`, long enough to be trimmed, so their
 * labels are suffixes the workspace does not hold as written.
 */
function trimmedTree() {
  const dir = tempDir("pi-codegraph-trimmed-");
  const files = {};
  for (let i = 1; i <= 520; i += 1)
    files[`src/util/h${i}.ts`] = `export function helper${i}(x: number) { return x + ${i}; }\n`;
  const spawner = [
    'import { spawnTask } from "../runtime/task/mod";',
    "export function spawn(f: () => void) { return spawnTask(f); }",
    lines(400, (j) => `export function pad${j}() { return spawn(() => { console.log("padding line ${j}"); }); }`),
  ].join("\n");
  files["src/task/mod.ts"] = spawner;
  files["src/sched/current_thread/mod.ts"] = spawner;
  const task = "export function spawnTask(f: () => void) { f(); return 1; }\n";
  files["src/runtime/task/mod.ts"] = task;
  files["src/runtime/scheduler/current_thread/mod.ts"] = task;
  for (let i = 1; i <= 36; i += 1) {
    files[`src/util/c${i}.ts`] = [
      'import { spawn } from "../task/mod";',
      `export function caller${i}() {`,
      lines(30, (j) => `  spawn(() => { console.log(${i * j}); });`),
      "}",
    ].join("\n");
  }
  writeTree(dir, files);
  indexTree(dir);
  return dir;
}

before(() => {
  process.env.PATH = [cliBin, path.dirname(process.execPath), originalPath].join(path.delimiter);
});
after(() => {
  process.env.PATH = originalPath;
});

describe("trimmed-files labels on a fresh index", () => {
  const request = "spawn pad1 pad200 spawnTask";
  let ws;
  before(() => {
    ws = trimmedTree();
  });

  test("a label is not a path: nothing is told deleted; a header file deleted is told by its path", async () => {
    const fresh = await pkg.explore(request, ws);
    const labels = /Trimmed for size: ([^;]*)/.exec(fresh.text)?.[1];
    assert.ok(labels, "CodeGraph trimmed files in this answer (the fixture shows what it is for)");
    const named = [...labels.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    assert.ok(
      named.some((label) => !fs.existsSync(path.join(ws, label))),
      `a label the workspace does not hold as written: ${named}`,
    );
    assert.equal(fresh.details.staleFiles, undefined, fresh.text.split("\n").at(-1));
    assert.doesNotMatch(fresh.text, /— deleted/);

    // The control: a file the answer shows, removed after the index, is told by its path.
    fs.rmSync(path.join(ws, "src/runtime/task/mod.ts"));
    const after = await pkg.explore(request, ws);
    assert.deepEqual(after.details.staleFiles, [{ path: "src/runtime/task/mod.ts", state: "deleted" }]);
  });
});

describe("a blast radius whose caller files were deleted", () => {
  test("callers in a file deleted since the index (nested, at the root, a test): each is said gone, nothing else", async () => {
    const ws = tempDir("pi-codegraph-blast-");
    const call = (from) => `import { pay } from "${from}";\nexport function use(): number {\n  return pay(3);\n}\n`;
    writeTree(ws, {
      "lib/pay.ts": "export function pay(amount: number): number {\n  return amount * 2;\n}\n",
      "app.ts": call("./lib/pay"),
      "src/cli/run.ts": call("../../lib/pay"),
      "lib/pay.test.ts": call("./pay"),
    });
    indexTree(ws);
    fs.rmSync(path.join(ws, "app.ts"));
    fs.rmSync(path.join(ws, "lib/pay.test.ts"));
    const r = await pkg.explore("pay", ws);
    const row = r.text.split("\n").find((l) => l.startsWith("- `pay` ("));
    // What CodeGraph 1.6.1 prints (the fixture shows what it is for).
    assert.match(row, /callers in `src\/cli\/run\.ts`, `app\.ts`; tests: `lib\/pay\.test\.ts`$/);
    assert.deepEqual(r.details.staleFiles, [
      { path: "app.ts", state: "deleted" },
      { path: "lib/pay.test.ts", state: "deleted" },
    ]);
    assert.match(r.text, /\n⚠ 2 files named above changed .*\(app\.ts — deleted; lib\/pay\.test\.ts — deleted\)/);
  });
});

describe("an answer about another symbol, and callers that only import", () => {
  let ws;
  before(() => {
    ws = tempDir("pi-codegraph-shop-");
    fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
    indexTree(ws);
  });
  const lead = (r) => r.text.split("\n", 1)[0];

  test("node: CodeGraph's closest name for one it lacks, and a definition in another file than `file`, are said first", async () => {
    assert.equal(
      lead(await pkg.node({ symbol: "total" }, ws)),
      `Note: CodeGraph's index has no symbol named "total"; this answer is about "calculateTotal" (src/cart.ts:11), the closest name it has.`,
    );
    assert.match(
      lead(await pkg.node({ symbol: "CHARGE" }, ws)),
      /^Note: CodeGraph's index has no symbol named "CHARGE"; this answer is about "charge" \(src\/stripe\.ts:4\)/,
    );
    assert.equal(
      lead(await pkg.node({ symbol: "calculateTotal", file: "src/stripe.ts" }, ws)),
      'Note: CodeGraph\'s index has no "calculateTotal" in src/stripe.ts; this answer is its definition in src/cart.ts:11.',
    );
    // The controls: the name asked (plain, qualified, its file by a tail) gets CodeGraph's answer alone.
    for (const params of [
      { symbol: "calculateTotal" },
      { symbol: "Inventory.add" },
      { symbol: "Inventory::add" },
      { symbol: "charge", file: "stripe.ts" },
    ]) {
      const r = await pkg.node(params, ws);
      assert.match(lead(r), /^\*\*\w+\*\* \(\w+\)$/, JSON.stringify(params));
    }
  });

  test("callers: rows that only import the symbol are counted as such", async () => {
    const some = await pkg.relations({ relation: "callers", symbol: "calculateTotal" }, ws);
    assert.equal(
      lead(some),
      'Note: 1 of the 2 callers below is a file that only imports "calculateTotal" ([imports]), not a call.',
    );
    assert.match(some.text, /checkout\.ts \[imports\]/);
    const all = await pkg.relations({ relation: "callers", symbol: "Inventory" }, ws);
    assert.equal(lead(all), 'Note: The caller below is a file that only imports "Inventory" ([imports]), not a call.');
    const none = await pkg.relations({ relation: "callers", symbol: "add" }, ws);
    assert.equal(lead(none), "", "no import among the callers: CodeGraph's answer alone");
  });
});

describe("the files changed since the index, by name", () => {
  test("doctor and /codegraph status name what CodeGraph counts; a kind whose count the names do not match stays a count", async () => {
    const ws = tempDir("pi-codegraph-shop-");
    fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
    indexTree(ws);
    fs.appendFileSync(path.join(ws, "src", "cart.ts"), "export const added = 1;\n");
    fs.rmSync(path.join(ws, "py", "restock.py"));
    fs.writeFileSync(path.join(ws, "src", "fresh.ts"), "export const fresh = 2;\n");
    const doctorStatus = () => {
      const out = execFileSync(process.execPath, [path.join(root, "bin", "pi-codegraph.js"), "doctor", ws], {
        encoding: "utf8",
      });
      return doctorRows(out).status;
    };
    assert.equal(
      doctorStatus(),
      "ready, 3 files changed since the index (1 modified, 1 added, 1 removed; codegraph status): src/cart.ts, py/restock.py (removed) and 1 more",
    );
    const named = await changedFileNames(pkg.run, ws, await statusOf(ws));
    assert.deepEqual(named, { modified: ["src/cart.ts"], removed: ["py/restock.py"] });

    // A file written again with the same bytes: no change to CodeGraph, a candidate to us, so the
    // modified ones are counted, not named.
    const same = path.join(ws, "src", "index.ts");
    fs.writeFileSync(same, fs.readFileSync(same));
    assert.equal(
      doctorStatus(),
      "ready, 3 files changed since the index (1 modified, 1 added, 1 removed; codegraph status): py/restock.py (removed) and 2 more",
    );
  });
});
