// An answer about another symbol or file than asked says so first, and where the source defines
// the asked one, against the real, pinned CodeGraph CLI (1.6.1 answers a `file` that holds none of
// a name's definitions with all of them, lets `Runtime.block_on` take `LocalRuntime::block_on`,
// and ranks look-alike names in a search), on a fixture whose asked definitions sit in a Rust
// macro block CodeGraph does not index. Through the public seam (node, relations, search on the
// package), on both runners. An answer about the asked symbol gets no note.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { cliBin, indexedWorkspace } from "../helpers/real-cli.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const nodeRunner = require("../../lib/runners/node.js");
// The pinned CLI is the one on PATH, as a user's global install would be.
process.env.PATH = `${cliBin}${path.delimiter}${process.env.PATH}`;

const FILES = {
  "src/macros.rs": [
    "macro_rules! cfg_rt {", // 1
    "    ($($item:item)*) => { $($item)* }", // 2
    "}", // 3
    "", // 4
    "pub struct Runtime;", // 5
    "", // 6
    "cfg_rt! {", // 7
    "    impl Runtime {", // 8
    "        pub fn block_on(&self) -> u32 {", // 9
    "            2", // 10
    "        }", // 11
    "    }", // 12
    "    pub fn block_onn() {}", // 13
    "}", // 14
  ].join("\n"),
  "src/local.rs": [
    "pub struct LocalRuntime;",
    "",
    "impl LocalRuntime {",
    "    pub fn block_on(&self) -> u32 {", // 4
    "        1",
    "    }",
    "}",
    "",
    "pub fn run(r: &LocalRuntime) -> u32 {",
    "    r.block_on()",
    "}",
  ].join("\n"),
  "src/registration.rs":
    "pub struct Registration;\n\nimpl Registration {\n    pub fn poll_ready(&self) -> bool {\n        true\n    }\n}\n",
  "src/other.rs":
    "pub struct Other;\n\nimpl Other {\n    pub fn poll_ready(&self) -> bool {\n        false\n    }\n}\n",
  "src/inventory.ts":
    "export class Inventory {\n  items: string[] = [];\n  add(item: string): void {\n    this.items.push(item);\n  }\n}\n",
  "py/module.py": "def func(x):\n    return x + 1\n",
};

const lead = (r, n = 1) => r.text.split("\n").slice(0, n).join("\n");
const MACRO = "inside a cfg_rt! macro block, which CodeGraph does not index";

let ws;
before(() => {
  const lines = Object.entries(FILES).map(([rel, text]) => [rel, `${text}\n`]);
  ws = indexedWorkspace("pi-codegraph-subject-", Object.fromEntries(lines));
});

for (const [runner, api] of [
  ["the loaded runner", pkg],
  ["the node runner", pkg.forRunner(nodeRunner)],
]) {
  describe(`another symbol or file than asked, on the real CLI (${runner})`, () => {
    test("node with a file that holds none of the definitions", async () => {
      const r = await api.node({ symbol: "block_on", file: "src/macros.rs" }, ws);
      assert.equal(
        lead(r, 2),
        [
          `Note: CodeGraph's index has no "block_on" in src/macros.rs; this answer is its definition in src/local.rs:4.`,
          `The source defines "block_on" at src/macros.rs:9 (${MACRO}); read it there.`,
        ].join("\n"),
      );
      assert.match(r.text, /\n\n\*\*block_on\*\* \(method\)\n/u, "CodeGraph's answer follows");
      const two = await api.node({ symbol: "poll_ready", file: "src/macros.rs" }, ws);
      assert.equal(
        lead(two),
        `Note: CodeGraph's index has no "poll_ready" in src/macros.rs; this answer is about its 2 definitions elsewhere: src/other.rs:4, src/registration.rs:4.`,
      );
    });

    test("a qualified name answered with a namesake: callers and node", async () => {
      const source = `The source defines "Runtime" at src/macros.rs:5, and "block_on" at src/macros.rs:9 (${MACRO}); read them there.`;
      const callers = await api.relations({ relation: "callers", symbol: "Runtime.block_on" }, ws);
      assert.equal(
        lead(callers, 2),
        `Note: this answer is not about "Runtime.block_on": CodeGraph answered with LocalRuntime::block_on (src/local.rs:4), which is not in "Runtime".\n${source}`,
      );
      const node = await api.node({ symbol: "Runtime::block_on" }, ws);
      assert.equal(
        lead(node, 2),
        `Note: this answer is not about "Runtime::block_on": CodeGraph answered with block_on (src/local.rs:4), which is not in "Runtime".\n${source}`,
      );
    });

    test("a search none of whose hits has the name", async () => {
      const r = await api.search({ name: "block_onn" }, ws);
      assert.equal(
        lead(r, 2),
        [
          `Note: CodeGraph's one search result below is not named "block_onn" and does not contain it; it is another name.`,
          `The source defines "block_onn" at src/macros.rs:13 (${MACRO}); read it there.`,
        ].join("\n"),
      );
    });

    test("an answer about the asked symbol gets no note", async () => {
      const answers = [
        await api.node({ symbol: "poll_ready", file: "src/registration.rs" }, ws),
        await api.node({ symbol: "Registration::poll_ready" }, ws),
        await api.node({ symbol: "Inventory.add" }, ws),
        await api.node({ symbol: "module.func" }, ws),
        await api.node({ symbol: "LocalRuntime::block_on" }, ws),
        await api.relations({ relation: "callers", symbol: "Registration::poll_ready" }, ws),
        await api.relations({ relation: "impact", symbol: "Inventory.add" }, ws),
        await api.relations({ relation: "callees", symbol: "module.func" }, ws),
        await api.search({ name: "poll_ready" }, ws),
      ];
      for (const r of answers) assert.doesNotMatch(r.text, /^Note:|The source defines/mu, lead(r, 3));
    });
  });
}
