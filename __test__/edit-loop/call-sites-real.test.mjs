// What a callers or impact answer leaves out and the source shows, against the real, pinned
// CodeGraph CLI: it has no edge for a call inside a Rust macro block or a macro_rules! template,
// nor for `impl Trait for Arc<Type>`; the answer then names the place, the definition (never one
// that ended before the line) or template it sits in, and why; a mention in a comment, doc
// comment, docstring or string is no call. Nothing is said
// where the answer lists every place. Through the public seam (relations on the package), on both
// runners: each has its own source scan (__test__/answers/source-scan.test.mjs holds them alike).
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

const RUST = `macro_rules! cfg_rt {
    ($($item:item)*) => { $($item)* }
}

use std::sync::Arc;

pub fn helper(x: u32) -> u32 {
    x + 1
}

pub fn direct(x: u32) -> u32 {
    helper(x)
}

cfg_rt! {
    pub fn hidden(x: u32) -> u32 {
        // helper(x) once more, in a comment: no call
        helper(x) * 2
    }
}

pub trait Schedule {
    fn schedule(&self);
}

pub struct Plain;
pub struct Handle;

impl Schedule for Plain {
    fn schedule(&self) {}
}

impl Schedule for Arc<Handle> {
    fn schedule(&self) {}
}

/// Call it as \`helper(3)\` (a doc comment: no call)
macro_rules! make_getter {
    ($name:ident) => {
        pub fn $name(&self) -> u32 {
            helper(4)
        }
    };
}

// CodeGraph lists this call (in outer, not in nested, which ended before it): not repeated.
pub fn outer(x: u32) -> u32 {
    fn nested() -> u32 { 0 }
    let s = "helper(5)";
    combine(
            helper(x), nested())
}
`;

const PYTHON = `def documented():
    """Use it like this:

        helper(6)
    """
    return 0
`;

const TS = `export const LIMIT = 5;

export function charge(n: number): number {
  return n > LIMIT ? LIMIT : n;
}

export class Cart {
  total(n: number): number {
    return charge(n);
  }
}
`;

// A setter with the field of its name (a builder's setting) and the places that read the field.
const CONFIG = `pub struct Config {
    pub interval: u32,
    pub ticks: u32,
}

pub struct Builder {
    interval: u32,
}

impl Builder {
    /// Sets \`interval\` (a doc comment: no use)
    pub fn interval(&mut self, val: u32) -> &mut Self {
        self.interval = val;
        self
    }

    pub fn build(&self) -> Config {
        Config { interval: self.interval }
    }
}

pub fn tick(config: &Config, n: u32) -> bool {
    let label = "config.interval";
    n % config.interval == 0 && n < config.ticks
}
`;

const lead = (r) => r.text.split("\n", 1)[0];
const NOTE =
  "in the source that CodeGraph's answer does not list (a text search for the name, which namesakes share; read them to be sure)";

let ws;
before(() => {
  ws = indexedWorkspace("pi-codegraph-calls-", {
    "src/lib.rs": RUST,
    "src/cart.ts": TS,
    "src/jobs.py": PYTHON,
    "src/config.rs": CONFIG,
    // A namesake's definition (another module's helper): a definition, not a call.
    "src/other.rs": "pub fn helper() -> u32 {\n    0\n}\n",
  });
});

for (const [runner, api] of [
  ["the loaded runner", pkg],
  ["the node runner", pkg.forRunner(nodeRunner)],
]) {
  describe(`what the graph lacks, found in the source (${runner})`, () => {
    test("a call inside a Rust macro block: callers and impact name it, its function and why", async () => {
      for (const relation of ["callers", "impact"]) {
        const r = await api.relations({ relation, symbol: "helper", file: "src/lib.rs" }, ws);
        assert.equal(
          lead(r),
          `Calls of "helper" ${NOTE}: src/lib.rs:18 in hidden (inside a cfg_rt! macro block, which CodeGraph does not index), src/lib.rs:41 in the template of macro_rules! make_getter (the code it generates, which CodeGraph does not index).`,
          relation,
        );
        assert.match(
          r.text,
          /^function +direct\n {2}src\/lib\.rs:11$|^ {2}function +direct:11$/mu,
          "CodeGraph's own rows follow",
        );
      }
    });

    test("an implementation the graph has no edge for: impact names its line", async () => {
      const r = await api.relations({ relation: "impact", symbol: "Schedule", depth: 1 }, ws);
      assert.equal(
        lead(r),
        `Implementations of "Schedule" ${NOTE}: src/lib.rs:33 \`impl Schedule for Arc<Handle> {\`.`,
      );
      assert.match(r.text, /struct +Plain:26/u, "the one it has is CodeGraph's");
    });

    test("a setter's field read where the graph has no call: callers name each use, its definition and line; a doc comment or string is none", async () => {
      const r = await api.relations({ relation: "callers", symbol: "interval", file: "src/config.rs" }, ws);
      const place = (line, within, code) => `src/config.rs:${line} in ${within} (\`${code}\`)`;
      assert.equal(
        lead(r),
        `Uses of "interval" in the source that CodeGraph's answer does not list, not calls (the name as a field or variable, or the function passed on; namesakes share it, read them to be sure): ${[
          place(2, "Config", "pub interval: u32,"),
          place(7, "Builder", "interval: u32,"),
          place(18, "build", "Config { interval: self.interval }"),
          place(24, "tick", "n % config.interval == 0 && n < config.ticks"),
        ].join(", ")}.`,
      );
    });

    test("a field CodeGraph's index has no symbol by: callers name its uses in code", async () => {
      const r = await api.relations({ relation: "callers", symbol: "ticks" }, ws);
      assert.equal(
        lead(r),
        "Uses of \"ticks\" in the source that CodeGraph's answer does not list (CodeGraph's index has no symbol by the name; a text search for the name, which namesakes share; read them to be sure): src/config.rs:3 in Config (`pub ticks: u32,`), src/config.rs:24 in tick (`n % config.interval == 0 && n < config.ticks`).",
      );
      assert.match(r.text, /Symbol "ticks" not found/u, "CodeGraph's own answer follows");
    });

    test("nothing is said where the answer lists every call or use", async () => {
      for (const symbol of ["charge", "LIMIT"]) {
        const r = await api.relations({ relation: "callers", symbol }, ws);
        assert.match(r.text, /^\nCallers of "/u, `${symbol}: CodeGraph's answer as it is`);
      }
    });
  });
}
