// The `pi-codegraph` command for people: doctor and explore, run as a user runs them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import { fakeBinDir, makeWorkspace, root, tempDir } from "./helpers/index.mjs";

const cli = path.join(root, "bin", "pi-codegraph.js");
let bin;
before(() => {
  bin = fakeBinDir();
});

function run(args, cwd, PATH = bin) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, env: { ...process.env, PATH }, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("doctor in an indexed workspace: ready, exit 0", () => {
  const ws = makeWorkspace();
  const r = run(["doctor"], ws);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^status\s+ready$/m);
  assert.match(r.stdout, new RegExp(`^codegraph\\s+${path.join(bin, "codegraph")}$`, "m"));
  assert.match(r.stdout, /^version\s+9\.9\.9-fake$/m);
  assert.match(r.stdout, new RegExp(`^index\\s+${ws}/\\.codegraph$`, "m"));
  assert.match(r.stdout, /^runtime\s+Node\.js v\d+/m);
  assert.match(r.stdout, /^addon\s+\/.*pi-codegraph\.[\w-]+\.node$/m);
});

test("doctor without an index: not ready, the fix, exit 1, nothing created", () => {
  const ws = makeWorkspace({ index: false });
  const r = run(["doctor"], ws);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^status\s+not ready \(CODEGRAPH_NO_INDEX\)$/m);
  assert.match(r.stdout, /^fix\s+Run `codegraph init` in /m);
  assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false);
});

test("doctor without codegraph: not found, exit 1", () => {
  const r = run(["doctor"], makeWorkspace(), tempDir());
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^codegraph\s+not found on PATH$/m);
  assert.match(r.stdout, /CODEGRAPH_NOT_FOUND/);
});

test("explore prints the bounded answer; errors go to stderr with exit 1", () => {
  const ws = makeWorkspace();
  const ok = run(["explore", "what", "calls", "main"], ws);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout.split("\n")[1]).argv, ["explore", "--", "what calls main"]);
  const bad = run(["explore", "q"], makeWorkspace({ index: false }));
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^CODEGRAPH_NO_INDEX:/);
});

test("usage on no command, exit 2 on an unknown one", () => {
  assert.equal(run([], tempDir()).code, 0);
  const r = run(["frobnicate"], tempDir());
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Usage:/);
});
