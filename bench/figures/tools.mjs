// The focused tools' per-call overhead: each of index.js's node(), relations() and search() on an
// indexed copy of the shop fixture against CodeGraph's own launcher (the platform bundle's
// bin/codegraph that the npm shim execs, what the call itself ran) started directly with the
// same argv and the quiet environment the runner sets. Calls go in pairs whose order alternates,
// and the answers must be the same bytes.

import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { DRAIN_BYTES, TIMEOUT_MS } from "../lib/peers.mjs";
import { indexShop, root } from "../lib/setup.mjs";
import { median, ms, percentile, ratio } from "../lib/stats.mjs";

const require = createRequire(import.meta.url);
const PAIRS = 20;
/** The tool's wall outside the CLI's run, as a share of a call (as parallel.mjs's explore row). */
const OUTSIDE_SHARE = 0.02;
const TARGET = 1.08;
/** What the runner adds to the child's environment (the figure sets DO_NOT_TRACK=1 for the whole bench, as real.mjs does). */
const QUIET = {
  DO_NOT_TRACK: "1",
  CODEGRAPH_TELEMETRY: "0",
  CODEGRAPH_NO_UPDATE_CHECK: "1",
  CODEGRAPH_NO_DOWNLOAD: "1",
  NO_COLOR: "1",
};
const CASES = [
  { label: "node: symbol", call: "node", tool: "codegraph_node", params: { symbol: "checkout" } },
  {
    label: "node: file outline",
    call: "node",
    tool: "codegraph_node",
    params: { file: "src/cart.ts", outline: true },
  },
  {
    label: "relations: callers",
    call: "relations",
    tool: "codegraph_relations",
    params: { relation: "callers", symbol: "charge" },
  },
  {
    label: "relations: impact",
    call: "relations",
    tool: "codegraph_relations",
    params: { relation: "impact", symbol: "charge" },
  },
  { label: "search", call: "search", tool: "codegraph_search", params: { name: "Service" } },
];

/** The argv the runner gives the CLI for a command description (crates/core/src/command.rs `argv`). */
const argvOf = ({ subcommand, options, positional }) =>
  positional === undefined ? [subcommand, ...options] : [subcommand, ...options, "--", positional];

function viaLauncher(launcher, argv, cwd, env) {
  return new Promise((resolve, reject) => {
    execFile(
      launcher,
      argv,
      { cwd, env, maxBuffer: DRAIN_BYTES, timeout: TIMEOUT_MS, encoding: "utf8" },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

async function timed(run) {
  const t = performance.now();
  const out = await run();
  return { ms: performance.now() - t, ...out };
}

export async function tools(ctx) {
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const saved = { PI_CODEGRAPH_BIN: process.env.PI_CODEGRAPH_BIN, DO_NOT_TRACK: process.env.DO_NOT_TRACK };
  process.env.PI_CODEGRAPH_BIN = cli;
  process.env.DO_NOT_TRACK = "1";
  const parent = path.join(ctx.tmp, "tools");
  fs.mkdirSync(parent, { recursive: true });
  try {
    const { dir, initMs } = indexShop(parent, cli);
    const pkg = require(path.join(root, "index.js"));
    const { toolRow } = require(path.join(root, "lib", "contract", "tools.js"));
    const env = { ...process.env, ...QUIET };
    const rows = [];
    const targets = [];
    const same = [];
    const shares = [];
    let launcherShown;
    for (const c of CASES) {
      const argv = argvOf(toolRow(c.tool).command(c.params));
      const outside = [];
      // The CLI's run as the runner timed it (spawn to exit), for the wall outside it.
      const tool = () =>
        pkg[c.call](c.params, dir).then((r) => ({ text: r.text, runMs: r.details.runMs ?? r.details.durationMs }));
      // Warm-up: also tells which launcher the tool ran.
      const warm = await pkg[c.call](c.params, dir);
      const launcher = warm.details.executable;
      launcherShown ??= launcher.slice(launcher.lastIndexOf("node_modules"));
      const direct = () => viaLauncher(launcher, argv, dir, env).then((text) => ({ text }));
      await direct();
      const t = [];
      const l = [];
      const pairRatios = [];
      let identical = true;
      for (let i = 0; i < PAIRS; i++) {
        const first = i % 2 === 0;
        const a = first ? await timed(tool) : await timed(direct);
        const b = first ? await timed(direct) : await timed(tool);
        const [x, y] = first ? [a, b] : [b, a];
        t.push(x.ms);
        outside.push(x.ms - x.runMs);
        l.push(y.ms);
        pairRatios.push(x.ms / y.ms);
        identical &&= x.text === y.text && x.text === warm.text;
      }
      same.push(identical);
      const tm = median(t);
      const lm = median(l);
      rows.push([
        c.label,
        `\`codegraph ${argv.join(" ")}\``,
        Buffer.byteLength(warm.text),
        identical ? "yes" : "**no**",
        ms(tm),
        ms(lm),
        ms(percentile(t, 90)),
        ms(percentile(l, 90)),
        ratio(tm, lm),
        `${median(pairRatios).toFixed(3)}×`,
        `${tm - lm >= 0 ? "+" : ""}${ms(tm - lm)}`,
        ms(median(outside)),
      ]);
      const paired = median(pairRatios);
      shares.push({ label: c.label, outside: median(outside), share: median(outside) / tm });
      targets.push({
        what: `focused tool (${c.label}): ${c.call}() / CodeGraph's own launcher, median of paired wall ratios`,
        target: `≤ ${TARGET.toFixed(2)}×`,
        measured: `${paired.toFixed(3)}× (medians: ${ratio(tm, lm)})`,
        met: paired <= TARGET,
        why: `${c.call}() runs the same launcher with the same argv; what it adds is the argument check, discovery, preflight, the environment filter, caps and cleaning: here ${ms(tm - lm)} ms of a ${ms(lm)} ms run; ${TARGET.toFixed(2)}× allows ${ms(lm * (TARGET - 1))} ms. The tool's wall outside the CLI's run (wall − details.runMs) was ${ms(median(outside))} ms (median): the rest of the difference is the CLI's own run-to-run variance, which on this shared 2-core machine is several per cent.`,
      });
    }
    const worst = shares.reduce((a, b) => (b.share > a.share ? b : a));
    targets.push({
      what: "focused tools: wall outside the CLI's run (wall − details.runMs), share of a call, worst case",
      target: `≤ ${OUTSIDE_SHARE * 100}%`,
      measured: `${(worst.share * 100).toFixed(2)}% (${worst.label}: ${ms(worst.outside)} ms)`,
      met: worst.share <= OUTSIDE_SHARE,
      why: "what the call adds around the CLI's process (napi call, argument check, discovery, preflight, the hops to and from the runner's thread) should stay a small share of a call.",
    });
    targets.push({
      what: "focused tools: identical answer bytes, tool against the launcher",
      target: `${CASES.length} of ${CASES.length}`,
      measured: `${same.filter(Boolean).length} of ${CASES.length}`,
      met: same.every(Boolean),
      correctness: true,
      why: "the tool must give the launcher the argv and environment the runner promises, and add nothing to a fresh index's answer (the stale-files line appears only after files changed).",
    });
    return {
      title: "Focused tools against CodeGraph's launcher (CodeGraph 1.6.1)",
      about: `The shop fixture: \`codegraph init -y .\` on a temp copy took ${ms(initMs)} ms. Each case: index.js's exported call (\`node\`, \`relations\` or \`search\`, the functions the tools' execute() calls) against CodeGraph's own launcher (${launcherShown}, the platform bundle's \`bin/codegraph\` that the npm shim execs and the call ran) started directly with execFile, the argv the call's command description gives (the tool's row, lib/contract/tools.js) and the quiet environment the runner sets. One warm-up each, then ${PAIRS} pairs whose order alternates; the target is the median of the pairs' wall ratios, which cancels drift between pairs better than the ratio of the medians (shown too). Every pair's two answers (and the warm-up's) are compared byte for byte: the copy is freshly indexed, so no stale-files line is added.`,
      tables: [
        {
          caption: "Per call on the shop fixture, ms",
          head: [
            "case",
            "argv",
            "answer bytes",
            "identical",
            "tool median",
            "launcher median",
            "tool p90",
            "launcher p90",
            "tool / launcher",
            "median of pair ratios",
            "added ms",
            "tool outside the CLI's run ms ¹",
          ],
          rows,
        },
      ],
      notes: [
        "¹ the tool's wall minus the CLI's run as the runner timed it (details.runMs: spawn to exit), median: what the call adds around the process (napi call, argument check, discovery, preflight, the hops to and from the runner's thread), which the CLI's run-to-run variance does not blur.",
      ],
      targets,
    };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
