// codegraph_relations' `path` against the real, pinned CodeGraph CLI on a small fixture, on both
// runners (PI_CODEGRAPH_IMPL=native|node picks one): a path of several hops with each call's
// line (the line naming the callee when a call spans two), a qualified `from` (its file's
// definition), no path (where the walk from `from` stops, and the source searched from there), and a
// call the graph lacks (a method called on a value whose type CodeGraph does not infer, two
// classes defining it) bridged by the source scan, the hop marked "text match"; a `from` the index
// lacks (inside a Rust macro block) walked from its source body; two hops the graph lacks in a
// row (the graph of `to` grown back through the source, a docstring naming the callee no hop).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { cliBin, indexedWorkspace } from "../helpers/real-cli.mjs";
import { runnerOf } from "../helpers/recording.mjs";

const require = createRequire(import.meta.url);
const { forRunner } = require("../../index.js");
const { LIMIT_NAMES } = require("../../lib/contract/limits.js");

/** The glue over `id`'s runner with `outlineSource` (INTERFACES.md) answered by `outline(request)`. */
function withOutline(id, outline) {
  const runner = runnerOf(id);
  const stub = {
    runCommand: (...a) => runner.runCommand(...a),
    scanSource: (...a) => runner.scanSource(...a),
    outlineSource: async (_dir, request) => outline(request),
    diagnose: (...a) => runner.diagnose(...a),
    releaseFullOutputs: (paths) => runner.releaseFullOutputs(paths),
    runnerInfo: () => runner.runnerInfo(),
  };
  for (const name of LIMIT_NAMES) stub[name] = runner[name];
  return forRunner(stub);
}

const originalPath = process.env.PATH;

const FILES = {
  "src/app.ts": [
    'import { handle } from "./handler";',
    "",
    "export function main(input: string): string {",
    "  const cleaned = input.trim();",
    "  return handle(cleaned);",
    "}",
    "",
    "export function writeDisk(data: string): string {",
    "  return data;",
    "}",
    "",
    "export function flush(): string {",
    '  return writeDisk("x");',
    "}",
    "",
  ].join("\n"),
  "src/handler.ts": [
    'import { store } from "./store";',
    "",
    "export function handle(value: string): string {",
    "  const v = value.toUpperCase();",
    "  return store(v);",
    "}",
    "",
  ].join("\n"),
  "src/store.ts": [
    "export function store(value: string): string {",
    "  return persist(value);",
    "}",
    "",
    "function persist(value: string): string {",
    "  return value;",
    "}",
    "",
  ].join("\n"),
  // Two dumps (a qualified name keeps sign.ts's); a call spread over two lines, its name on the second.
  "src/sign.ts": [
    "export function digest(value: string): string {",
    "  return value;",
    "}",
    "",
    "export class Signer {",
    "  static sign(value: string): string {",
    "    return digest(value);",
    "  }",
    "}",
    "",
    "export function dumps(value: string): string {",
    "  return Signer",
    "    .sign(value);",
    "}",
    "",
  ].join("\n"),
  "src/cookie.ts": ["export function dumps(value: string): string {", "  return value.trim();", "}", ""].join("\n"),
  "app/jobs.py": [
    "def write_row(item):",
    "    return item",
    "",
    "",
    "class Disk:",
    "    def put(self, item):",
    "        return write_row(item)",
    "",
    "",
    "class Memory:",
    "    def put(self, item):",
    "        return item",
    "",
    "",
    "def save(sink, item):",
    "    return sink.put(item)",
    "",
    "",
    "def run_job(item):",
    "    return save(Disk(), item)",
    "",
  ].join("\n"),
  // Two hops the graph lacks in a row: a method two classes define called on a manager, then a
  // compiler of unknown type.
  "shop/orders/__init__.py": ["def place(order):", "    return order.save()", ""].join("\n"),
  "shop/orders/backends.py": ["class Orders:", "    def place(self, order):", "        return order", ""].join("\n"),
  "shop/orders/models.py": [
    "def write(rows):",
    "    return rows",
    "",
    "",
    "class Query:",
    "    def insert_rows(self, rows):",
    "        return self.compiler().write(rows)",
    "",
    "",
    "class Order:",
    "    def save(self, manager):",
    "        return self.do_insert(manager)",
    "",
    "    def do_insert(self, manager):",
    '        """Calls insert_rows (the manager has it), never write directly."""',
    "        return manager.insert_rows([self])",
    "",
    "",
    "class Cache:",
    "    def insert_rows(self, rows):",
    "        return rows",
    "",
  ].join("\n"),
  // launch and prepare inside a macro block (CodeGraph does not index them); finish's caller relay outside.
  "src/lib.rs": [
    "macro_rules! cfg_x { ($($item:item)*) => { $($item)* } }",
    "",
    "pub fn finish(v: u32) -> u32 {",
    "    v + 1",
    "}",
    "",
    "pub fn relay(v: u32) -> u32 {",
    "    finish(v)",
    "}",
    "",
    "cfg_x! {",
    "    pub fn launch(v: u32) -> u32 {",
    "        prepare(v)",
    "    }",
    "",
    "    fn prepare(v: u32) -> u32 {",
    "        relay(v)",
    "    }",
    "}",
    "",
  ].join("\n"),
};

let ws;
before(() => {
  process.env.PATH = [cliBin, path.dirname(process.execPath), originalPath].join(path.delimiter);
  ws = indexedWorkspace("pi-codegraph-path-", FILES);
});
after(() => {
  process.env.PATH = originalPath;
});

for (const impl of implementations) {
  describe(`${impl.name}: codegraph_relations path, real CLI`, () => {
    const pathOf = (from, to) => impl.module.relations({ relation: "path", from, to }, ws);

    test("a path of three hops: each definition's file:line and each call's", async () => {
      const { text, details } = await pathOf("main", "persist");
      assert.equal(
        text,
        "1 call path from main to persist, shortest first, from CodeGraph's graph (impact of persist, depth 6, and the callees of main):\n" +
          "1. main (src/app.ts:3) → calls handle at src/app.ts:5 → handle (src/handler.ts:3) → calls store at src/handler.ts:5 → store (src/store.ts:1) → calls persist at src/store.ts:2 → persist (src/store.ts:5)",
      );
      assert.deepEqual(details.processes.map((p) => p.subcommand).sort(), ["callees", "impact"]);
    });

    test("a qualified from: the definition its file names; a call over two lines said at the line naming the callee", async () => {
      const { text } = await pathOf("sign.dumps", "digest");
      assert.equal(
        text,
        "1 call path from sign.dumps to digest, shortest first, from CodeGraph's graph (impact of digest, depth 6, and the callees of sign.dumps):\n" +
          "1. dumps (src/sign.ts:11) → calls sign at src/sign.ts:13 → sign (src/sign.ts:6) → calls digest at src/sign.ts:7 → digest (src/sign.ts:1)",
      );
      const other = await pathOf("cookie.dumps", "digest");
      assert.match(other.text, /^No call path from cookie\.dumps to digest/);
    });

    test("no path: where the walk from main stops, the way there, and the source searched from there", async () => {
      const { text } = await pathOf("main", "writeDisk");
      assert.equal(
        text,
        [
          "No call path from main to writeDisk in CodeGraph's graph: 1 definition reaches writeDisk within 6 hops (flush), and main reaches 3 definitions within 3 hops, none of them among those.",
          "Where it stops (what main reaches, those in writeDisk's files or folders first): persist (src/store.ts:5), store (src/store.ts:1), handle (src/handler.ts:3).",
          "The way there: main (src/app.ts:3) → calls handle at src/app.ts:5 → handle (src/handler.ts:3) → calls store at src/handler.ts:5 → store (src/store.ts:1) → calls persist at src/store.ts:2 → persist (src/store.ts:5)",
          "The source of what main reaches calls or names none of the definitions that reach writeDisk (a text search for their names).",
          "To look further: codegraph_node on persist shows its source and callees.",
        ].join("\n"),
      );
    });

    test("a call the graph lacks (sink.put on a value of unknown type) bridged by the source scan, marked text match", async () => {
      const { text, details } = await pathOf("run_job", "write_row");
      assert.equal(
        text,
        `1 call path from run_job to write_row, shortest first, from CodeGraph's graph (impact of write_row, depth 6) and, where it has no edge, the source: a hop marked "text match" is a call by name that the source shows and the graph lacks; read it to be sure:\n` +
          "1. run_job (app/jobs.py:19) → calls save at app/jobs.py:20 → save (app/jobs.py:15) → calls put at app/jobs.py:16 (text match: not in CodeGraph's graph; namesakes share the name) → put (app/jobs.py:6) → calls write_row at app/jobs.py:7 → write_row (app/jobs.py:1)",
      );
      // impact and callees of run_job, then callees of what it reached (save).
      assert.ok(details.processes.length >= 3, JSON.stringify(details.processes));
    });

    test("a from the index lacks (inside a macro block): its body read from the source, each hop a text match", async () => {
      const { text } = await pathOf("launch", "finish");
      assert.equal(
        text,
        `1 call path from launch to finish, shortest first, from CodeGraph's graph (impact of finish, depth 6) and, where it has no edge, the source: a hop marked "text match" is a call by name that the source shows and the graph lacks; read it to be sure:\n` +
          "1. launch (src/lib.rs:12; not in CodeGraph's index: inside a cfg_x! macro block, which CodeGraph does not index) → calls prepare at src/lib.rs:13 (text match: not in CodeGraph's graph; namesakes share the name) → prepare (src/lib.rs:16) → calls relay at src/lib.rs:17 (text match: not in CodeGraph's graph; namesakes share the name) → relay (src/lib.rs:7) → calls finish at src/lib.rs:8 → finish (src/lib.rs:3)",
      );
    });

    test("two hops the graph lacks in a row: its graph of to grown back through the source; a qualified from starts at the definition it names exactly", async () => {
      const { text } = await pathOf("shop.orders.place", "write");
      assert.equal(
        text,
        `1 call path from shop.orders.place to write, shortest first, from CodeGraph's graph (impact of write, depth 6) and, where it has no edge, the source: a hop marked "text match" is a call by name that the source shows and the graph lacks; read it to be sure:\n` +
          "1. place (shop/orders/__init__.py:1) → calls save at shop/orders/__init__.py:2 → save (shop/orders/models.py:11) → calls do_insert at shop/orders/models.py:12 → do_insert (shop/orders/models.py:14) → calls insert_rows at shop/orders/models.py:16 (text match: not in CodeGraph's graph; namesakes share the name) → insert_rows (shop/orders/models.py:6) → calls write at shop/orders/models.py:7 (text match: not in CodeGraph's graph; namesakes share the name) → write (shop/orders/models.py:1)",
      );
    });

    test("with the runner's outline, the bridged call's container is the outline's: a definition that ended before the line bridges nothing", async () => {
      const outline = (endLine) => (request) => ({
        files: request.paths.map((p) => ({
          path: p,
          lines: 21,
          language: "python",
          definitions: [
            { name: "save", kind: "function", line: 15, endLine, parent: null },
            { name: "run_job", kind: "function", line: 19, endLine: 20, parent: null },
          ],
        })),
      });
      const asked = { relation: "path", from: "run_job", to: "write_row" };
      const whole = await withOutline(impl.id, outline(16)).relations(asked, ws);
      assert.match(whole.text, /→ save \(app\/jobs\.py:15\) → calls put at app\/jobs\.py:16 \(text match/);
      const ended = await withOutline(impl.id, outline(15)).relations(asked, ws);
      assert.match(ended.text, /^No call path from run_job to write_row/);
    });
  });
}
