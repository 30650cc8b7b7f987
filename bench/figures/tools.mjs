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
const PAIRS = 10;
const TARGET = 1.08;
/** What the runner adds to the child's environment (DO_NOT_TRACK stands for CODEGRAPH_TELEMETRY=0), as in real.mjs. */
const QUIET = { DO_NOT_TRACK: "1", CODEGRAPH_NO_UPDATE_CHECK: "1", CODEGRAPH_NO_DOWNLOAD: "1", NO_COLOR: "1" };
const CASES = [
  { label: "node: symbol", call: "node", command: "nodeCommand", params: { symbol: "checkout" } },
  {
    label: "node: file outline",
    call: "node",
    command: "nodeCommand",
    params: { file: "src/cart.ts", outline: true },
  },
  {
    label: "relations: callers",
    call: "relations",
    command: "relationsCommand",
    params: { relation: "callers", symbol: "charge" },
  },
  {
    label: "relations: impact",
    call: "relations",
    command: "relationsCommand",
    params: { relation: "impact", symbol: "charge" },
  },
  { label: "search", call: "search", command: "searchCommand", params: { name: "Service" } },
];

/** The argv the runner gives the CLI for a command description (lib/backends/node/command.js commandArgv). */
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
  const text = await run();
  return { ms: performance.now() - t, text };
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
    const commands = require(path.join(root, "lib", "commands.js"));
    const env = { ...process.env, ...QUIET };
    const rows = [];
    const targets = [];
    const same = [];
    let launcherShown;
    for (const c of CASES) {
      const argv = argvOf(commands[c.command](c.params));
      const tool = () => pkg[c.call](c.params, dir).then((r) => r.text);
      // Warm-up: also tells which launcher the tool ran.
      const warm = await pkg[c.call](c.params, dir);
      const launcher = warm.details.executable;
      launcherShown ??= path.relative(root, launcher);
      const direct = () => viaLauncher(launcher, argv, dir, env);
      await direct();
      const t = [];
      const l = [];
      const pairRatios = [];
      let toolText = warm.text;
      let directText;
      for (let i = 0; i < PAIRS; i++) {
        const first = i % 2 === 0;
        const a = first ? await timed(tool) : await timed(direct);
        const b = first ? await timed(direct) : await timed(tool);
        const [x, y] = first ? [a, b] : [b, a];
        t.push(x.ms);
        l.push(y.ms);
        pairRatios.push(x.ms / y.ms);
        toolText = x.text;
        directText = y.text;
      }
      const identical = toolText === directText;
      same.push(identical);
      const tm = median(t);
      const lm = median(l);
      rows.push([
        c.label,
        `\`codegraph ${argv.join(" ")}\``,
        Buffer.byteLength(toolText),
        identical ? "yes" : "**no**",
        ms(tm),
        ms(lm),
        ms(percentile(t, 90)),
        ms(percentile(l, 90)),
        ratio(tm, lm),
        `${median(pairRatios).toFixed(3)}×`,
        `${tm - lm >= 0 ? "+" : ""}${ms(tm - lm)}`,
      ]);
      targets.push({
        what: `focused tool (${c.label}): ${c.call}() / CodeGraph's own launcher, median wall`,
        target: `≤ ${TARGET.toFixed(2)}×`,
        measured: `${ratio(tm, lm)} (pairs: ${median(pairRatios).toFixed(3)}×)`,
        met: tm / lm <= TARGET,
        why: `${c.call}() runs the same launcher with the same argv; what it adds is the argument check, discovery, preflight, the environment filter, caps and cleaning: here ${ms(tm - lm)} ms of a ${ms(lm)} ms run; ${TARGET.toFixed(2)}× allows ${ms(lm * (TARGET - 1))} ms. On this 2-core machine the CLI's own start-up varies by a few per cent between runs.`,
      });
    }
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
      about: `The shop fixture: \`codegraph init -y .\` on a temp copy took ${ms(initMs)} ms. Each case: index.js's exported call (\`node\`, \`relations\` or \`search\`, the functions the tools' execute() calls) against CodeGraph's own launcher (${launcherShown}, the platform bundle's \`bin/codegraph\` that the npm shim execs and the call ran) started directly with execFile, the argv the call's command description gives (lib/commands.js) and the quiet environment the runner sets. One warm-up each, then ${PAIRS} pairs whose order alternates; the target is the ratio of the median walls (the median of the pairs' own ratios in brackets). The answers of the last pair are compared byte for byte: the copy is freshly indexed, so no stale-files line is added.`,
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
          ],
          rows,
        },
      ],
      notes: [],
      targets,
    };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
