// What a callers or impact answer leaves out and the source shows (lib/api/call-sites.js), through
// the public seam: the fake CLI prints a CodeGraph-shaped answer, the workspace holds the source.
// Variants the real-CLI suite (call-sites-real.test.mjs) does not reach: the definition a call
// sits in, in Python, TypeScript and Rust (Go's a text match: the runners' lexer does not read
// it); imports, comments, docstrings, strings, recursion and the places the answer lists are not
// named; a nested definition that ended before a line does not hold it; a macro_rules! template
// is named with its macro, on both runners; several definitions of the name; a common name; more
// places than are named; a cut answer.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { fakeCli, makeWorkspace, useFakeCli, withEnv } from "../helpers/index.mjs";

const pkg = createRequire(import.meta.url)("../../index.js");
useFakeCli();

const NOTE =
  "in the source that CodeGraph's answer does not list (a text search for the name, which namesakes share; read them to be sure)";

function workspace(files) {
  const ws = makeWorkspace();
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  }
  // Written before the index, as a user's source is.
  const earlier = Date.now() / 1000 - 3600;
  for (const rel of Object.keys(files)) fs.utimesSync(path.join(ws, rel), earlier, earlier);
  return ws;
}

/** CodeGraph 1.6.1's callers answer for `target` defined at `at`, listing `rows` ([kind, name, path:line]). */
const callers = (at, rows = [], kind = "function") =>
  `\nCallers of "target" (${rows.length}):\n\n${kind} target (python) — ${at}\n${
    rows.length === 0
      ? 'ℹ No callers found for "target"\n'
      : rows.map(([k, name, where]) => `${k.padEnd(12)}${name}\n  ${where}\n`).join("\n")
  }`;

async function leadFor(ws, answer, args = { relation: "callers", symbol: "target" }, on = pkg) {
  const r = await withEnv({ PI_CODEGRAPH_BIN: fakeCli([["stdout", answer]]).file }, () => on.relations(args, ws));
  return r.text.split("\n", 1)[0];
}

const PYTHON = [
  "def target(x):", // 1
  "    if x:", // 2
  "        return target(x - 1)  # its own body: recursion", // 3
  "    return 0", // 4
  "", // 5
  "class Storage:", // 6
  "    def __init__(self):", // 7
  "        self.v = target(1)", // 8
  "", // 9
  "# target(2) in a comment", // 10
  "VALUE = target(3)", // 11: at the top of the module
].join("\n");

const TS = [
  'import { target } from "./core";', // 1
  "export const make = Effect.fnUntraced(function* (x: number) {", // 2
  "  const v = yield* Effect.sync(() =>", // 3
  "    target(x),", // 4: deep in an argument list
  "  );", // 5
  "});", // 6
  "export class Router {", // 7
  "  serve(port: number): void {", // 8
  "    pipe(", // 9: a call statement, not a definition
  "      target(port),", // 10
  "    );", // 11
  "  }", // 12
  "}", // 13
].join("\n");

const GO = ["package main", "", "func (s *Server) Run() {", "\ttarget(1)", "}"].join("\n");

test("each call is named with the definition it sits in, whatever the language; imports, comments and recursion are not calls", async () => {
  const ws = workspace({ "pkg/core.py": PYTHON, "web/router.ts": TS, "cmd/main.go": GO });
  assert.equal(
    await leadFor(ws, callers("pkg/core.py:1")),
    `Calls of "target" ${NOTE}: pkg/core.py:8 in __init__, pkg/core.py:11, cmd/main.go:4 (text match), web/router.ts:4 in make, web/router.ts:10 in serve.`,
  );
});

const HANDLERS = [
  "def handler(request):", // 1
  "    def inner():", // 2
  "        return 1", // 3
  "    return compute(", // 4
  "            target(inner()))", // 5: deeper than the nested definition, which ended at line 3
  "", // 6
  "def api():", // 7
  '    """Call it like this:', // 8
  "", // 9
  "        target(1)", // 10: example code in a docstring
  '    """', // 11
  "    return 'target(2)'  # target(3)", // 12: a string and a comment
].join("\n");

const RUST = [
  "pub fn target(x: u8) -> u8 { x }", // 1: a namesake's definition
  "macro_rules! make_getter {", // 2
  "    ($name:ident) => {", // 3
  "        pub fn $name(&self) -> u8 {", // 4
  "            target(1) // target(9)", // 5: the template's code
  "        }", // 6
  "    };", // 7
  "}", // 8
  "fn outer() {", // 9
  "    fn helper() {}", // 10
  '    let v = compute(r#"target(0)"#,', // 11: a raw string
  "        target(2),", // 12
  "    );", // 13
  "}", // 14
].join("\n");

for (const impl of implementations) {
  test(`${impl.name}: a place is never false: no call in a comment, docstring or string, no definition that ended before, a macro template named with its macro`, async () => {
    const ws = workspace({
      "lib/core.py": "def target(x):\n    return x\n",
      "pkg/handlers.py": HANDLERS,
      "src/m.rs": RUST,
      "cmd/main.go": GO,
    });
    assert.equal(
      await leadFor(ws, callers("lib/core.py:1"), undefined, impl.module),
      `Calls of "target" ${NOTE}: cmd/main.go:4 (text match), pkg/handlers.py:5 in handler, src/m.rs:5 in the template of macro_rules! make_getter (the code it generates, which CodeGraph does not index), src/m.rs:12 in outer.`,
    );
  });
}

test("the places the answer lists are not repeated; with all of them listed, nothing is said", async () => {
  const ws = workspace({ "pkg/core.py": PYTHON, "cmd/main.go": GO });
  const listed = [
    ["method", "__init__", "pkg/core.py:7"],
    ["file", "core.py", "pkg/core.py:1"],
  ];
  assert.equal(
    await leadFor(ws, callers("pkg/core.py:1", listed)),
    `Calls of "target" ${NOTE}: cmd/main.go:4 (text match).`,
  );
  // An answer about another name than the one asked (the search begun with the call looked for
  // that one): the answer's name is looked for.
  assert.equal(
    await leadFor(ws, callers("pkg/core.py:1", listed), { relation: "callers", symbol: "targt" }),
    `Calls of "target" ${NOTE}: cmd/main.go:4 (text match).`,
  );
  const all = [...listed, ["method", "Run", "cmd/main.go:3"]];
  assert.equal(await leadFor(ws, callers("pkg/core.py:1", all)), "", "CodeGraph's answer as it is");
});

test("several definitions of the name: each one's own line is no call, and none is told apart from the others; past four, nothing is said", async () => {
  const ws = workspace({ "pkg/core.py": PYTHON, "pkg/other.py": "def target():\n    return 1\n", "cmd/main.go": GO });
  const defs = (n) =>
    Array.from({ length: n }, (_, i) =>
      i === 0
        ? "function target (python) — pkg/core.py:1 (0):\n\n  (no callers)\n"
        : `function target (python) — pkg/other${i > 1 ? i : ""}.py:1 (0):\n\n  (no callers)\n`,
    ).join("\n");
  const answer = (n) => `\nCallers of "target" — ${n} distinct definitions (narrow with --file):\n\n${defs(n)}`;
  assert.equal(
    await leadFor(ws, answer(2)),
    `Calls of "target" ${NOTE}: pkg/core.py:8 in __init__, pkg/core.py:11, cmd/main.go:4 (text match).`,
  );
  assert.equal(await leadFor(ws, answer(5)), "", "too many namesakes to tell whose a call is");
});

test("a function's name used in code, not called: its own line, each with its definition and line, the tests' last; a string or comment mention is none", async () => {
  const reader = [
    "def read(conf):", // 1
    "    n = conf.target", // 2: a read of a field of the name
    '    msg = "conf.target"', // 3: a string
    "    return n  # conf.target", // 4: a comment
  ].join("\n");
  const tests = "def test_read(conf):\n    assert conf.target == 1\n";
  const ws = workspace({ "pkg/core.py": PYTHON, "pkg/reader.py": reader, "app/tests/test_reader.py": tests });
  const r = await withEnv({ PI_CODEGRAPH_BIN: fakeCli([["stdout", callers("pkg/core.py:1")]]).file }, () =>
    pkg.relations({ relation: "callers", symbol: "target" }, ws),
  );
  const [calls, reads] = r.text.split("\n", 2);
  assert.equal(calls, `Calls of "target" ${NOTE}: pkg/core.py:8 in __init__, pkg/core.py:11.`);
  assert.equal(
    reads,
    'Uses of "target" in the source that CodeGraph\'s answer does not list, not calls (the name as a field or variable, or the function passed on; namesakes share it, read them to be sure): pkg/reader.py:2 in read (`n = conf.target`), app/tests/test_reader.py:2 in test_read (`assert conf.target == 1`).',
  );
  const impactAnswer = callers("pkg/core.py:1").replace("Callers of", "Impact of");
  const impact = await withEnv({ PI_CODEGRAPH_BIN: fakeCli([["stdout", impactAnswer]]).file }, () =>
    pkg.relations({ relation: "impact", symbol: "target" }, ws),
  );
  assert.equal(impact.text.split("\n", 1)[0], calls);
  assert.doesNotMatch(impact.text, /not calls/u, "impact names the calls only");
});

test("a constant's uses; more places than are named are counted", async () => {
  const uses = Array.from({ length: 10 }, (_, i) => `def reader${i}():\n    return LIMIT + ${i}`).join("\n");
  const ws = workspace({ "conf.py": "LIMIT = 5\n", "readers.py": uses });
  const answer = callers("conf.py:1", [], "constant").replace(/target/gu, "LIMIT");
  const lead = await leadFor(ws, answer, { relation: "callers", symbol: "LIMIT" });
  const named = Array.from(
    { length: 8 },
    (_, i) => `readers.py:${2 * i + 2} in reader${i} (\`return LIMIT + ${i}\`)`,
  ).join(", ");
  assert.equal(lead, `Uses of "LIMIT" ${NOTE}: ${named}, and 2 more.`);
});

test("a name too common to list: only the calls in its own file, and a word that there are more", async () => {
  const many = Array.from({ length: 300 }, (_, i) => `def user${i}():\n    target(${i})`).join("\n");
  const ws = workspace({ "pkg/core.py": PYTHON, "pkg/users.py": many });
  assert.equal(
    await leadFor(ws, callers("pkg/core.py:1")),
    `Calls of "target" ${NOTE}: pkg/core.py:8 in __init__, pkg/core.py:11, and more in other files (a name too common to list).`,
  );
});

test("a cut answer: nothing is claimed of what the model does not see", async () => {
  const ws = workspace({ "pkg/core.py": PYTHON });
  const rows = Array.from({ length: 400 }, (_, i) => ["function", `caller${i}`, `pkg/mod${i}.py:${i + 1}`]);
  const r = await withEnv({ PI_CODEGRAPH_BIN: fakeCli([["stdout", callers("pkg/core.py:1", rows)]]).file }, () =>
    pkg.relations({ relation: "callers", symbol: "target" }, ws),
  );
  assert.match(r.text, /\[Output truncated by/u);
  assert.doesNotMatch(r.text, /in the source that CodeGraph's answer does not list/u);
});

test("a search a bound cut says so and how far it read, found something or not; so does a not-found one", async () => {
  const ws = workspace({ "pkg/core.py": PYTHON });
  const { nativeRunner } = createRequire(import.meta.url)("../../lib/runners/native.js");
  // The runner's scan as it reports a tree past its file bound (__test__/answers/source-scan.test.mjs holds the bound itself).
  const cut = pkg.forRunner({
    ...nativeRunner,
    scanSource: async (...args) => ({
      ...(await nativeRunner.scanSource(...args)),
      stopped: "files",
      filesScanned: 20000,
    }),
  });
  const lead = async (answer, call) =>
    (await withEnv({ PI_CODEGRAPH_BIN: fakeCli([["stdout", answer]]).file }, call)).text.split("\n", 1)[0];
  const callersOf = () => cut.relations({ relation: "callers", symbol: "target" }, ws);
  assert.equal(
    await lead(callers("pkg/core.py:1"), callersOf),
    `Calls of "target" ${NOTE}: pkg/core.py:8 in __init__, pkg/core.py:11, and perhaps more (the search stopped after reading 20,000 files, its bound).`,
  );
  const listed = [
    ["method", "__init__", "pkg/core.py:7"],
    ["file", "core.py", "pkg/core.py:1"],
  ];
  assert.equal(
    await lead(callers("pkg/core.py:1", listed), callersOf),
    `The source search for calls of "target" that CodeGraph's answer does not list stopped after reading 20,000 files, its bound, and found none; the files it did not read may hold some.`,
  );
  assert.equal(
    await lead('Symbol "elsewhere" not found in the codebase\n', () => cut.node({ symbol: "elsewhere" }, ws)),
    `The source search for "elsewhere" stopped after reading 20,000 files, its bound, and found no definition; the files it did not read may hold one.`,
  );
});
