// `npm run bench`: measures explore() against execFile, pi.exec and a raw Rust spawn loop, prints
// one table per figure and writes bench/RESULTS.md.
//
//   node bench/run.mjs                 every figure, then RESULTS.md
//   node bench/run.mjs abort flood     only those figures (RESULTS.md is left alone)

import fs from "node:fs";
import path from "node:path";
import { renderFigure, renderMisses, renderResults, renderTargets } from "./lib/report.mjs";
import {
  benchDir,
  buildFloor,
  compileFake,
  fakePids,
  killPids,
  loadAverage,
  machineInfo,
  makeWorkspace,
  snapshotAddon,
  tempDir,
} from "./lib/setup.mjs";

/** The figures that need the setup (the fake CLI, the addon, the Rust floor, Pi's exec), in the order they run. */
const NEEDS_SETUP = new Set([
  "overhead",
  "output",
  "flood",
  "abort",
  "concurrency",
  "load",
  "real",
  "tools",
  "prompt",
  "parallel",
]);
/** The figures that need none of it (run alone, they skip it), after those. */
const STANDALONE = [
  "roots",
  "start",
  "cache",
  "answers",
  "walk",
  "core",
  "mcp",
  "autosync",
  "warm",
  "scale",
  "uses",
  "composed",
];
/** Each figure's module, imported when it runs: a figure that needs no addon runs without one. */
const FIGURES = Object.fromEntries(
  [...NEEDS_SETUP, ...STANDALONE].map((name) => [name, async () => (await import(`./figures/${name}.mjs`))[name]]),
);
const DEBUG_WHY =
  "The addon measured is a debug build (opt-level 0): clean_text's VT parser, StdoutCollector::push's byte loops and cut() run unoptimised (with the debug build a 50 KB answer cost ≈ 1.8 ms more than a 200 B one; with the release build ≈ 0.1 ms).";

const wanted = process.argv.slice(2);
for (const name of wanted)
  if (!FIGURES[name]) throw new Error(`unknown figure ${name}; one of ${Object.keys(FIGURES)}`);
const selected = wanted.length ? wanted : Object.keys(FIGURES);

const started = performance.now();
const tmp = tempDir("pi-codegraph-bench-");
const log = (s) => process.stderr.write(`${s}\n`);

try {
  if (fakePids().length) throw new Error("fake CLI processes are already running; stop them first");
  const ctx = { tmp };
  let addon = null;
  let machine = null;
  let warning = null;
  if (selected.every((name) => !NEEDS_SETUP.has(name))) log(`setup in ${tmp}: none needed`);
  else {
    log(`setup in ${tmp}: compiling the fake CLI, building the Rust floor…`);
    const { loadPiExec, useAddon } = await import("./lib/peers.mjs");
    const fake = compileFake(tmp);
    addon = snapshotAddon(tmp);
    Object.assign(ctx, { addon, fake: fake.file, floor: buildFloor(), ws: makeWorkspace(tmp) });
    useAddon(addon.file);
    // explore() reads the executable from the environment at call time.
    process.env.PI_CODEGRAPH_BIN = ctx.fake;
    await loadPiExec();
    machine = machineInfo(fake, addon);
    warning = addon.debug
      ? `**Warning: the addon measured is a DEBUG build (${addon.describe}); its figures are not representative. Run \`npm run build\` (release), or point BENCH_ADDON at a release .node${addon.releaseHint ? `, e.g. ${addon.releaseHint}` : ""}.**`
      : null;
    log(`addon: ${addon.describe}`);
    if (warning) console.log(`${warning}\n`);
  }

  const figures = [];
  for (const name of selected) {
    log(`running ${name}…`);
    const t = performance.now();
    const fig = await (await FIGURES[name]())(ctx);
    figures.push(fig);
    console.log(`${renderFigure(fig)}\n_(${((performance.now() - t) / 1000).toFixed(1)} s)_\n`);
  }
  if (addon?.debug) {
    for (const t of figures.flatMap((f) => f.targets).filter((t) => !t.met && !t.correctness)) {
      t.why = `${DEBUG_WHY} Besides: ${t.why ?? ""}`;
    }
  }
  console.log(`## Targets\n\n${renderTargets(figures)}\n\n${renderMisses(figures)}\n`);
  const elapsed = performance.now() - started;
  if (machine) machine["load average at end"] = loadAverage();
  console.log(`Total ${(elapsed / 1000).toFixed(1)} s.`);
  if (wanted.length === 0) {
    fs.writeFileSync(
      path.join(benchDir, "RESULTS.md"),
      `${renderResults(machine, figures, elapsed, warning).trimEnd()}\n`,
    );
    log("wrote bench/RESULTS.md");
  }
} finally {
  killPids(fakePids());
  fs.rmSync(tmp, { recursive: true, force: true });
}
