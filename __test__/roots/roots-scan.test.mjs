// The bounded discovery scan (lib/pi/roots/scan.js, issue 24): each bound on a temp tree, through the
// module's exports. Every expectation is the exact roots list, so a bound that stops holding fails.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, test } from "node:test";
import { root, tempDir } from "../helpers/index.mjs";
import { ROOT_USER, runNode } from "../helpers/processes.mjs";
import { indexBytes } from "../helpers/roots.mjs";

const require = createRequire(import.meta.url);
const SCAN = path.join(root, "lib", "pi", "roots", "scan.js");
const { SCAN_LIMITS, SCAN_SKIP, PROJECT_MARKERS, scanRoots } = require(SCAN);
const { hasIndex } = require(path.join(root, "lib", "pi", "roots", "index-probe.js"));

const HEADER = Buffer.from("SQLite format 3\0", "latin1");
const NOBODY = 65534;
const made = [];
after(() => {
  for (const dir of made) {
    fs.chmodSync(dir, 0o755);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A workspace marked as a project (package.json) unless `marker` says otherwise. */
function workspace({ marker = "package.json" } = {}) {
  const ws = tempDir("pi-codegraph-scan-");
  made.push(ws);
  if (marker) fs.writeFileSync(path.join(ws, marker), "{}\n");
  return ws;
}

/** `rel` (under `ws`) with an index: `.codegraph/codegraph.db` holding `content`. */
function indexed(ws, rel, content = indexBytes()) {
  const dir = path.join(ws, rel, ".codegraph");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "codegraph.db"), content);
  return path.join(ws, rel);
}

const rel = (ws, roots) => roots.map((r) => path.relative(ws, r));
const mkfifo = (file) => execFileSync("mkfifo", [file]);

test("the limits and lists are upstream's, with our directory and time bounds", () => {
  assert.deepEqual({ ...SCAN_LIMITS }, { maxDepth: 4, maxRoots: 64, maxDirs: 20000, deadlineMs: 2000 });
  for (const name of ["node_modules", ".git", "dist", "build", "out", "target", "vendor", "__pycache__", "temp"])
    assert.ok(SCAN_SKIP.has(name), name);
  for (const name of ["package.json", "go.mod", "Cargo.toml", "pyproject.toml", "WORKSPACE.bazel", ".git"])
    assert.ok(PROJECT_MARKERS.includes(name), name);
});

test("depth: an index four levels below is found, five levels below is not", async () => {
  const ws = workspace();
  indexed(ws, "a/b/c/d");
  indexed(ws, "e/f/g/h/i");
  indexed(ws, "one");
  const r = await scanRoots(ws);
  assert.deepEqual(rel(ws, r.roots), ["one", "a/b/c/d"]);
  assert.equal(r.truncated, null);
  assert.equal(r.gated, null);
  assert.equal(r.own, false);
  // maxDepth is honoured as given.
  assert.deepEqual(rel(ws, (await scanRoots(ws, { maxDepth: 3 })).roots), ["one"]);
  assert.deepEqual((await scanRoots(ws, { maxDepth: 0 })).roots, []);
});

test("count: 70 indexed siblings give the first 64 by name, truncated; exactly 64 is not truncated", async () => {
  const ws = workspace();
  const names = Array.from({ length: 70 }, (_, i) => `p${String(i).padStart(2, "0")}`);
  for (const name of names) indexed(ws, name);
  const r = await scanRoots(ws);
  assert.deepEqual(rel(ws, r.roots), names.slice(0, 64));
  assert.equal(r.truncated, "roots");

  const exact = workspace();
  for (const name of names.slice(0, 64)) indexed(exact, name);
  const e = await scanRoots(exact);
  assert.equal(e.roots.length, 64);
  assert.equal(e.truncated, null);
});

test("skipped directories (the skip list and every dot-directory) hide an index placed in them", async () => {
  const ws = workspace();
  const hidden = ["node_modules", ".git", "build", "vendor", "dist", "target", "out", "coverage", "tmp", ".hidden"];
  for (const name of hidden) {
    indexed(ws, name);
    indexed(ws, `${name}/inner`);
  }
  indexed(ws, "app");
  indexed(ws, "libs/ok");
  const r = await scanRoots(ws);
  assert.deepEqual(rel(ws, r.roots), ["app", "libs/ok"]);
  // Skipped names are skipped at any depth.
  indexed(ws, "libs/x/node_modules/dep");
  indexed(ws, "libs/x/.cache/dep");
  assert.deepEqual(rel(ws, (await scanRoots(ws)).roots), ["app", "libs/ok"]);
});

test("gate: a workspace that no manifest or .git marks is not scanned; each marker opens it", async () => {
  const bare = workspace({ marker: null });
  indexed(bare, "packages/api");
  const r = await scanRoots(bare);
  assert.equal(r.gated, "notAProject");
  assert.deepEqual(r.roots, []);

  const markers = [
    "package.json",
    "pnpm-workspace.yaml",
    "lerna.json",
    "nx.json",
    "turbo.json",
    "go.work",
    "go.mod",
    "Cargo.toml",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "pyproject.toml",
    "composer.json",
    "Gemfile",
    "rush.json",
    "WORKSPACE",
    "WORKSPACE.bazel",
  ];
  for (const marker of markers) {
    const ws = workspace({ marker });
    indexed(ws, "packages/api");
    const m = await scanRoots(ws);
    assert.equal(m.gated, null, marker);
    assert.deepEqual(rel(ws, m.roots), ["packages/api"], marker);
  }
  // `.git` alone marks a project: a directory, or a file (a worktree or submodule).
  const gitDir = workspace({ marker: null });
  fs.mkdirSync(path.join(gitDir, ".git"));
  indexed(gitDir, "svc");
  assert.deepEqual(rel(gitDir, (await scanRoots(gitDir)).roots), ["svc"]);
  const gitFile = workspace({ marker: ".git" });
  indexed(gitFile, "svc");
  assert.deepEqual(rel(gitFile, (await scanRoots(gitFile)).roots), ["svc"]);
  // A marker in a subdirectory does not open the workspace.
  const deep = workspace({ marker: null });
  fs.writeFileSync(path.join(indexed(deep, "svc"), "package.json"), "{}\n");
  assert.equal((await scanRoots(deep)).gated, "notAProject");
});

test("never $HOME, an ancestor of it, or a filesystem root (own is still checked)", async () => {
  const ws = workspace();
  indexed(ws, ".");
  indexed(ws, "packages/api");
  const home = await scanRoots(ws, { home: ws });
  assert.deepEqual({ own: home.own, roots: home.roots, gated: home.gated }, { own: true, roots: [], gated: "home" });
  // Home reached through a symlink is still home.
  const link = path.join(tempDir("pi-codegraph-scan-link-"), "home");
  made.push(path.dirname(link));
  fs.symlinkSync(ws, link);
  assert.equal((await scanRoots(ws, { home: link })).gated, "home");
  assert.equal((await scanRoots(link, { home: ws })).gated, "home");
  // An ancestor of home (`/home` for `/home/me`) is broader still.
  assert.equal((await scanRoots(ws, { home: path.join(ws, "packages", "api") })).gated, "home");
  // A workspace below home is scanned.
  const below = await scanRoots(path.join(ws, "packages"), { home: ws });
  assert.equal(below.gated, "notAProject");
  fs.writeFileSync(path.join(ws, "packages", "go.work"), "");
  assert.deepEqual(rel(ws, (await scanRoots(path.join(ws, "packages"), { home: ws })).roots), ["packages/api"]);

  const slash = await scanRoots("/");
  assert.equal(slash.gated, "filesystemRoot");
  assert.deepEqual(slash.roots, []);
  assert.equal(slash.dirsRead, 0);
});

test("symlinks are not followed: a loop back to an ancestor, and a link to an index elsewhere", async () => {
  const ws = workspace();
  const elsewhere = workspace();
  indexed(elsewhere, "external");
  indexed(ws, "real");
  fs.mkdirSync(path.join(ws, "a", "b"), { recursive: true });
  fs.symlinkSync(ws, path.join(ws, "a", "b", "loop"));
  fs.symlinkSync("..", path.join(ws, "a", "up"));
  fs.symlinkSync(path.join(elsewhere, "external"), path.join(ws, "linked"));
  fs.symlinkSync(path.join(elsewhere), path.join(ws, "a", "tree"));
  const r = await scanRoots(ws);
  assert.deepEqual(rel(ws, r.roots), ["real"]);
  assert.equal(r.truncated, null);
  // a, a/b, real: the workspace and three directories, nothing through a link.
  assert.equal(r.dirsRead, 4);
});

test("FIFOs: a FIFO as codegraph.db is no index and never blocks; FIFOs among entries are ignored", {
  timeout: 5000,
}, async () => {
  const ws = workspace();
  fs.mkdirSync(path.join(ws, "piped", ".codegraph"), { recursive: true });
  mkfifo(path.join(ws, "piped", ".codegraph", "codegraph.db"));
  mkfifo(path.join(ws, "pipe"));
  mkfifo(path.join(ws, "package.lock"));
  fs.mkdirSync(path.join(ws, "fifo-index"));
  mkfifo(path.join(ws, "fifo-index", ".codegraph")); // .codegraph itself a FIFO
  fs.mkdirSync(path.join(ws, "dev", ".codegraph"), { recursive: true });
  fs.symlinkSync("/dev/zero", path.join(ws, "dev", ".codegraph", "codegraph.db")); // a device
  indexed(ws, "ok");
  const r = await scanRoots(ws);
  assert.deepEqual(rel(ws, r.roots), ["ok"]);
  assert.equal(await hasIndex(path.join(ws, "piped")), false);
  assert.equal(await hasIndex(path.join(ws, "fifo-index")), false);
  assert.equal(await hasIndex(path.join(ws, "dev")), false);
});

test("an unreadable directory is counted and skipped; its siblings are still found", async () => {
  // chmod 000 does not stop root: as root, the scan runs as `nobody` on a tree others may read.
  const parent = tempDir("pi-codegraph-scan-perm-");
  made.push(parent);
  fs.chmodSync(parent, 0o755);
  const ws = path.join(parent, "ws");
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, "package.json"), "{}\n");
  indexed(ws, "locked/inner");
  indexed(ws, "open");
  indexed(ws, "zz/deeper");
  // Entered but not listed (711): still probed, so its index is found.
  const listless = indexed(ws, "listless");
  fs.chmodSync(listless, 0o711);
  const locked = path.join(ws, "locked");
  fs.chmodSync(locked, 0o000);
  const script = `require(${JSON.stringify(SCAN)}).scanRoots(${JSON.stringify(ws)}).then((r) => console.log(JSON.stringify(r)));`;
  try {
    const run = await runNode(["-e", script], ROOT_USER ? { uid: NOBODY, gid: NOBODY } : {});
    assert.equal(run.code, 0, run.stderr);
    const r = JSON.parse(run.stdout);
    assert.deepEqual(rel(ws, r.roots), ["listless", "open", "zz/deeper"]);
    assert.equal(r.unreadable, 2);
    assert.equal(r.truncated, null);
  } finally {
    fs.chmodSync(locked, 0o755);
    fs.chmodSync(listless, 0o755);
  }
});

test("a vanished or unusable workspace: no index, no roots, no throw", async () => {
  const ws = workspace();
  const file = path.join(ws, "package.json");
  for (const bad of [path.join(ws, "missing"), file, "relative/dir", "", undefined, null, 42]) {
    const r = await scanRoots(bad);
    assert.equal(r.own, false, String(bad));
    assert.deepEqual(r.roots, [], String(bad));
  }
  const missing = await scanRoots(path.join(ws, "missing"));
  assert.equal(missing.unreadable, 1);
  assert.equal(await hasIndex(path.join(ws, "missing")), false);
  assert.equal(await hasIndex(undefined), false);
});

test("the content decides: empty, zeros, short, SQLite's magic alone, or a directory named codegraph.db is no index", async () => {
  const ws = workspace();
  indexed(ws, "empty", Buffer.alloc(0));
  indexed(ws, "zeros", Buffer.alloc(4096));
  indexed(ws, "short", HEADER.subarray(0, 15));
  indexed(ws, "text", Buffer.from("SQLite format 3 \n, not quite"));
  fs.mkdirSync(path.join(ws, "dirdb", ".codegraph", "codegraph.db"), { recursive: true });
  indexed(ws, "exact", HEADER);
  indexed(ws, "valid");
  const r = await scanRoots(ws);
  assert.deepEqual(rel(ws, r.roots), ["valid"]);
  for (const name of ["empty", "zeros", "short", "text", "dirdb", "exact"])
    assert.equal(await hasIndex(path.join(ws, name)), false, name);
  assert.equal(await hasIndex(path.join(ws, "valid")), true);
  // A symlinked database is followed by stat, as CodeGraph opens it.
  fs.mkdirSync(path.join(ws, "viaLink", ".codegraph"), { recursive: true });
  fs.symlinkSync(
    path.join(ws, "valid", ".codegraph", "codegraph.db"),
    path.join(ws, "viaLink", ".codegraph", "codegraph.db"),
  );
  assert.equal(await hasIndex(path.join(ws, "viaLink")), true);
});

test("an indexed directory is not descended into", async () => {
  const ws = workspace();
  indexed(ws, "app");
  indexed(ws, "app/packages/nested");
  indexed(ws, "app/sub");
  indexed(ws, "lib/nested");
  const r = await scanRoots(ws);
  assert.deepEqual(rel(ws, r.roots), ["app", "lib/nested"]);
});

test("maxDirs: the first directories in breadth-first order are read, then the scan stops", async () => {
  const ws = workspace();
  indexed(ws, "p1");
  indexed(ws, "p2");
  indexed(ws, "p3");
  const r = await scanRoots(ws, { maxDirs: 3 });
  assert.deepEqual(rel(ws, r.roots), ["p1", "p2"]);
  assert.equal(r.truncated, "dirs");
  assert.equal(r.dirsRead, 3);
  const none = await scanRoots(ws, { maxDirs: 0 });
  assert.deepEqual({ roots: none.roots, truncated: none.truncated }, { roots: [], truncated: "dirs" });
  assert.equal((await scanRoots(ws, { maxDirs: 4 })).truncated, null);
});

test("deadline: an expired deadline stops the scan with what it has", async () => {
  const ws = workspace();
  indexed(ws, "p1");
  indexed(ws, "p2");
  const r = await scanRoots(ws, { deadlineMs: 0 });
  assert.deepEqual(r.roots, []);
  assert.equal(r.truncated, "time");
  // A listing that never returns (a hung mount) is abandoned at the deadline, not awaited.
  fs.mkdirSync(path.join(ws, "hung"));
  const readdir = fs.promises.readdir;
  fs.promises.readdir = (dir, ...rest) =>
    path.basename(String(dir)) === "hung" ? new Promise(() => {}) : readdir.call(fs.promises, dir, ...rest);
  try {
    const hung = await scanRoots(ws, { deadlineMs: 150 });
    assert.deepEqual({ roots: hung.roots, truncated: hung.truncated }, { roots: [], truncated: "time" });
    assert.ok(hung.ms >= 140 && hung.ms < 2000, `${hung.ms} ms`);
  } finally {
    fs.promises.readdir = readdir;
  }
  for (const deadlineMs of [10000, 2 ** 32, Number.POSITIVE_INFINITY]) {
    const full = await scanRoots(ws, { deadlineMs });
    assert.deepEqual(rel(ws, full.roots), ["p1", "p2"], String(deadlineMs));
    assert.equal(full.truncated, null);
  }
});

test("own index: detected, and the scan below still runs", async () => {
  const ws = workspace();
  indexed(ws, ".");
  indexed(ws, "packages/api");
  const r = await scanRoots(ws);
  assert.equal(r.own, true);
  assert.deepEqual(rel(ws, r.roots), ["packages/api"]);
  assert.equal((await scanRoots(workspace())).own, false);
});

test("order: breadth-first, by name within a directory, the same at any concurrency", async () => {
  const ws = workspace();
  // Created out of order, so directory order on disk is not name order.
  for (const name of ["z/y/x", "b", "a/m", "a/c/deep", "Z", "a/B", "m/n"]) indexed(ws, name);
  const want = ["Z", "b", "a/B", "a/m", "m/n", "a/c/deep", "z/y/x"];
  for (const concurrency of [1, 3, 64]) {
    const r = await scanRoots(ws, { concurrency });
    assert.deepEqual(rel(ws, r.roots), want, `concurrency ${concurrency}`);
  }
  const a = await scanRoots(ws);
  const b = await scanRoots(ws);
  assert.deepEqual(a.roots, b.roots);
  assert.equal(a.dirsRead, b.dirsRead);
});
