// A run's output through the one core, in its two builds: the native addon's runCommand() against
// the Node runner's, whose collectors (the caps, the cleaner, the end of the stream, the
// full-output file), reading of the call's arguments and exit verdict are the WebAssembly core on
// the host's thread (src/output.rs, src/call.rs). The fake CLI prints 200 bytes, exactly the cap,
// 8 MiB (cut, the rest spilled) and a flood stopped at the drain limit; calls alternate between
// the two, WARMUP first, then RUNS each; medians. `node bench/run.mjs output`.

import { createRequire } from "node:module";
import path from "node:path";
import { CAP_BYTES, DRAIN_BYTES, explore, TIMEOUT_MS } from "../lib/peers.mjs";
import { root } from "../lib/setup.mjs";
import { median, ms, ratio } from "../lib/stats.mjs";

const require = createRequire(import.meta.url);
const WARMUP = 5;
const RUNS = 25;
const PAYLOADS = [
  { label: "200 B", spec: "bytes=200" },
  { label: `${CAP_BYTES / 1024} KB (the cap)`, spec: `bytes=${CAP_BYTES}` },
  { label: "8 MiB (cut, spilled)", spec: `bytes=${8 * 2 ** 20}` },
  { label: `a flood (stopped at ${DRAIN_BYTES / 2 ** 20} MiB)`, spec: `flood=${2 ** 30}` },
];

export async function output(ctx) {
  const nodeRunner = require(path.join(root, "lib", "runners", "node.js"));
  const { exploreCommand } = require(path.join(root, "lib", "contract", "commands.js"));
  const viaNode = (spec) => nodeRunner.runCommand(exploreCommand(spec), ctx.ws, null, { timeoutMs: TIMEOUT_MS });
  const viaAddon = (spec) => explore(spec, ctx.ws, null, { timeoutMs: TIMEOUT_MS });
  const rows = [];
  const ratios = [];
  let same = 0;
  for (const { label, spec } of PAYLOADS) {
    const times = { addon: [], node: [] };
    let answers = null;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const pair = [];
      for (const [name, call] of i % 2
        ? [
            ["node", viaNode],
            ["addon", viaAddon],
          ]
        : [
            ["addon", viaAddon],
            ["node", viaNode],
          ]) {
        const t = performance.now();
        const r = await call(spec);
        if (i >= WARMUP) times[name].push(performance.now() - t);
        pair.push([name, r]);
        nodeRunner.releaseFullOutputs([r.details.fullOutputPath].filter(Boolean));
      }
      answers = Object.fromEntries(pair.map(([name, r]) => [name, r]));
    }
    const a = answers.addon;
    const n = answers.node;
    const alike = a.text === n.text && a.details.totalBytes === n.details.totalBytes;
    if (alike) same += 1;
    const [addonMs, nodeMs] = [median(times.addon), median(times.node)];
    ratios.push(nodeMs / addonMs);
    rows.push([label, ms(addonMs), ms(nodeMs), ratio(nodeMs, addonMs), alike ? "same" : "DIFFERENT"]);
  }
  return {
    title: "A run's output through the one core: the native addon against the Node runner (WebAssembly core)",
    about: `runCommand() of explore's description on the fake CLI through the native addon and through the Node runner, whose output collectors, argument reading and exit verdict are the core built for WebAssembly on the host's thread (its process launch and pipes Node's own); alternating, ${WARMUP} warm-up calls, then medians of ${RUNS}; "same" when both kept the same text and counted the same total.`,
    tables: [
      {
        caption: "Wall time per call (ms)",
        head: ["stdout", "native addon", "Node runner", "Node runner / native", "answers"],
        rows,
      },
    ],
    notes: [
      `The Node runner took ${Math.min(...ratios).toFixed(2)}× to ${Math.max(...ratios).toFixed(2)}× the addon's time.`,
    ],
    targets: [
      {
        what: "The Node runner keeps and counts a run's output as the native addon does, at every size",
        target: "all",
        measured: `${same} of ${PAYLOADS.length}`,
        met: same === PAYLOADS.length,
        why: "one core: the same caps, cleaner and counts wherever no addon loads.",
      },
    ],
  };
}
