// A repository's own files are attacker-controlled input: git stores a symbolic link and never
// follows it, so a checkout can hold `.gitignore -> /dev/tty`, `/dev/zero`, `/dev/ptmx`, a FIFO,
// a link out of the workspace, or an ignore file of megabytes. Both runners' source scan and
// changed-files walk (`scanSource`, `changedSource`) must finish within their bounds whatever
// the tree holds: a link is never followed, nothing but a regular file is opened, every read is
// bounded, and a bound that cut the work says so. (The TUI side, where a link to the terminal
// would take Pi's keyboard, is in verbs-tui.test.mjs; Pi's event loop during a call on such a
// tree, in event-loop.test.mjs.)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { root, tempDir } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const { nativeRunner } = require(path.join(root, "lib/runners/native.js"));
const nodeRunner = require(path.join(root, "lib/runners/node.js"));
const { definitionScan } = require(path.join(root, "lib/contract/definitions.js"));
const { sourceChangesRequest } = require(path.join(root, "lib/contract/source-changes.js"));

const runners = [
  ["native addon", nativeRunner],
  ["node runner", nodeRunner],
];
/** A generous deadline: a walk that ends says `stopped` only when a bound cut it; one that hangs never ends. */
const DEADLINE_MS = 20_000;

function tree(files) {
  const dir = tempDir("pi-cg-repo-files-");
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const linkTargets = ["/dev/zero", "/dev/ptmx", "/dev/tty", "/dev/stdin", "/proc/self/fd/0", "/dev/urandom"];

test("an ignore file or a source file that is a link (to a device, the terminal, stdin, outside), a FIFO or a device is never read", {
  skip: process.platform === "win32" && "symbolic links to devices are a POSIX matter",
}, async () => {
  const outside = tree({ ".gitignore": "*\n", "secret.rs": "fn spawn_inner() {}\n" });
  const dir = tree({ "src/a.rs": "fn spawn_inner() {}\n", "lib/b.rs": "fn spawn_inner() {}\n" });
  linkTargets.forEach((target, i) => {
    fs.mkdirSync(path.join(dir, `d${i}`));
    fs.symlinkSync(target, path.join(dir, `d${i}`, ".gitignore"));
    fs.writeFileSync(path.join(dir, `d${i}`, "kept.rs"), "fn spawn_inner() {}\n");
  });
  fs.symlinkSync(path.join(outside, ".gitignore"), path.join(dir, "lib", ".gitignore")); // would ignore all of lib/
  fs.symlinkSync(path.join(outside, "secret.rs"), path.join(dir, "src", "linked.rs"));
  fs.symlinkSync("/dev/zero", path.join(dir, "src", "zero.rs"));
  fs.symlinkSync(outside, path.join(dir, "linked-dir"));
  assert.equal(spawnSync("mkfifo", [path.join(dir, ".gitignore"), path.join(dir, "src", "fifo.rs")]).status, 0);
  fs.mkdirSync(path.join(dir, ".git", "info"), { recursive: true });
  fs.symlinkSync("/dev/tty", path.join(dir, ".git", "info", "exclude"));

  const expectedPlaces = [
    "d0/kept.rs:1",
    "d1/kept.rs:1",
    "d2/kept.rs:1",
    "d3/kept.rs:1",
    "d4/kept.rs:1",
    "d5/kept.rs:1",
    "lib/b.rs:1",
    "src/a.rs:1",
  ];
  for (const [name, runner] of runners) {
    const found = await runner.scanSource(dir, { ...definitionScan(["spawn_inner"]), deadlineMs: DEADLINE_MS });
    assert.equal(found.stopped, undefined, `${name}: the scan ran to the end of the tree`);
    assert.deepEqual(
      found.matches.map((m) => `${m.path}:${m.line}`),
      expectedPlaces,
      `${name}: no link followed, no FIFO or device read`,
    );
    const walked = await runner.changedSource(dir, { ...sourceChangesRequest(0), deadlineMs: DEADLINE_MS });
    assert.equal(walked.stopped, undefined, `${name}: the walk ran to the end of the tree`);
    assert.deepEqual(
      walked.paths,
      expectedPlaces.map((p) => p.replace(/:1$/u, "")),
      `${name}: the walk lists the same files`,
    );
  }
});

test("an ignore file of megabytes is read only in part, said as such, and its first lines still apply", async () => {
  const lines = ["ignored/"];
  for (let i = 0, bytes = 0; bytes < 2.5 * 1024 * 1024; i += 1) {
    lines.push(`gen${i}/**/*.out${i}`, `!keep${i}.rs`);
    bytes += lines.at(-1).length + lines.at(-2).length + 2;
  }
  lines.push("late/"); // past the part read: not applied
  const dir = tree({
    ".gitignore": `${lines.join("\n")}\n`,
    "ignored/x.rs": "fn spawn_inner() {}\n",
    "late/y.rs": "fn spawn_inner() {}\n",
    "src/z.rs": "fn spawn_inner() {}\n",
  });
  for (const [name, runner] of runners) {
    const found = await runner.scanSource(dir, { ...definitionScan(["spawn_inner"]), deadlineMs: DEADLINE_MS });
    assert.equal(found.ignoreFilesCut, 1, `${name}: the ignore file was cut`);
    assert.deepEqual(
      found.matches.map((m) => m.path),
      ["late/y.rs", "src/z.rs"],
      name,
    );
    const walked = await runner.changedSource(dir, { ...sourceChangesRequest(0), deadlineMs: DEADLINE_MS });
    assert.deepEqual([walked.paths, walked.ignoreFilesCut], [["late/y.rs", "src/z.rs"], 1], name);
  }
});

test("a walk whose deadline passes while an ignore file's patterns are read stops there and says so", async () => {
  const lines = [];
  for (let i = 0, bytes = 0; bytes < 60 * 1024; i += 1) {
    lines.push(`dir${i}/**/deep${i}/*.gen${i}`);
    bytes += lines.at(-1).length + 1;
  }
  const dir = tree({ ".gitignore": `${lines.join("\n")}\n`, "src/a.rs": "fn spawn_inner() {}\n" });
  for (const [name, runner] of runners) {
    const walked = await runner.changedSource(dir, { ...sourceChangesRequest(0), deadlineMs: 1 });
    assert.equal(walked.stopped, "deadline", name);
    assert.equal(walked.filesSeen, 0, name);
  }
});

test("the index directory's name is skipped as a name: CODEGRAPH_DIR='*' hides no edit", async () => {
  const dir = tree({ "*/codegraph.db": "x", "*/inside.ts": "", "src/edited.ts": "export {};\n" });
  for (const [name, runner] of runners) {
    const walked = await runner.changedSource(dir, sourceChangesRequest(0, { indexDir: path.join(dir, "*") }));
    assert.deepEqual(walked.paths, ["src/edited.ts"], name);
  }
});

test("a scan aborted by its caller ends at its next file and says so", async () => {
  const files = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.rs`, "fn spawn_inner() {}\n"]));
  const dir = tree(files);
  for (const [name, runner] of runners) {
    const aborted = new AbortController();
    aborted.abort();
    const found = await runner.scanSource(dir, definitionScan(["spawn_inner"]), aborted.signal);
    assert.equal(found.stopped, "cancelled", name);
    assert.equal(found.filesScanned, 0, name);
  }
});
