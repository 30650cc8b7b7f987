// explore() under Bun: runs bun/smoke.mjs with the Bun named by BUN_BIN (install one with
// `__test__/bun/install-bun.sh <dir>`, which prints its path). Skipped when BUN_BIN is unset.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/index.mjs";

const bun = process.env.BUN_BIN && path.resolve(process.env.BUN_BIN);
const skip = !bun
  ? "BUN_BIN is unset: set it to a bun binary (e.g. BUN_BIN=$(__test__/bun/install-bun.sh .tmp/tools/bun)) to run the Bun smoke test"
  : false;

test("explore() under Bun: load, real CodeGraph, abort, timeout", { skip, timeout: 180000 }, (t) => {
  assert.ok(fs.statSync(bun, { throwIfNoEntry: false })?.isFile(), `BUN_BIN=${bun} is not a file`);
  const r = spawnSync(bun, [path.join(root, "__test__", "bun", "smoke.mjs")], {
    cwd: root,
    // This Node runs the real and the fake CodeGraph CLI; the smoke test itself runs under Bun.
    env: { ...process.env, SMOKE_NODE: process.execPath },
    encoding: "utf8",
    timeout: 170000,
  });
  const lines = r.stdout.trim().split("\n");
  for (const line of lines) t.diagnostic(line);
  const context = `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  assert.equal(r.error, undefined, `${r.error}\n${context}`);
  assert.equal(r.status, 0, context);
  assert.match(r.stdout, /^ok load bun=\d/m, context);
  assert.match(r.stdout, /^ok real codegraph /m, context);
  assert.match(r.stdout, /^ok abort CODEGRAPH_CANCELLED, tree \d+\/\d+ gone$/m, context);
  assert.match(r.stdout, /^ok timeout CODEGRAPH_TIMEOUT after \d+ms, tree \d+\/\d+ gone$/m, context);
  assert.doesNotMatch(r.stdout, /^FAIL /m, context);
  assert.equal(lines.at(-1), "smoke: 4 passed, 0 failed", context);
});
