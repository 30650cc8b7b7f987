// Why the index lacks a definition, read from the source around it (lib/api/blind-spots.js),
// through the public seam: the fake CLI answers "not found" for any name, the workspace holds the
// definitions. Variants the real-CLI suite (blind-spots-real.test.mjs) does not reach: braces in
// strings, comments and character literals, nested and qualified macros, a definition in a
// comment, a docstring or a string (on both runners: their lexer reads the file), far into a very large TypeScript file or near its top, an explore request in prose.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { fakeCli, makeWorkspace, useFakeCli, withEnv } from "../helpers/index.mjs";

const pkg = createRequire(import.meta.url)("../../index.js");
useFakeCli();

const RUST = [
  'const OPEN: &str = "cfg_rt! {";', // 1: a brace in a string
  "// cfg_rt! {", // 2: and in a comment
  "fn after_string() { let c = '{'; }", // 3: a brace in a character literal
  'const RAW: &str = r#"pin_project! {"#;', // 4: in a raw string
  "pub fn top_level() {}", // 5
  "cfg_rt! {", // 6
  "    mod inner {", // 7
  "        pub fn nested_fn() {}", // 8: inside cfg_rt!, one block down
  "    }", // 9
  "}", // 10
  "tokio::select! {", // 11
  "    fn in_select() {}", // 12
  "}", // 13
  "/// fn doc_example() {}", // 14: a definition in a doc comment is an example
  "fn with_local() { let rust_local = 1; }", // 15: a local is no definition the index would have
].join("\n");

function workspace() {
  const ws = makeWorkspace();
  fs.mkdirSync(path.join(ws, "src"));
  fs.writeFileSync(path.join(ws, "src", "lib.rs"), `${RUST}\n`);
  const ts = Array.from({ length: 2500 }, (_, i) => `export const filler${i + 1} = ${i};`);
  ts[9] = "export function nearTop() {}";
  for (const i of [29, 39, 49, 59]) ts[i] = "export function manyTimes() {}";
  ts[19] = "function outer() {";
  ts[20] = "  const localConst = 1;";
  ts[21] = "  let localLet = (a: number) => a;";
  ts[22] = "}";
  ts[2399] = "export const farDown = async (x: number) => x;";
  fs.writeFileSync(path.join(ws, "src", "effect.ts"), `${ts.join("\n")}\n`);
  // Written before the index, as a user's source is.
  const earlier = Date.now() / 1000 - 3600;
  for (const file of ["lib.rs", "effect.ts"]) fs.utimesSync(path.join(ws, "src", file), earlier, earlier);
  return ws;
}

const notFound = (name) => fakeCli([["stdout", `Symbol "${name}" not found in the codebase\n`]]);
async function leadFor(ws, name, on = pkg) {
  const r = await withEnv({ PI_CODEGRAPH_BIN: notFound(name).file }, () => on.node({ symbol: name }, ws));
  return r.text.split("\n", 1)[0];
}

const PYTHON = [
  "def real_py():", // 1
  '    """An example:', // 2
  "", // 3
  "        def doc_py_example():", // 4: a definition in a docstring is an example
  "            pass", // 5
  '    """', // 6
  "    return 'def in_string_py(): pass'", // 7: and one in a string is text
].join("\n");

for (const impl of implementations) {
  test(`${impl.name}: a definition in a docstring or a string is none; the file's own is found`, async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, "src", "jobs.py"), PYTHON);
    const earlier = Date.now() / 1000 - 3600;
    fs.utimesSync(path.join(ws, "src", "jobs.py"), earlier, earlier);
    for (const name of ["doc_py_example", "in_string_py"]) {
      assert.match(await leadFor(ws, name, impl.module), new RegExp(`^Symbol "${name}" not found`, "u"), name);
    }
    assert.equal(
      await leadFor(ws, "real_py", impl.module),
      `Not in CodeGraph's index: "real_py" is defined at src/jobs.py:1; read it there.`,
    );
  });
}

test("a Rust definition's macro block is found past braces in strings, comments and character literals", async () => {
  const ws = workspace();
  const at = (name, where) => `Not in CodeGraph's index: "${name}" is defined at ${where}; read it there.`;
  assert.equal(await leadFor(ws, "after_string"), at("after_string", "src/lib.rs:3"));
  assert.equal(await leadFor(ws, "top_level"), at("top_level", "src/lib.rs:5"));
  assert.equal(
    await leadFor(ws, "nested_fn"),
    at("nested_fn", "src/lib.rs:8 (inside a cfg_rt! macro block, which CodeGraph does not index)"),
  );
  assert.equal(
    await leadFor(ws, "in_select"),
    at("in_select", "src/lib.rs:12 (inside a select! macro block, which CodeGraph does not index)"),
  );
  assert.match(
    await leadFor(ws, "doc_example"),
    /^Symbol "doc_example" not found/u,
    "a doc comment's example is no definition",
  );
});

test("far into a very large TypeScript file is said as such; near its top it is not", async () => {
  const ws = workspace();
  assert.equal(
    await leadFor(ws, "farDown"),
    `Not in CodeGraph's index: "farDown" is defined at src/effect.ts:2400 (far into a 2,500-line file, where CodeGraph 1.6.1 can miss declarations); read it there.`,
  );
  assert.equal(
    await leadFor(ws, "nearTop"),
    `Not in CodeGraph's index: "nearTop" is defined at src/effect.ts:10; read it there.`,
  );
});

test("explore: only the request's code-like names are looked for, and only those its answer leaves out", async () => {
  const ws = workspace();
  const answer = "**Exploration: x**\n\nSomething about nearTop and the cart.\n";
  const explore = (request) =>
    withEnv({ PI_CODEGRAPH_BIN: fakeCli([["stdout", answer]]).file }, () => pkg.explore(request, ws));
  const prose = await explore("how does the checkout flow work");
  assert.equal(prose.text, answer, "no code-like word: nothing looked for");
  const named = await explore("why does nearTop differ from farDown and top_level()");
  assert.deepEqual(named.text.split("\n").slice(0, 2), [
    `CodeGraph's answer does not mention "farDown"; the source defines it at src/effect.ts:2400 (far into a 2,500-line file, where CodeGraph 1.6.1 can miss declarations); read it there.`,
    `CodeGraph's answer does not mention "top_level"; the source defines it at src/lib.rs:5; read it there.`,
  ]);
});

test("the search for a name the index may lack begins while CodeGraph answers, not after it", async () => {
  const ws = workspace();
  const { nativeRunner } = createRequire(import.meta.url)("../../lib/runners/native.js");
  let began;
  const searching = new Promise((resolve) => {
    began = resolve;
  });
  const runner = {
    ...nativeRunner,
    scanSource: (...args) => {
      began();
      return nativeRunner.scanSource(...args);
    },
    // CodeGraph answers only once the search has begun; a search begun after the answer never would.
    runCommand: async (...args) => {
      const late = new Promise((_, reject) =>
        setTimeout(reject, 10_000, new Error("no search began while CodeGraph ran")),
      );
      await Promise.race([searching, late]);
      return nativeRunner.runCommand(...args);
    },
  };
  const api = pkg.forRunner(runner);
  const answer = await withEnv({ PI_CODEGRAPH_BIN: notFound("nested_fn").file }, () =>
    api.node({ symbol: "nested_fn" }, ws),
  );
  assert.match(
    answer.text,
    /^Not in CodeGraph's index: "nested_fn" is defined at src\/lib\.rs:8 \(inside a cfg_rt! macro block/u,
  );
});
