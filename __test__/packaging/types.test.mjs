// index.d.ts is hand-written over the generated binding.d.ts: it must compile against real use
// (types/usage.ts, with the TypeScript that @napi-rs/cli brings), and every value it declares must
// be exported by index.js (and every export declared).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");

test("index.d.ts compiles against the documented use (tsc --strict)", {
  skip: !fs.existsSync(tsc) && "no TypeScript installed (npm install)",
}, () => {
  const usage = path.join(root, "__test__", "types", "usage.ts");
  const args = [tsc, "--noEmit", "--strict", "--skipLibCheck", "--types", "node", "--module", "nodenext", usage];
  try {
    execFileSync(process.execPath, args, { cwd: root, encoding: "utf8", stdio: "pipe" });
  } catch (err) {
    assert.fail(`tsc found errors:\n${err.stdout}${err.stderr}`);
  }
});

test("index.d.ts declares exactly what index.js exports", () => {
  const dts = fs.readFileSync(path.join(root, "index.d.ts"), "utf8");
  const declared = [...dts.matchAll(/^export declare (?:function|const) (\w+)/gm)].map((m) => m[1]).sort();
  const exported = Object.keys(require(path.join(root, "index.js")))
    .filter((k) => k !== "default")
    .sort();
  assert.deepEqual(declared, exported);
});
