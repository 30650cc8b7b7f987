// Where CodeGraph's index is blind, the answer says where the source has it, against the real,
// pinned CodeGraph CLI (which does not index a Rust macro block's items nor a file over 1 MiB):
// a not-found answer names the definition's file:line and why the index lacks it; a name defined
// in a file written after the index says so; nothing is said when the source has no definition
// CodeGraph would index. Through the public seam (node, relations, explore on the package), on
// both runners: each has its own source scan (__test__/answers/source-scan.test.mjs holds them alike).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { root, tempDir } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const nodeRunner = require("../../lib/runners/node.js");
const cliBin = path.join(root, "node_modules", ".bin");
const codegraph = path.join(cliBin, "codegraph");
// The pinned CLI is the one on PATH, as a user's global install would be.
process.env.PATH = `${cliBin}${path.delimiter}${process.env.PATH}`;

const RUST = `macro_rules! cfg_rt {
    ($($item:item)*) => { $($item)* }
}

cfg_rt! {
    pub fn spawn_inner(x: u32) -> u32 {
        x + 1
    }
}

pub fn spawn(x: u32) -> u32 {
    spawn_inner(x)
}
`;

function workspace() {
  const ws = tempDir("pi-codegraph-blind-");
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  };
  write("src/lib.rs", RUST);
  write("src/cart.ts", "export function calculateTotal(items: number[]): number {\n  return items.length;\n}\n");
  let huge = "export function hugeHelper(): number {\n  return 1;\n}\n";
  while (huge.length <= 1024 * 1024) huge += "// a line that makes this file larger than CodeGraph indexes\n";
  write("src/huge.ts", huge);
  // Definitions CodeGraph would not index either, and must not be named: a dependency, a build.
  write("node_modules/dep/index.ts", "export function vendoredOnly() {}\n");
  write("target/debug/build.rs", "fn builtOnly() {}\n");
  execFileSync(codegraph, ["init", "-y", "."], {
    cwd: ws,
    env: { ...process.env, DO_NOT_TRACK: "1" },
    stdio: "ignore",
  });
  return ws;
}

const lead = (r) => r.text.split("\n", 1)[0];

let indexed; // indexed once; a test that changes it works on a copy
before(() => {
  indexed = workspace();
});

for (const [runner, api] of [
  ["the loaded runner", pkg],
  ["the node runner", pkg.forRunner(nodeRunner)],
]) {
  describe(`not found in the index, found in the source (${runner})`, () => {
    let ws;
    before(() => {
      ws = indexed;
    });

    test("a Rust macro block's function and a file over 1 MiB: file:line and why", async () => {
      const node = await api.node({ symbol: "spawn_inner" }, ws);
      assert.equal(
        lead(node),
        `Not in CodeGraph's index: "spawn_inner" is defined at src/lib.rs:6 (inside a cfg_rt! macro block, which CodeGraph does not index); read it there.`,
      );
      assert.match(node.text, /^Symbol "spawn_inner" not found in the codebase/mu, "CodeGraph's answer follows");
      const callers = await api.relations({ relation: "callers", symbol: "hugeHelper" }, ws);
      const bytes = fs.statSync(path.join(ws, "src/huge.ts")).size.toLocaleString("en-US");
      assert.equal(
        lead(callers),
        `Not in CodeGraph's index: "hugeHelper" is defined at src/huge.ts:1 (in a file of ${bytes} bytes; CodeGraph skips files over 1,048,576 bytes); read it there.`,
      );
    });

    test("an explore that never mentions a name the request asks about says only that, and where the source has it", async () => {
      const r = await api.explore("who calls hugeHelper and what does it return", ws);
      assert.match(
        lead(r),
        /^CodeGraph's answer does not mention "hugeHelper"; the source defines it at src\/huge\.ts:1 \(in a file of [\d,]+ bytes; CodeGraph skips files over 1,048,576 bytes\); read it there\.$/u,
      );
      // A name the answer shows (the macro's source is printed with it): nothing to add.
      const shown = await api.explore("how does spawn_inner work", ws);
      assert.doesNotMatch(shown.text, /does not mention|Not in CodeGraph's index/u);
    });

    test("a name defined in a file written after the index: said, with the stale-files line", async () => {
      const ws2 = tempDir("pi-codegraph-blind-copy-");
      fs.cpSync(ws, ws2, { recursive: true });
      // The index written a minute before the edit (a file's own times cannot be set after it:
      // its change time is the clock's, and a modification time in the future is no later write).
      const earlier = Date.now() / 1000 - 60;
      fs.utimesSync(path.join(ws2, ".codegraph", "codegraph.db"), earlier, earlier);
      fs.appendFileSync(path.join(ws2, "src/cart.ts"), "export function addedLater() {}\n");
      const r = await api.node({ symbol: "addedLater" }, ws2);
      assert.equal(
        lead(r),
        `Not in CodeGraph's index: "addedLater" is defined at src/cart.ts:4 (its file changed after the index was written); read it there.`,
      );
      assert.match(r.text, /src\/cart\.ts\)\. Results for them may be stale; the user can run \/codegraph sync\.\n?$/u);
    });

    test("no word where the source has no definition CodeGraph would index", async () => {
      for (const symbol of ["vendoredOnly", "builtOnly", "nothingLikeThis", "Cart.total"]) {
        const r = await api.node({ symbol }, ws);
        assert.match(lead(r), /^Symbol ".+" not found in the codebase$/u, symbol);
      }
      const none = await api.relations({ relation: "callers", symbol: "spawn" }, ws);
      assert.doesNotMatch(none.text, /Not in CodeGraph's index/u, "a name the index has");
    });
  });
}
