// The runners' bounded source search (`scanSource`: crates/core/src/source_scan.rs) and walk for
// changed files (`changedSource`: crates/core/src/source_changes.rs), the native addon's and the
// Node runner's (the same core as WebAssembly, in its worker) on one tree: the same answer from both, what CodeGraph's indexer skips skipped (nested .gitignore and its negations,
// .git/info/exclude, its directory names, a binary file, a file over the size bound), and each
// bound said. The Rust suite
// (crates/core/tests/source_scan.rs) holds the core alone; this holds what JS receives.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const { nativeRunner } = require(path.join(root, "lib/runners/native.js"));
const nodeRunner = require(path.join(root, "lib/runners/node.js"));
const { definitionScan } = require(path.join(root, "lib/contract/definitions.js"));
const { CODEGRAPH_EXTENSIONS, sourceChangesRequest } = require(path.join(root, "lib/contract/source-changes.js"));

const runners = [
  ["native addon", (cwd, scan) => nativeRunner.scanSource(cwd, scan)],
  ["node runner", (cwd, scan) => nodeRunner.scanSource(cwd, scan)],
];
const walkers = [
  ["native addon", (cwd, walk) => nativeRunner.changedSource(cwd, walk)],
  ["node runner", (cwd, walk) => nodeRunner.changedSource(cwd, walk)],
];

function tree() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-cg-scan-"));
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  write("src/spawn.rs", "cfg_rt! {\n    pub(crate) fn spawn_inner<T>(f: T) {}\n}\n");
  write(
    "src/effect.ts",
    "export const runPromise = <A>(e: A): Promise<A> =>\n  x\nclass Runtime {\n  async runFork<A>(e: A): Fiber<A> {\n  }\n}\nrunFork(x)\n",
  );
  write("app/models.py", "class Order:\n    def total(self):\n        pass\nMAX_ITEMS = 3\n");
  write("node_modules/dep/index.ts", "export function runFork() {}\n");
  write("target/gen.rs", "fn spawn_inner() {}\n");
  write("pkg.egg-info/x.py", "def total(): pass\n");
  write(".codegraph/x.ts", "function runFork() {}\n");
  write(".git/info/exclude", "excluded.rs\n");
  write("excluded.rs", "fn spawn_inner() {}\n");
  write("lib/.gitignore", "gen/\n!keep.rs\n");
  write(".gitignore", "*.rs.bak.rs\nlib/keep.rs\n");
  write("lib/gen/y.rs", "fn spawn_inner() {}\n");
  write("lib/keep.rs", "fn spawn_inner() {}\n");
  write("x.rs.bak.rs", "fn spawn_inner() {}\n");
  write("bin.rs", "fn spawn_inner() {}\n\0");
  write("big.rs", `fn spawn_inner() {}\n${" ".repeat(8 * 1024 * 1024)}`);
  return dir;
}

const names = ["spawn_inner", "runPromise", "runFork", "total", "MAX_ITEMS"];

test("both runners find the same definitions, skipping what CodeGraph's indexer skips", async () => {
  const dir = tree();
  const size = (rel) => fs.statSync(path.join(dir, rel)).size;
  const at = (rel, line) => ({ path: rel, line, fileBytes: size(rel) });
  const read = ["app/models.py", "bin.rs", "lib/keep.rs", "src/effect.ts", "src/spawn.rs"];
  const expected = {
    // lib/keep.rs: the root's .gitignore ignores it, lib/.gitignore's negation (deeper) keeps it.
    matches: [
      at("app/models.py", 2),
      at("app/models.py", 4),
      at("lib/keep.rs", 1),
      at("src/effect.ts", 1),
      at("src/effect.ts", 4),
      at("src/spawn.rs", 2),
    ],
    filesScanned: read.length,
    bytesScanned: read.reduce((sum, rel) => sum + size(rel), 0),
    filesTooLarge: 1,
    ignoreFilesCut: 0,
  };
  for (const [name, scanSource] of runners) {
    const found = await scanSource(dir, definitionScan(names));
    const places = found.matches.map(({ path, line, fileBytes }) => ({ path, line, fileBytes }));
    assert.deepEqual({ ...found, matches: places }, expected, name);
    // The same directory named relative to the process's own (WASI has no working directory).
    const cwd = process.cwd();
    process.chdir(path.dirname(dir));
    try {
      const relative = await scanSource(path.basename(dir), definitionScan(names));
      assert.deepEqual(relative.matches, found.matches, `${name}, a relative directory`);
    } finally {
      process.chdir(cwd);
    }
  }
});

test("each bound ends the scan and says which, the same way on both runners", async () => {
  const dir = tree();
  const bounds = [
    [{ maxMatches: 2 }, "matches", 2],
    [{ maxFiles: 1 }, "files", 1],
    [{ maxTotalBytes: 70 }, "bytes", 1],
    [{ deadlineMs: 0 }, "deadline", 0],
  ];
  for (const [bound, stopped, count] of bounds) {
    const results = [];
    for (const [name, scanSource] of runners) {
      const found = await scanSource(dir, { ...definitionScan(names), ...bound });
      assert.equal(found.stopped, stopped, `${name} ${JSON.stringify(bound)}`);
      assert.equal(stopped === "matches" ? found.matches.length : found.filesScanned, count, name);
      results.push({ ...found });
    }
    assert.deepEqual(results[0], results[1], JSON.stringify(bound));
  }
});

test("a lone surrogate in a pattern reaches the core as U+FFFD on both runners (as V8's napi hands it over)", async () => {
  const dir = tree();
  fs.writeFileSync(path.join(dir, "src", "odd.ts"), 'const tag = "a\uFFFDb";\n');
  for (const [name, scanSource] of runners) {
    const found = await scanSource(dir, {
      ...definitionScan(names),
      rules: [{ extensions: ["ts"], pattern: "a\uD800b" }],
    });
    assert.deepEqual(
      found.matches.map((m) => m.path),
      ["src/odd.ts"],
      name,
    );
  }
});

test("a pattern that does not compile rejects with CODEGRAPH_INVALID_REQUEST on both runners", async () => {
  const dir = tree();
  for (const [name, scanSource] of runners) {
    await assert.rejects(
      scanSource(dir, { ...definitionScan(names), rules: [{ extensions: ["rs"], pattern: "fn (" }] }),
      (err) => {
        assert.match(err.message, /^CODEGRAPH_INVALID_REQUEST: invalid scan pattern "fn \("/u, name);
        assert.equal(err.code, "CODEGRAPH_INVALID_REQUEST", name);
        return true;
      },
    );
  }
});

test("both runners name the same files written after the index, by CodeGraph's extensions, skipping what it skips; each bound said", async () => {
  const dir = tree();
  const past = Date.now() / 1000 - 3600;
  for (const rel of ["src/spawn.rs", "app/models.py", "lib/keep.rs"]) fs.utimesSync(path.join(dir, rel), past, past);
  fs.writeFileSync(path.join(dir, "README.md"), "not a file CodeGraph indexes\n");
  const since = Date.now() - 60_000;
  // Newer than `since`: every file the tree wrote now that the walk does not skip and CodeGraph indexes.
  const expected = { paths: ["big.rs", "bin.rs", "src/effect.ts"], changed: 3, filesSeen: 6, ignoreFilesCut: 0 };
  const results = [];
  for (const [name, changedSource] of walkers) {
    const found = { ...(await changedSource(dir, sourceChangesRequest(since))) };
    delete found.stopped; // null from the addon, absent from Node: neither stopped
    assert.deepEqual(found, expected, name);
    const listed = await changedSource(dir, { ...sourceChangesRequest(since), maxPaths: 1 });
    assert.deepEqual([listed.paths, listed.changed], [["big.rs"], 3], `${name}: one listed, all counted`);
    for (const [bound, stopped] of [
      [{ maxFiles: 2 }, "files"],
      [{ deadlineMs: 0 }, "deadline"],
    ]) {
      const cut = await changedSource(dir, { ...sourceChangesRequest(since), ...bound });
      assert.equal(cut.stopped, stopped, `${name} ${JSON.stringify(bound)}`);
      results.push({ ...cut });
    }
    // A file written in the index's own millisecond is not newer.
    const bigMs = fs.statSync(path.join(dir, "big.rs")).mtimeMs;
    const after = await changedSource(dir, { ...sourceChangesRequest(bigMs), extensions: ["rs"] });
    assert.ok(!after.paths.includes("big.rs"), `${name}: a file as old as the index is not newer`);
  }
  assert.deepEqual(results.slice(0, 2), results.slice(2), "the bounds end both walks alike");
});

test("the walk's extensions are those the pinned CodeGraph indexes", () => {
  const cli = path.dirname(require.resolve("@colbymchenry/codegraph/package.json"));
  const platform = fs
    .readdirSync(path.join(cli, ".."))
    .map((n) => path.join(cli, "..", n, "lib", "dist", "extraction", "grammars.js"))
    .find((f) => fs.existsSync(f));
  assert.ok(platform, "the pinned CLI's grammars.js");
  const map = require(platform).EXTENSION_MAP;
  const theirs = Object.keys(map)
    .filter((k) => k.startsWith("."))
    .map((k) => k.slice(1));
  assert.deepEqual([...CODEGRAPH_EXTENSIONS].sort(), theirs.sort());
});
