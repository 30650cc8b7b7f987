// This extension beside Pi's own MCP route to CodeGraph (`pi mcp add codegraph -- codegraph serve
// --mcp`): the answers figure's questions (bench/answers/*.json, the change scenarios aside: the
// MCP server has no tool for them) asked through CodeGraph's MCP server over stdio as Pi's MCP
// client calls it, with its default tool set (codegraph_explore) and with all its tools
// (CODEGRAPH_MCP_TOOLS), beside this extension's default, on the same indexed trees in this run.
// Per configuration: the questions answered fully and the items found (scored as the answers
// figure scores them), the answers' KB per question, the median time per call, what its tool
// definitions add to every request, the processes and memory, and what was written in the index
// directory during a session that only reads. `node bench/run.mjs mcp`.

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { CORPORA, corpusTree } from "../lib/corpora.mjs";
import { codegraphVersion } from "../lib/django.mjs";
import { startMcp } from "../lib/mcp-client.mjs";
import { benchDir, root } from "../lib/setup.mjs";
import { median, mib, ms } from "../lib/stats.mjs";
import { call, names, promptCosts } from "./answers.mjs";

const require = createRequire(import.meta.url);
const { FOCUSED_NAMES } = require(path.join(root, "lib", "pi", "tools", "focused.js"));
/** Every tool of CodeGraph 1.6.1's MCP server (its mcp/tools.js). */
export const ALL_MCP_TOOLS = "search,callers,callees,impact,node,explore,status,files";

/** An explore step as the MCP server's codegraph_explore takes it. */
export const mcpExplore = (step) => ({ tool: "codegraph_explore", args: { query: step.args.request } });
/** A focused step as the MCP server's own tool of the same kind takes it; null where it has none (path, changes). */
export function mcpFocused(step) {
  const { tool, args } = step;
  if (tool === "codegraph_explore") return mcpExplore(step);
  if (tool === "codegraph_relations" && args.relation !== "path") {
    const { relation, symbol, file, limit, depth } = args;
    return { tool: `codegraph_${relation}`, args: { symbol, file, limit, depth } };
  }
  if (tool === "codegraph_node") {
    const { symbol, file, offset, limit, outline } = args;
    return { tool, args: { symbol, file, offset, limit, symbolsOnly: outline, includeCode: true } };
  }
  if (tool === "codegraph_search") return { tool, args: { query: args.name, kind: args.kind, limit: args.limit } };
  return null;
}
/** The steps a configuration asks for question `q` (at most 3, as the answers figure's). */
const PLANS = {
  ours: (q) => q.plans.focused ?? q.plans.explore,
  "mcp-default": (q) => (q.plans.explore ?? []).map(mcpExplore),
  "mcp-all": (q) => {
    const mapped = (q.plans.focused ?? []).map(mcpFocused);
    return mapped.length && mapped.every(Boolean) ? mapped : (q.plans.explore ?? []).map(mcpExplore);
  },
};
const CONFIGS = [
  { id: "ours", label: "pi-codegraph (its default: explore + node, relations, search, changes)" },
  { id: "mcp-default", label: "MCP route, CodeGraph's default tools (codegraph_explore)", env: {} },
  { id: "mcp-all", label: "MCP route, all CodeGraph's tools", env: { CODEGRAPH_MCP_TOOLS: ALL_MCP_TOOLS } },
];

/** `{ file: "size mtime" }` of the index directory, to see what a session wrote there. */
function indexFiles(dir) {
  const index = path.join(dir, ".codegraph");
  return Object.fromEntries(
    fs.readdirSync(index).map((f) => {
      const st = fs.statSync(path.join(index, f));
      return [f, `${st.size} ${st.mtimeMs}`];
    }),
  );
}
/** The files of the index directory written or added between two listings. */
const writtenBetween = (before, after) => Object.keys(after).filter((f) => before[f] !== after[f]);

/** What Pi sends per request for `tools`, exposed directly: `{ name, description, input_schema }` each (pi-ai's Anthropic shape). */
const mcpDefinitionBytes = (tools) =>
  Buffer.byteLength(
    JSON.stringify(
      tools.map((t) => ({
        name: `mcp__codegraph__${t.name}`,
        description: t.description,
        input_schema: t.inputSchema,
      })),
    ),
  );

/** One configuration over `questions` in `dir`: per question `{ found, items, bytes, calls, failed }`, the calls' times, and what it cost. */
async function runConfig(config, pkg, cli, dir, questions) {
  const before = indexFiles(dir);
  const server = config.env ? await startMcp(cli, dir, config.env) : null;
  const times = [];
  const rows = [];
  let usage = null;
  let definitions = null;
  try {
    if (server) definitions = mcpDefinitionBytes(await server.tools());
    for (const q of questions) {
      const texts = [];
      let failed = 0;
      for (const step of PLANS[config.id](q).slice(0, 3)) {
        const started = performance.now();
        const answer = server
          ? await server.call(
              step.tool,
              Object.fromEntries(Object.entries(step.args).filter(([, v]) => v !== undefined)),
            )
          : await call(pkg, step, dir, FOCUSED_NAMES);
        times.push(performance.now() - started);
        if (answer.failed) failed += 1;
        texts.push(answer.text);
      }
      const all = texts.join("\n");
      rows.push({
        found: q.truth.filter((item) => names(all, item)).length,
        items: q.truth.length,
        bytes: Buffer.byteLength(all),
        calls: texts.length,
        failed,
      });
    }
    if (server) usage = server.usage();
  } finally {
    await server?.close();
  }
  return { rows, times, usage, definitions, written: writtenBetween(before, indexFiles(dir)) };
}

export async function mcp(ctx) {
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const cgVersion = codegraphVersion();
  process.env.PI_CODEGRAPH_BIN = cli;
  process.env.DO_NOT_TRACK = "1";
  const pkg = require(path.join(root, "index.js"));
  const notes = [];
  const results = Object.fromEntries(
    CONFIGS.map((c) => [c.id, { rows: [], times: [], usage: [], definitions: [], written: new Set() }]),
  );
  for (const corpus of CORPORA) {
    const questions = JSON.parse(fs.readFileSync(path.join(benchDir, "answers", `${corpus.id}.json`), "utf8")).filter(
      (q) => q.kind !== "changes",
    );
    const tree = corpusTree(corpus, cli, cgVersion);
    if (tree.skip) {
      notes.push(`${corpus.what}: skipped: ${tree.skip}`);
      continue;
    }
    // The MCP server writes in the index directory: each of its sessions gets a copy of the tree.
    for (const config of CONFIGS) {
      const dir = config.env ? path.join(ctx.tmp, `mcp-${corpus.id}-${config.id}`) : tree.dir;
      if (config.env) fs.cpSync(tree.dir, dir, { recursive: true, preserveTimestamps: true });
      const r = await runConfig(config, pkg, cli, dir, questions);
      const into = results[config.id];
      into.rows.push(...r.rows);
      into.times.push(...r.times);
      if (r.usage) into.usage.push(r.usage);
      if (r.definitions !== null) into.definitions.push(r.definitions);
      for (const f of r.written) into.written.add(f);
      if (config.env) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const costs = await promptCosts(path.join(ctx.tmp, "mcp-prompt"), cli);
  const table = CONFIGS.map((config) => {
    const r = results[config.id];
    const full = r.rows.filter((row) => row.found === row.items).length;
    const found = r.rows.reduce((n, row) => n + row.found, 0);
    const items = r.rows.reduce((n, row) => n + row.items, 0);
    const kb = r.rows.reduce((n, row) => n + row.bytes, 0) / 1024 / Math.max(1, r.rows.length);
    const prompt = config.env ? Math.max(...r.definitions) : costs.focused;
    const memory = config.env
      ? `${Math.max(...r.usage.map((u) => u.processes))} process, peak ${mib(Math.max(...r.usage.map((u) => u.peakBytes)))}`
      : "one CodeGraph per call, none between calls";
    const written = r.written.size ? [...r.written].sort().join(", ") : "nothing";
    const calls = r.rows.reduce((n, row) => n + row.calls, 0);
    const failed = r.rows.reduce((n, row) => n + row.failed, 0);
    return [
      config.label,
      `${full} of ${r.rows.length}`,
      `${found} of ${items}`,
      `${calls} (${failed} failed)`,
      kb.toFixed(1),
      ms(median(r.times)),
      `${prompt}`,
      memory,
      written,
    ];
  });
  notes.push(
    "Questions: the answers figure's, without its change scenarios (the MCP server has no tool for uncommitted changes); a call-path question's plan with all CodeGraph's tools is its explore plan (CodeGraph's MCP tools have no path).",
    "Prompt bytes: this extension's is what its tools and guidance add to Pi's request, built as the pinned Pi builds it (the answers figure's); the MCP route's is its tool definitions as Pi sends them with `--exposure direct` (the largest over the three trees; Pi's default exposure, codemode, declares no MCP tool and reaches them through its own tool, at more turns per question).",
    "The MCP server ran as one process (CODEGRAPH_NO_DAEMON=1; by default it also starts a detached daemon that stays 5 minutes after the session) without telemetry (DO_NOT_TRACK=1), each session on a copy of the indexed tree.",
  );
  return {
    title: "This extension beside Pi's MCP route to CodeGraph (`codegraph serve --mcp`)",
    about: `CodeGraph ${cgVersion}. The same questions on tokio, Django and effect through this extension's calls and through CodeGraph's MCP server over stdio (initialize with roots, tools/list, tools/call, as Pi's MCP client does); scored as the answers figure scores them.`,
    tables: [
      {
        caption: "Per configuration",
        head: [
          "configuration",
          "answered fully",
          "items found",
          "calls",
          "KB / question",
          "ms / call (median)",
          "prompt bytes / request",
          "processes, memory",
          "written in .codegraph/",
        ],
        rows: table,
      },
    ],
    notes,
    targets: [],
  };
}
