// Per-call latency of the tools with auto sync on (one long-lived CodeGraph answers explore and
// node: crates/core/src/warm.rs), with it off (a CodeGraph process per call), and through the bare
// MCP server (`codegraph serve --mcp`, as Pi's own MCP route calls it), on the answers figure's
// indexed corpora and questions (change scenarios aside), in the same run, for each question's two
// plans: explore alone (every step one the server answers; the MCP route's default tool set) and
// the default tools (explore, node, relations, search: relations and search print their own way
// and run as processes with auto on too; the MCP route with all its tools). Per tree and plan: the
// median call after the first, the first call (auto on: the server's start with it), the plan's
// calls end to end, whether every served answer equals the process's byte for byte (the process
// asked first, on the same copy of the tree), the server's peak memory. Auto on and the MCP server
// each run on a copy of the tree (both write in .codegraph/). `node bench/run.mjs warm`.

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { indexedCorpora } from "../lib/corpora.mjs";
import { codegraphVersion } from "../lib/django.mjs";
import { startMcp } from "../lib/mcp-client.mjs";
import { benchDir, root } from "../lib/setup.mjs";
import { median, mib, ms } from "../lib/stats.mjs";
import { ALL_MCP_TOOLS, mcpExplore, mcpFocused } from "./mcp.mjs";

/** The plans asked, each with its MCP configuration (the tools it enables) and how a step maps there. */
const PLANS = [
  { id: "explore", label: "explore alone", steps: (q) => q.plans.explore ?? [], mcpEnv: {}, mcp: mcpExplore },
  {
    id: "focused",
    label: "the default tools",
    steps: (q) => q.plans.focused ?? q.plans.explore ?? [],
    mcpEnv: { CODEGRAPH_MCP_TOOLS: ALL_MCP_TOOLS },
    mcp: (s) => mcpFocused(s) ?? mcpExplore({ args: { request: s.args.name ?? s.args.symbol ?? s.args.to ?? "" } }),
  },
];

const require = createRequire(import.meta.url);
const { exploreCommand, exploreCaps } = require(path.join(root, "lib", "contract", "commands.js"));
const { FOCUSED_NAMES, FOCUSED_TOOLS } = require(path.join(root, "lib", "pi", "tools", "focused.js"));
/** The steps the long-lived CodeGraph answers (the others run as processes with auto on too). */
const SERVED = new Set(["codegraph_explore", "codegraph_node"]);

/**
 * One step through the package, as the tool calls it (`options.warm`: auto sync on): `{ text, warm }`,
 * the text with its full-output file's name (a new temp file each call) as one placeholder.
 */
async function step(pkg, s, cwd, options) {
  const tool = FOCUSED_TOOLS.find((t) => t.name === s.tool);
  const r =
    s.tool === "codegraph_explore"
      ? await pkg.run(exploreCommand(s.args.request, exploreCaps(FOCUSED_NAMES, pkg.limits())), cwd, null, options)
      : await pkg[tool.call](s.args, cwd, null, options);
  const file = r.details.fullOutputPath;
  pkg.releaseFullOutputs(file ? [file] : []);
  return { text: file ? r.text.split(file).join("<full output file>") : r.text, warm: r.details.warm === true };
}

/** Peak resident memory of `pid` (VmHWM), in bytes; null where /proc has none. */
function peakOf(pid) {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))[1];
    return Number(kb) * 1024;
  } catch {
    return null;
  }
}

/** Every step of `questions` in `dir` (`ask(step)` → text), timed: `{ times: [{ ms, served }], texts, wallMs }`. */
async function timed(steps, ask) {
  const times = [];
  const texts = [];
  const started = performance.now();
  for (const s of steps) {
    const t = performance.now();
    const r = await ask(s);
    times.push({ ms: performance.now() - t, served: SERVED.has(s.tool), warm: r.warm === true });
    texts.push(r.text);
  }
  return { times, texts, wallMs: performance.now() - started };
}

export async function warm(ctx) {
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const cgVersion = codegraphVersion();
  process.env.PI_CODEGRAPH_BIN = cli;
  process.env.DO_NOT_TRACK = "1";
  const pkg = require(path.join(root, "index.js"));
  const notes = [];
  const rows = [];
  for (const { corpus, tree } of indexedCorpora(cli, cgVersion, notes)) {
    const questions = JSON.parse(fs.readFileSync(path.join(benchDir, "answers", `${corpus.id}.json`), "utf8")).filter(
      (q) => q.kind !== "changes",
    );
    for (const plan of PLANS) {
      const steps = questions.flatMap((q) => plan.steps(q).slice(0, 3));
      const copy = (name) => {
        const dir = path.join(ctx.tmp, `warm-${corpus.id}-${plan.id}-${name}`);
        fs.cpSync(tree.dir, dir, { recursive: true, preserveTimestamps: true });
        return dir;
      };
      // Both on the same copy, a process per call first (the server writes in .codegraph/).
      const onDir = copy("on");
      const off = await timed(steps, (s) => step(pkg, s, onDir, undefined));
      const on = await timed(steps, (s) => step(pkg, s, onDir, { warm: true }));
      const [server] = pkg.warmServers();
      const serverPeak = server ? peakOf(server.pid) : null;
      await pkg.stopWarm();
      fs.rmSync(onDir, { recursive: true, force: true });
      const mcpDir = copy("mcp");
      const mcpStarted = performance.now();
      const mcpServer = await startMcp(cli, mcpDir, plan.mcpEnv);
      const mcpStart = performance.now() - mcpStarted;
      const bare = await timed(steps, async (s) => {
        const m = plan.mcp(s);
        const args = Object.fromEntries(Object.entries(m.args).filter(([, v]) => v !== undefined));
        return { text: (await mcpServer.call(m.tool, args)).text };
      });
      const mcpPeak = mcpServer.usage().peakBytes;
      await mcpServer.close();
      fs.rmSync(mcpDir, { recursive: true, force: true });

      const servedIdx = steps.map((s, i) => (SERVED.has(s.tool) ? i : -1)).filter((i) => i >= 0);
      const same = servedIdx.filter((i) => on.texts[i] === off.texts[i]).length;
      const warmed = on.times.filter((t) => t.warm).length;
      const after = (r) => median(r.times.slice(1).map((t) => t.ms));
      for (const [label, r, first, peak] of [
        ["auto off: a process per call", off, off.times[0].ms, null],
        [`auto on: ${warmed} of ${steps.length} calls served`, on, on.times[0].ms, serverPeak],
        [
          `bare MCP server${plan.id === "focused" ? ", all its tools" : ""}`,
          bare,
          mcpStart + bare.times[0].ms,
          mcpPeak,
        ],
      ]) {
        rows.push([
          corpus.id,
          plan.label,
          label,
          ms(after(r)),
          ms(first),
          `${(r.wallMs / 1000).toFixed(2)} s`,
          r === on ? `${same} of ${servedIdx.length}` : "",
          peak ? mib(peak) : "",
        ]);
      }
    }
  }
  notes.push(
    "Median call: after the first (which, auto on, starts the server; the MCP server's first includes its start too). Served: explore and node, the calls the long-lived CodeGraph answers (relations and search print their own way and run as processes with auto on too); the bare MCP server's steps are its own tools of the same kind (an explore where it has none).",
    "Identical: the served answers that equal the process's answer to the same call, byte for byte (both run CodeGraph's ToolHandler with the same arguments; what differs is whether the process is new).",
    "End to end: every call of the plan over the tree's questions, in order, the first call's start included.",
  );
  return {
    title:
      "Per-call latency: auto sync on (one long-lived CodeGraph) vs off (a process per call) vs the bare MCP server",
    about: `CodeGraph ${cgVersion}. The answers figure's questions (change scenarios aside) on tokio, Django and effect, each configuration in this run.`,
    tables: [
      {
        caption: "Per tree and configuration",
        head: [
          "tree",
          "plan",
          "configuration",
          "median call",
          "first call",
          "end to end",
          "identical to the process",
          "server peak memory",
        ],
        rows,
      },
    ],
    notes,
    targets: [],
  };
}
