// One core everywhere (issue 47): where no native addon loads, the Node runner runs the addon's
// own Rust built for WebAssembly, each call as the addon runs it (crates/core/src/command_run.rs,
// git_run.rs), and JavaScript does only what WASI cannot (starting CodeGraph and git, killing their
// tree, the host's answers to the core, the worker and the loader). This holds the Node runner to
// that: a call's steps written again in JavaScript would show here first, as lines.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/index.mjs";

/** The most hand-written JavaScript `lib/runners/` may hold (it held 3,479 lines when the core was written twice). */
const RUNNERS_MAX_LINES = 1200;

function jsFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(file);
    return entry.name.endsWith(".js") ? [file] : [];
  });
}

test("the runners' JavaScript is only what WASI cannot do: at most 1,200 lines", () => {
  const files = jsFiles(path.join(root, "lib", "runners"));
  const lines = (file) => fs.readFileSync(file, "utf8").split("\n").length - 1;
  const total = files.reduce((sum, file) => sum + lines(file), 0);
  const largest = files
    .map((file) => `${path.relative(root, file)} ${lines(file)}`)
    .sort((a, b) => Number(b.split(" ")[1]) - Number(a.split(" ")[1]))
    .slice(0, 5);
  assert.ok(total <= RUNNERS_MAX_LINES, `lib/runners/ holds ${total} lines; the largest: ${largest.join(", ")}`);
});
