// Pi's event loop is never held by the product's work on repository content, whatever the files
// hold: a callers answer over a generated 1.5 MB Rust table followed by 200 calls, and a
// TypeScript line that makes a backtracking regular expression quadratic (`save(` then `):`
// repeated), on both runners, through the public seam (relations() over the fake CLI). The probe
// samples the main thread's own CPU time every few milliseconds during the call: the most it
// spent between two samples is how long the loop was held, and unlike wall time it does not grow
// when the machine is busy (a descheduled thread spends none).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { fakeCli, makeWorkspace, useFakeCli, withEnv } from "../helpers/index.mjs";

useFakeCli();
const HELD_MS = 50;

/** Runs `fn` while sampling the main thread's CPU time: `{ value, heldMs }` (the most CPU between two samples). */
async function probed(fn) {
  const cpuMs = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  let last = cpuMs();
  let heldMs = 0;
  const timer = setInterval(() => {
    const now = cpuMs();
    heldMs = Math.max(heldMs, now - last);
    last = now;
  }, 5);
  try {
    const value = await fn();
    heldMs = Math.max(heldMs, cpuMs() - last);
    return { value, heldMs };
  } finally {
    clearInterval(timer);
  }
}

/** A workspace whose source holds what no pattern should take long over, `save` defined in src/store.ts. */
function workspace() {
  const ws = makeWorkspace();
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  };
  write("src/store.ts", "export function save(x: number): void {}\n");
  // A generated table (bindgen, unicode data): 1.5 MB of numbers, then 200 calls.
  const rows = [];
  for (let i = 0, bytes = 0; bytes < 1.5 * 1024 * 1024; i += 1) {
    rows.push(`    ${i}, ${i + 1}, ${i + 2}, ${i + 3}, ${i + 4}, ${i + 5}, ${i + 6}, ${i + 7},`);
    bytes += rows.at(-1).length + 1;
  }
  const calls = Array.from({ length: 200 }, (_, i) => `fn use${i}() {\n    save(${i});\n}`);
  write(
    "src/table.rs",
    `pub static TABLE: [u32; ${rows.length * 8}] = [\n${rows.join("\n")}\n];\n${calls.join("\n")}\n`,
  );
  // One long line: `save(` then `):` repeated (192 KB), then a call on a line of its own.
  write("src/odd.ts", `const x = save(${"):".repeat(96 * 1024)};\nsave(1);\n`);
  return ws;
}

const CALLERS =
  '\nCallers of "save" (0):\n\nfunction save (typescript) — src/store.ts:1\nℹ No callers found for "save"\n';

describe("a callers answer over a repository's odd files", {
  skip: !process.threadCpuUsage && "needs process.threadCpuUsage",
}, () => {
  for (const impl of implementations) {
    test(`${impl.name}: Pi's event loop is never held ${HELD_MS} ms, and the calls are named`, async () => {
      const ws = workspace();
      const cli = fakeCli([["stdout", CALLERS]]).file;
      const ask = () =>
        withEnv({ PI_CODEGRAPH_BIN: cli }, () => impl.module.relations({ relation: "callers", symbol: "save" }, ws));
      await ask(); // the modules, the runner and its worker loaded once
      const { value, heldMs } = await probed(ask);
      assert.ok(heldMs < HELD_MS, `the main thread ran ${heldMs.toFixed(1)} ms without yielding`);
      const lead = value.text.split("\n", 1)[0];
      assert.match(lead, /^Calls of "save" in the source that CodeGraph's answer does not list/u, lead);
      // Its brackets never close: where each call sits cannot be told, so none is claimed.
      assert.match(lead, /src\/odd\.ts:1, 2 \(text match\)/u, lead);
      assert.match(lead, /src\/table\.rs:\d+ in use\d+/u, lead);
    });
  }
});
