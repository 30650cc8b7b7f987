// `npm run bench`: measures explore() against execFile, pi.exec and a raw Rust spawn loop, prints
// one table per figure and writes bench/RESULTS.md.
//
//   node bench/run.mjs                 every figure, then RESULTS.md
//   node bench/run.mjs abort flood     only those figures (RESULTS.md is left alone)

import fs from "node:fs";
import path from "node:path";
import { abort } from "./figures/abort.mjs";
import { concurrency } from "./figures/concurrency.mjs";
import { flood } from "./figures/flood.mjs";
import { load } from "./figures/load.mjs";
import { overhead } from "./figures/overhead.mjs";
import { parallel } from "./figures/parallel.mjs";
import { prompt } from "./figures/prompt.mjs";
import { real } from "./figures/real.mjs";
import { tools } from "./figures/tools.mjs";
import { loadPiExec, useAddon } from "./lib/peers.mjs";
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

const FIGURES = { overhead, flood, abort, concurrency, load, real, tools, prompt, parallel };
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
  log(`setup in ${tmp}: compiling the fake CLI, building the Rust floor…`);
  const fake = compileFake(tmp);
  const addon = snapshotAddon(tmp);
  const ctx = { tmp, addon, fake: fake.file, floor: buildFloor(), ws: makeWorkspace(tmp) };
  useAddon(addon.file);
  // explore() reads the executable from the environment at call time.
  process.env.PI_CODEGRAPH_BIN = ctx.fake;
  await loadPiExec();
  const machine = machineInfo(fake, addon);
  const warning = addon.debug
    ? `**Warning: the addon measured is a DEBUG build (${addon.describe}); its figures are not representative. Run \`npm run build\` (release), or point BENCH_ADDON at a release .node${addon.releaseHint ? `, e.g. ${addon.releaseHint}` : ""}.**`
    : null;
  log(`addon: ${addon.describe}`);
  if (warning) console.log(`${warning}\n`);

  const figures = [];
  for (const name of selected) {
    log(`running ${name}…`);
    const t = performance.now();
    const fig = await FIGURES[name](ctx);
    figures.push(fig);
    console.log(`${renderFigure(fig)}\n_(${((performance.now() - t) / 1000).toFixed(1)} s)_\n`);
  }
  if (addon.debug) {
    for (const t of figures.flatMap((f) => f.targets).filter((t) => !t.met && !t.correctness)) {
      t.why = `${DEBUG_WHY} Besides: ${t.why ?? ""}`;
    }
  }
  console.log(`## Targets\n\n${renderTargets(figures)}\n\n${renderMisses(figures)}\n`);
  const elapsed = performance.now() - started;
  machine["load average at end"] = loadAverage();
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
