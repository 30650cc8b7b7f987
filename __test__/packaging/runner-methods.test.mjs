// The runner's methods are one list (lib/contract/runner-methods.js): every runner provides each,
// the native addon and binding.d.ts each export those it carries, the WebAssembly build exactly
// those it carries, and index.d.ts's Runner declares each. A method added to one side only fails here.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const {
  RUNNER_METHODS,
  RUNNER_METHOD_NAMES,
  WASM_HOST_EXPORTS,
  WASM_WORKER_CHECKS,
} = require("../../lib/contract/runner-methods.js");
const { LIMIT_NAMES } = require("../../lib/contract/limits.js");
const carried = (key) => RUNNER_METHOD_NAMES.filter((name) => RUNNER_METHODS[name][key]);

test("every runner has every runner method and limit", () => {
  const runners = {
    "the Node runner": require("../../lib/runners/node.js"),
    "the native runner": require("../../lib/runners/native.js").nativeRunner,
    "the default runner": require("../../lib/runners/select.js").defaultRunner,
  };
  for (const [label, runner] of Object.entries(runners)) {
    for (const name of RUNNER_METHOD_NAMES) assert.equal(typeof runner[name], "function", `${label} lacks ${name}`);
    for (const name of LIMIT_NAMES) assert.equal(typeof runner[name], "number", `${label} lacks the limit ${name}`);
  }
});

test("the native addon and binding.d.ts export the methods it carries, and the limits", () => {
  const binding = require("../../lib/runners/native.js").loadBinding();
  const declared = fs.readFileSync(path.join(root, "binding.d.ts"), "utf8");
  for (const name of carried("binding")) {
    assert.equal(typeof binding[name], "function", `the addon lacks ${name}`);
    assert.match(declared, new RegExp(`^export declare function ${name}\\(`, "m"), `binding.d.ts lacks ${name}`);
  }
  for (const name of LIMIT_NAMES) assert.equal(typeof binding[name], "number", `the addon lacks ${name}`);
});

test("the WebAssembly build exports exactly the methods it carries, and what the Node runner's host side calls", () => {
  const { WASM_LOADER } = require("../../lib/runners/node/wasm-core.js");
  const wasm = require(WASM_LOADER);
  const exported = Object.keys(wasm).filter((name) => typeof wasm[name] === "function");
  assert.deepEqual(exported.sort(), [...carried("wasm"), ...WASM_HOST_EXPORTS, ...WASM_WORKER_CHECKS].sort());
});

test("index.d.ts's Runner declares every runner method", () => {
  const types = fs.readFileSync(path.join(root, "index.d.ts"), "utf8");
  const runner = types.slice(types.indexOf("export interface Runner extends"));
  const body = runner.slice(0, runner.indexOf("\n}\n"));
  for (const name of RUNNER_METHOD_NAMES) {
    const optional = RUNNER_METHODS[name].optional ? "\\?" : "";
    assert.match(body, new RegExp(`^  ${name}${optional}\\(`, "m"), `Runner lacks ${name}${optional ? "?" : ""}`);
  }
});
