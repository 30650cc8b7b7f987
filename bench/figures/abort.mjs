// Abort: start a call of a shim-like fake that sleeps (parent + child, both sleeping), wait until
// both processes exist, abort(), and time abort() → the promise settling. Then check the tree.

import { PEERS } from "../lib/peers.mjs";
import { fakePids, killPids, poll } from "../lib/setup.mjs";
import { max, median, ms, percentile, ratio } from "../lib/stats.mjs";

const SPEC = "sleep=10000 tree=1";
const RUNS = { "explore()": 200, execFile: 200, "pi.exec": 100 };
/** How long a killed process may take to vanish before it counts as left behind. */
const GRACE_MS = 50;

async function series(peer, ctx, runs) {
  const settle = [];
  const outcomes = new Set();
  let aliveAtSettle = 0;
  let leftover = 0;
  for (let i = 0; i < runs; i++) {
    const ac = new AbortController();
    const call = peer.run(ctx.fake, ctx.ws, SPEC, { signal: ac.signal }).then(
      () => "resolved",
      (e) => e.code ?? e.name,
    );
    const started = await poll(() => fakePids().length >= 2, 5000);
    if (!started) throw new Error(`${peer.name}: the fake did not start`);
    const t0 = performance.now();
    ac.abort();
    outcomes.add(await call);
    settle.push(performance.now() - t0);
    if (fakePids().length > 0) aliveAtSettle++;
    const gone = await poll(() => fakePids().length === 0, GRACE_MS);
    if (!gone) {
      const left = fakePids();
      leftover += left.length;
      killPids(left); // ours: clean up so the next run starts from zero
      await poll(() => fakePids().length === 0, 2000);
    }
  }
  return { name: peer.name, settle, outcomes: [...outcomes], aliveAtSettle, leftover };
}

export async function abort(ctx) {
  const results = [];
  for (const peer of PEERS) {
    await series(peer, ctx, 5); // warm-up
    results.push(await series(peer, ctx, RUNS[peer.name]));
  }
  const peerP99 = percentile(results[1].settle, 99);
  const peerP50 = median(results[1].settle);
  const rows = results.map((r) => [
    r.name,
    r.settle.length,
    r.outcomes.join(", "),
    ms(median(r.settle)),
    ms(percentile(r.settle, 99)),
    ms(max(r.settle)),
    ratio(median(r.settle), peerP50),
    ratio(percentile(r.settle, 99), peerP99),
    r.aliveAtSettle,
    r.leftover,
  ]);
  const e = results[0];
  return {
    title: "Abort",
    about:
      `The fake runs \`${SPEC}\` (forks like the npm shim; parent and child sleep 10 s). Each run waits until both processes exist, then calls abort() ` +
      `and times abort() → settled. After settling, any fake process still running ${GRACE_MS} ms later counts as left behind (and the bench kills it).`,
    tables: [
      {
        caption: "abort() → settled",
        head: [
          "implementation",
          "runs",
          "outcome",
          "p50 ms",
          "p99 ms",
          "max ms",
          "p50 vs execFile",
          "p99 vs execFile",
          "runs alive at settle",
          "processes left",
        ],
        rows,
      },
    ],
    notes: [
      "execFile and pi.exec signal only the direct child: the shim-like parent dies, its child (the real CLI, for CodeGraph) keeps running. pi.exec then waits 100 ms for stdio that the orphan still holds.",
      "runs alive at settle: runs where a fake process was still running at the instant of settling (it got its signal but had not yet exited).",
    ],
    targets: [
      {
        what: "abort: explore() abort → settled p99",
        target: "≤ 50 ms",
        measured: `${ms(percentile(e.settle, 99))} ms`,
        met: percentile(e.settle, 99) <= 50,
        why: "on cancel the runner's terminate() sends SIGTERM to the group and waits up to TERM_GRACE (500 ms) for the leader before SIGKILL: a CLI slow to die on SIGTERM costs up to 500 ms; otherwise the two thread hops (JS listener → tokio worker, and the threadsafe-function callback back) waited for a CPU.",
      },
      {
        what: "abort: fake processes left after explore()",
        target: "0",
        measured: String(e.leftover),
        met: e.leftover === 0,
        correctness: true,
        why: "the runner kills with killpg(SIGKILL) on the CLI's process group; a process still running left that group (setsid/setpgid, e.g. a daemonising helper), which only a job-control mechanism such as a cgroup or PR_SET_CHILD_SUBREAPER would still catch.",
      },
    ],
  };
}
