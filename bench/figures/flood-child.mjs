// One flood measurement series in a fresh Node process, so peak-RSS readings start clean.
// usage: node --expose-gc flood-child.mjs <explore|execFile50K|execFile16M> <addon> <fake> <ws> <runs> <spec>
// Prints one JSON array, one object per run.

import fs from "node:fs";
import { CAP_BYTES, DRAIN_BYTES, explore, TIMEOUT_MS, useAddon, viaExecFile } from "../lib/peers.mjs";
import { fakePids, killPids, poll } from "../lib/setup.mjs";

const [mode, addon, fake, ws, runsArg, spec] = process.argv.slice(2);
useAddon(addon);

const call = {
  explore: async () => {
    try {
      const r = await explore(spec, ws, null, { timeoutMs: TIMEOUT_MS });
      return {
        outcome: r.details.truncated ? "truncated" : "whole",
        kept: r.details.keptBytes,
        seen: r.details.totalBytes,
      };
    } catch (e) {
      // Recorded, not thrown: the figure reports what explore() did with the flood.
      const how = e.details?.signal ? ` (signal ${e.details.signal})` : "";
      return { outcome: `${e.code ?? "error"}${how}`, kept: 0, seen: Number.NaN };
    }
  },
  execFile50K: () => viaExecFileFlood(CAP_BYTES),
  execFile16M: () => viaExecFileFlood(DRAIN_BYTES),
}[mode];

async function viaExecFileFlood(maxBuffer) {
  try {
    const out = await viaExecFile(fake, ws, spec, { maxBuffer });
    return { outcome: "whole", kept: Buffer.byteLength(out), seen: Buffer.byteLength(out) };
  } catch (e) {
    const kept = Buffer.byteLength(e.partialStdout ?? "");
    return { outcome: e.code ?? "error", kept, seen: kept };
  }
}

function vmHwmBytes() {
  const status = fs.readFileSync("/proc/self/status", "utf8");
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)[1]) * 1024;
}

// Warm up: the addon loaded, its runtime started and the version probe cached; execFile's paths hot.
if (mode === "explore") await explore("bytes=200", ws, null, null);
else await viaExecFile(fake, ws, "bytes=200");

const runs = [];
for (let i = 0; i < Number(runsArg); i++) {
  globalThis.gc?.();
  const rssBefore = process.memoryUsage.rss();
  fs.writeFileSync("/proc/self/clear_refs", "5"); // resets VmHWM to the current RSS
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 1);
  const t0 = performance.now();
  const result = await call();
  const wallMs = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  const aliveAtSettle = fakePids().length;
  const gone = await poll(() => fakePids().length === 0, 2000);
  const leftover = gone ? [] : fakePids();
  killPids(leftover); // ours to clean up, so the next run starts clean
  runs.push({
    ...result,
    wallMs,
    rssGrowth: peak - rssBefore,
    hwmGrowth: vmHwmBytes() - rssBefore,
    aliveAtSettle,
    leftover: leftover.length,
  });
}
console.log(JSON.stringify(runs));
