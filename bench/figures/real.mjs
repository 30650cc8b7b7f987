// Real explore: the pinned CodeGraph CLI on a temp copy of the shop fixture, indexed by the bench,
// through explore() and through execFile on the bare CLI.

import path from "node:path";
import { DRAIN_BYTES, viaExecFile, viaExplore } from "../lib/peers.mjs";
import { indexShop, root } from "../lib/setup.mjs";
import { median, ms, percentile, ratio } from "../lib/stats.mjs";

const RUNS = 10;
const QUERY = "how does CheckoutService.checkout reach PaymentProcessor.charge";
/** What explore() adds to the child's environment (DO_NOT_TRACK stands for CODEGRAPH_TELEMETRY=0). */
const QUIET = { DO_NOT_TRACK: "1", CODEGRAPH_NO_UPDATE_CHECK: "1", CODEGRAPH_NO_DOWNLOAD: "1", NO_COLOR: "1" };

export async function real(ctx) {
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const shop = indexShop(ctx.tmp, cli);
  const saved = { PI_CODEGRAPH_BIN: process.env.PI_CODEGRAPH_BIN, DO_NOT_TRACK: process.env.DO_NOT_TRACK };
  process.env.PI_CODEGRAPH_BIN = cli;
  process.env.DO_NOT_TRACK = "1";
  const env = { ...process.env, ...QUIET };
  const peers = [
    { name: "explore()", run: () => viaExplore(cli, shop.dir, QUERY), times: [], bytes: 0 },
    {
      name: "bare CLI via execFile",
      run: () => viaExecFile(cli, shop.dir, QUERY, { maxBuffer: DRAIN_BYTES, env }),
      times: [],
      bytes: 0,
    },
  ];
  try {
    for (const p of peers) p.bytes = Buffer.byteLength(await p.run()); // warm-up (and explore()'s version probe)
    for (let i = 0; i < RUNS; i++) {
      for (const p of peers) {
        const t = performance.now();
        await p.run();
        p.times.push(performance.now() - t);
      }
    }
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  const base = median(peers[1].times);
  const e = median(peers[0].times);
  return {
    title: "Real explore (CodeGraph 1.6.1 on the shop fixture)",
    about:
      `\`codegraph init -y .\` on a temp copy of \`__test__/fixtures/shop\` (DO_NOT_TRACK=1) took ${ms(shop.initMs)} ms. ` +
      `Query: “${QUERY}”. ${RUNS} runs each, interleaved, after one warm-up each. The bare CLI gets the same quiet environment explore() sets.`,
    tables: [
      {
        caption: "Real explore, ms",
        head: ["implementation", "runs", "answer bytes", "median ms", "p90 ms", "min ms", "vs bare CLI", "Δ ms"],
        rows: peers.map((p) => [
          p.name,
          p.times.length,
          p.bytes,
          ms(median(p.times)),
          ms(percentile(p.times, 90)),
          ms(Math.min(...p.times)),
          ratio(median(p.times), base),
          `${median(p.times) - base >= 0 ? "+" : ""}${ms(median(p.times) - base)}`,
        ]),
      },
    ],
    notes: [`explore() − bare CLI: ${ms(e - base)} ms on a ${ms(base)} ms call.`],
    targets: [],
  };
}
