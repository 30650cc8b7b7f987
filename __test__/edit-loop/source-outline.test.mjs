// The runners' outline of source files (`outlineSource`: crates/core/src/source_outline.rs, native and
// WebAssembly) through the runner seam: the same outline from both
// for the shared corpus (__test__/corpora/outline.json: comments, strings, docstrings, templates,
// macro_rules! templates, blocks that end by braces or indentation), each file opened with the
// workspace's rules (never through a link, regular files only), and each bound said.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { readCorpus } from "../helpers/corpus.mjs";
import { root } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const { nativeRunner } = require(path.join(root, "lib/runners/native.js"));
const nodeRunner = require(path.join(root, "lib/runners/node.js"));

const runners = [
  ["native addon", (cwd, request, signal) => nativeRunner.outlineSource(cwd, request, signal)],
  ["node runner", (cwd, request, signal) => nodeRunner.outlineSource(cwd, request, signal)],
];
const { cases } = readCorpus("outline.json");

/** A definition as the corpus writes it. */
const shown = (d) =>
  `${d.kind} ${d.name} ${d.line}-${d.endLine}${d.parent === null ? "" : ` in ${d.parent}`}${d.macro ? ` macro:${d.macro}` : ""}`;

function tree(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-cg-outline-"));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

for (const [runner, outline] of runners) {
  test(`${runner}: the corpus's outlines`, async () => {
    const dir = tree(Object.fromEntries(cases.map((c) => [c.path, c.text.join("\n")])));
    const found = await outline(dir, { paths: cases.map((c) => c.path) });
    assert.equal(found.cut, undefined);
    for (const [k, c] of cases.entries()) {
      const file = found.files[k];
      assert.equal(file.path, c.path, c.name);
      assert.equal(file.lines, c.lines, c.name);
      assert.deepEqual(file.definitions.map(shown), c.definitions, c.name);
      assert.equal(file.unbalanced ?? false, c.unbalanced ?? false, c.name);
      assert.equal(file.problem, undefined, c.name);
    }
    assert.deepEqual(
      found.files.map((f) => f.language),
      cases.map(
        (c) => ({ rs: "rust", py: "python", ts: "typescript", js: "javascript" })[c.path.split(".").pop()] ?? null,
      ),
    );
  });

  test(`${runner}: a file is read only as the workspace's own regular file, and says why not`, async () => {
    const dir = tree({ "src/a.rs": "fn a() {}\n", "outside.rs": "fn o() {}\n", "bin.rs": "fn b() {}\0" });
    fs.symlinkSync(path.join(dir, "outside.rs"), path.join(dir, "src/link.rs"));
    fs.symlinkSync(path.join(dir, "src"), path.join(dir, "linked"));
    fs.mkdirSync(path.join(dir, "dir.rs"));
    const paths = ["src/a.rs", "src/link.rs", "linked/a.rs", "dir.rs", "none.rs", "../x.rs", "/etc/passwd", "bin.rs"];
    const found = await outline(dir, { paths });
    assert.deepEqual(
      found.files.map((f) => [f.path, f.problem ?? "read", f.lines, f.definitions.length]),
      [
        ["src/a.rs", "read", 1, 1],
        ["src/link.rs", "link", 0, 0],
        ["linked/a.rs", "link", 0, 0],
        ["dir.rs", "notRegular", 0, 0],
        ["none.rs", "missing", 0, 0],
        ["../x.rs", "outside", 0, 0],
        ["/etc/passwd", "outside", 0, 0],
        ["bin.rs", "binary", 1, 0],
      ],
    );
  });

  test(`${runner}: past 500 paths, or aborted, the outline is cut and says so`, async () => {
    const dir = tree({ "a.py": "def a():\n    pass\n" });
    const many = await outline(dir, { paths: Array(501).fill("a.py") });
    assert.equal(many.files.length, 500);
    assert.deepEqual(many.cut, { reason: "paths" });
    const aborted = await outline(dir, { paths: ["a.py"] }, AbortSignal.abort());
    assert.deepEqual(aborted, { files: [], cut: { reason: "cancelled" } });
  });
}

test("a scan's match carries the file's true line count, the outline's own", async () => {
  const { definitionScan } = require(path.join(root, "lib/contract/definitions.js"));
  const files = {
    "a.py": "def spot():\n    pass",
    "b.py": "def spot():\r\n    pass\r\n\r\n",
    "c.rs": "fn spot() {}\n\n",
  };
  const dir = tree(files);
  for (const [runner, outline] of runners) {
    const scan = runner === "native addon" ? nativeRunner.scanSource : nodeRunner.scanSource;
    const found = await scan(dir, definitionScan(["spot"]));
    const outlined = await outline(dir, { paths: Object.keys(files) });
    assert.deepEqual(
      found.matches.map((m) => [m.path, m.fileLines]),
      outlined.files.map((f) => [f.path, f.lines]),
      runner,
    );
    assert.deepEqual(
      outlined.files.map((f) => f.lines),
      [2, 3, 2],
      runner,
    );
  }
});

test("both runners outline the same seeded random sources alike (quotes, brackets, comments, templates cut anywhere)", async () => {
  const { seeded } = await import("../helpers/corpus.mjs");
  const pieces = [
    ...["fn ", "def ", "class ", "impl ", "macro_rules! m ", "const f = ", "function g", "interface I ", "x", "y", "é"],
    ...["(", ")", "{", "}", "[", "]", "<", ">", "=>", "->", ":", ";", ",", ".", "!", "$", "#", "@", "=", "*"],
    ...['"', "'", "`", "${", '"""', "'''", 'r#"', '"#', "b'", 'f"{', "//", "/*", "*/", "\\", "/", "'a", "'\\n'"],
    ...["\n", "\n    ", "\n  ", " ", "\t", "\r\n"],
  ];
  const random = seeded(45);
  const files = {};
  for (let i = 0; i < 240; i += 1) {
    const length = 1 + random.below(120);
    const text = Array.from({ length }, () => pieces[random.below(pieces.length)]).join("");
    files[`f${i}.${["rs", "py", "ts", "js"][i % 4]}`] = text;
  }
  const dir = tree(files);
  const request = { paths: Object.keys(files), deadlineMs: 60000 };
  const [native, node] = await Promise.all(runners.map(([, outline]) => outline(dir, request)));
  assert.equal(native.files.length, 240);
  for (const [k, file] of native.files.entries()) assert.deepEqual(node.files[k], file, file.path);
});
