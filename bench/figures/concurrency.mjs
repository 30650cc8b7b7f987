// Concurrency: 64 calls at once of a fake that sleeps 200 ms, with the event loop's delay
// monitored during the burst.

import { monitorEventLoopDelay } from "node:perf_hooks";
import { PEERS } from "../lib/peers.mjs";
import { max, median, ms, ratio } from "../lib/stats.mjs";

const N = 64;
const SLEEP_MS = 200;
const BURSTS = 5;
const SPEC = `sleep=${SLEEP_MS} bytes=80`;

async function burst(peer, ctx) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const texts = await Promise.all(Array.from({ length: N }, () => peer.run(ctx.fake, ctx.ws, SPEC)));
  const wall = performance.now() - t0;
  h.disable();
  if (!texts.every((t) => t.length === 80)) throw new Error(`${peer.name}: unexpected output`);
  return { wall, p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
}

export async function concurrency(ctx) {
  const results = [];
  for (const peer of PEERS) {
    await burst(peer, ctx); // warm-up
    const bursts = [];
    for (let i = 0; i < BURSTS; i++) bursts.push(await burst(peer, ctx));
    results.push({ name: peer.name, bursts });
  }
  const summary = results.map((r) => ({
    name: r.name,
    wall: median(r.bursts.map((b) => b.wall)),
    wallMax: max(r.bursts.map((b) => b.wall)),
    p99: median(r.bursts.map((b) => b.p99)),
    p99Max: max(r.bursts.map((b) => b.p99)),
    eldMax: max(r.bursts.map((b) => b.max)),
  }));
  const peer = summary[1];
  const e = summary[0];
  return {
    title: `Concurrency (${N} at once, each sleeping ${SLEEP_MS} ms)`,
    about:
      `${N} calls started in one tick, awaited together; ${BURSTS} bursts after one warm-up burst. ` +
      "Event-loop delay: perf_hooks.monitorEventLoopDelay({ resolution: 1 }) enabled for the burst; its samples include the 1 ms sampling interval, so an idle loop reads ≈ 1.1 ms.",
    tables: [
      {
        caption: `${N} concurrent calls; median over ${BURSTS} bursts (worst burst in brackets)`,
        head: [
          "implementation",
          "all done ms",
          "× 200 ms",
          "vs execFile",
          "loop delay p99 ms",
          "p99 vs execFile",
          "loop delay max ms",
        ],
        rows: summary.map((s) => [
          s.name,
          `${ms(s.wall)} (${ms(s.wallMax)})`,
          (s.wall / SLEEP_MS).toFixed(3),
          ratio(s.wall, peer.wall),
          `${ms(s.p99)} (${ms(s.p99Max)})`,
          ratio(s.p99, peer.p99),
          ms(s.eldMax),
        ]),
      },
    ],
    notes: [],
    targets: [
      {
        what: `concurrency: ${N} explore() all done`,
        target: `≤ ${1.5 * SLEEP_MS} ms`,
        measured: `${ms(e.wall)} ms (worst ${ms(e.wallMax)})`,
        met: e.wall <= 1.5 * SLEEP_MS,
        why: "the spawns run on the addon's tokio workers (one per core): 64 fork/execs are serialised over them, and on a busy machine they also compete with the CLIs for the CPUs.",
      },
      {
        what: "concurrency: event-loop delay p99 during the explore() burst",
        target: "≤ 5 ms",
        measured: `${ms(e.p99)} ms (worst ${ms(e.p99Max)})`,
        met: e.p99 <= 5,
        why: "each explore() call does its argument conversion, AbortSignal wiring and environment snapshot (a copy of the whole environ) on the JS thread, and each settle is a threadsafe-function callback there: 64 of each land within a few ms.",
      },
    ],
  };
}
