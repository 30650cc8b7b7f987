// The process tree as the parallel figure sees it: the summed RSS of every descendant of this
// process, sampled from /proc; a CPU-bound process beside the bench; the addon files mapped here.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { processTable } from "../../__test__/helpers/processes.mjs";
import { root } from "./setup.mjs";

export const SAMPLE_EVERY_MS = 50;

/** VmRSS in bytes, or 0 once the process is gone. */
function rssOf(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "latin1"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples, every ~50 ms, the sum of VmRSS over every descendant of this process except `exclude`
 * (the CPU hog): the CLIs, their launchers and any helper the runner forks. stop() → { peak,
 * samples, selfPeak } (selfPeak: this Node process's own RSS, reported apart).
 */
export function rssSampler(exclude) {
  let peak = 0;
  let selfPeak = 0;
  let samples = 0;
  const sample = () => {
    const children = new Map();
    for (const p of processTable()) {
      if (p.state === "Z") continue;
      if (!children.has(p.ppid)) children.set(p.ppid, []);
      children.get(p.ppid).push(p.pid);
    }
    let sum = 0;
    const stack = [...(children.get(process.pid) ?? [])];
    while (stack.length) {
      const pid = stack.pop();
      if (exclude.has(pid)) continue;
      sum += rssOf(pid);
      stack.push(...(children.get(pid) ?? []));
    }
    peak = Math.max(peak, sum);
    selfPeak = Math.max(selfPeak, rssOf(process.pid));
    samples++;
  };
  sample();
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peak, samples, selfPeak };
    },
  };
}

/** The pi-codegraph .node files this process has mapped (/proc/self/maps). */
export function mappedAddons() {
  const files = fs
    .readFileSync("/proc/self/maps", "utf8")
    .split("\n")
    .map((l) => l.slice(l.indexOf("/")))
    .filter((f) => /pi[-_]codegraph[^/]*\.(node|so)$/.test(f));
  return [...new Set(files)].map((f) => (path.relative(root, f).startsWith("..") ? f : path.relative(root, f)));
}

/** A CPU-bound Node process beside the bench (a busy loop), until stop(). */
export function cpuHog() {
  const child = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  return {
    pid: child.pid,
    stop() {
      child.kill("SIGKILL");
    },
  };
}
