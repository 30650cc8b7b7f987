// Per-call overhead: sequential calls of a fake that prints a little (or exactly the 50 KB cap)
// and exits, through explore(), execFile, pi.exec and the raw Rust floor. Rounds alternate the
// implementations so drift (thermal, page cache, other tenants) hits them alike.

import { execFileSync } from "node:child_process";
import { CAP_BYTES, PEERS, viaExplore } from "../lib/peers.mjs";
import { median, ms, percentile, ratio } from "../lib/stats.mjs";

const ROUNDS = 3;
const PER_ROUND = 100;
const WARMUP = 30;
const PAYLOADS = [
  { label: "200 B", spec: "bytes=200" },
  { label: `${CAP_BYTES / 1024} KB (${CAP_BYTES.toLocaleString("en")} B, the cap)`, spec: `bytes=${CAP_BYTES}` },
];

async function timeCalls(n, call) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    out.push(performance.now() - t);
  }
  return out;
}

function floorCalls(ctx, spec, n) {
  const json = execFileSync(ctx.floor, [ctx.fake, ctx.ws, "10", String(n), spec], { encoding: "utf8" });
  return JSON.parse(json);
}

/** explore() up to the spawn: a missing PI_CODEGRAPH_BIN rejects after preflight and discovery. */
async function upToSpawn(ctx) {
  const saved = process.env.PI_CODEGRAPH_BIN;
  process.env.PI_CODEGRAPH_BIN = `${ctx.tmp}/no-such-codegraph`;
  try {
    const call = () =>
      viaExplore(null, ctx.ws, "bytes=200").then(
        () => {
          throw new Error("expected CODEGRAPH_NOT_FOUND");
        },
        (e) => {
          if (e.code !== "CODEGRAPH_NOT_FOUND") throw e;
        },
      );
    await timeCalls(WARMUP, call);
    return await timeCalls(ROUNDS * PER_ROUND, call);
  } finally {
    process.env.PI_CODEGRAPH_BIN = saved;
  }
}

export async function overhead(ctx) {
  const tables = [];
  const targets = [];
  ctx.perCall = {};
  const pre = await upToSpawn(ctx);
  for (const payload of PAYLOADS) {
    const samples = Object.fromEntries([...PEERS.map((p) => [p.name, []]), ["raw floor (Rust)", []]]);
    for (const peer of PEERS) await timeCalls(WARMUP, () => peer.run(ctx.fake, ctx.ws, payload.spec));
    for (let round = 0; round < ROUNDS; round++) {
      for (const peer of PEERS) {
        samples[peer.name].push(...(await timeCalls(PER_ROUND, () => peer.run(ctx.fake, ctx.ws, payload.spec))));
      }
      samples["raw floor (Rust)"].push(...floorCalls(ctx, payload.spec, PER_ROUND));
    }
    const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
    ctx.perCall[payload.spec] = med;
    const floor = med["raw floor (Rust)"];
    const rows = Object.entries(samples).map(([name, v]) => [
      name,
      v.length,
      ms(median(v)),
      ms(percentile(v, 90)),
      ms(percentile(v, 99)),
      ratio(median(v), med.execFile),
      `${median(v) - floor >= 0 ? "+" : ""}${ms(median(v) - floor)}`,
    ]);
    if (payload === PAYLOADS[0]) {
      rows.push([
        "explore() up to the spawn ¹",
        pre.length,
        ms(median(pre)),
        ms(percentile(pre, 90)),
        ms(percentile(pre, 99)),
        "",
        "",
      ]);
    }
    tables.push({
      caption: `Per call, fake prints ${payload.label} and exits (${ROUNDS} rounds × ${PER_ROUND} calls after ${WARMUP} warm-up calls)`,
      head: ["implementation", "calls", "median ms", "p90 ms", "p99 ms", "vs execFile", "Δ vs floor ms"],
      rows,
    });
    const e = med["explore()"];
    targets.push(
      {
        what: `per-call (${payload.label}): explore() / execFile`,
        target: "≤ 1.05×",
        measured: ratio(e, med.execFile),
        met: e / med.execFile <= 1.05,
        why: `explore() pays on the JS thread the napi call, the environment snapshot, preflight and discovery (the "up to the spawn" row: ${ms(median(pre))} ms), then a hop to a tokio worker for the spawn and a threadsafe-function hop back; on a busy 2-core machine each hop can wait for a CPU.`,
      },
      {
        what: `per-call (${payload.label}): explore() − raw floor`,
        target: "≤ 1 ms",
        measured: `${ms(e - floor)} ms (${ratio(e, floor)} the floor)`,
        met: e - floor <= 1,
        why: `explore() pays on the JS thread the napi call, the environment snapshot, preflight and discovery (the "up to the spawn" row: ${ms(median(pre))} ms), then a hop to a tokio worker for the spawn and a threadsafe-function hop back; on a busy 2-core machine each hop can wait for a CPU.`,
      },
    );
  }
  return {
    title: "Per-call overhead",
    about:
      "Sequential calls of the fake CLI (`explore -- <spec>`, the fake prints and exits). explore() includes, per call, " +
      "the napi call, the environment snapshot, the request/workspace/index preflight (a stat and a 16-byte header read), " +
      "executable discovery and the cached `--version` lookup; the version probe itself ran during warm-up. " +
      "execFile: maxBuffer 51,200, timeout 30 s. pi.exec: Pi 0.73.1's execCommand (no output cap). " +
      "The floor spawns the same argv, cwd, environment and process group from a blocking Rust loop (std::process::Command::output).",
    tables,
    notes: [
      "¹ explore() with PI_CODEGRAPH_BIN pointing at a missing file: it rejects CODEGRAPH_NOT_FOUND after the napi call, environment snapshot, preflight and discovery, before any process exists. This is the fixed cost the addon adds around the spawn.",
    ],
    targets,
  };
}
