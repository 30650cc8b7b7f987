// Answer quality per tool configuration, on real code: for each question of bench/answers/*.json
// (written from the sources: the symbols a complete answer names, with file:line), each
// configuration's scripted plan (at most 3 calls, chosen up front from the tools' own
// descriptions, as a capable model would; bench/answers/README.md) runs through the package's
// calls, which return what the registered tools return. An item counts as found when the answers
// name its symbol and its file; a question is answered fully when every item is found. The prompt
// cost is what the configuration's tool definitions and guidance add to every request, built as
// the pinned Pi builds it (bench/figures/prompt.mjs).

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { CORPORA, corpusTree } from "../lib/corpora.mjs";
import { codegraphVersion } from "../lib/django.mjs";
import { renderFigure } from "../lib/report.mjs";
import { benchDir, indexShop, root } from "../lib/setup.mjs";
import { piParts, requestWith } from "./prompt.mjs";

const require = createRequire(import.meta.url);
const { exploreCaps, exploreCommand } = require(path.join(root, "lib", "contract", "commands.js"));
const { FOCUSED_NAMES } = require(path.join(root, "lib", "pi", "tools", "focused.js"));
const QUESTIONS_DIR = path.join(benchDir, "answers");
/** The configurations: the plan each question has for it, and the tools Pi is given. */
export const CONFIGS = [
  { id: "explore", label: "explore alone", plan: "explore", tools: "none", active: [] },
  {
    id: "focused",
    label: "explore + node, relations, search",
    plan: "focused",
    tools: "all",
    active: FOCUSED_NAMES,
  },
];
/** The default's targets (issue 33): questions answered fully, KB per question with the definitions. */
const FULL_TARGET = 0.7;
const KB_TARGET = 12;

const kb = (bytes) => (bytes / 1024).toFixed(1);
const pct = (n, of) => `${of ? Math.round((100 * n) / of) : 0}%`;
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");

/** Whether `text` names `item`'s symbol (as a whole identifier) and its file. */
export function names(text, item) {
  const symbol = new RegExp(`(?<![\\w$])${escapeRegExp(item.symbol)}(?![\\w$])`, "u");
  return symbol.test(text) && text.includes(item.path);
}

/**
 * Each tool's call on the package: what the registered tool returns for these arguments with the
 * configuration's tools on (`active`: explore's caps follow them, lib/pi/tools/registration.js).
 */
const CALLS = {
  codegraph_explore: (pkg, args, cwd, active) =>
    pkg.run(exploreCommand(args.request, exploreCaps(active, pkg.limits())), cwd),
  codegraph_node: (pkg, args, cwd) => pkg.node(args, cwd),
  codegraph_relations: (pkg, args, cwd) => pkg.relations(args, cwd),
  codegraph_search: (pkg, args, cwd) => pkg.search(args, cwd),
};

/** One planned call through the package (the text the tool would return; a failure's words). */
async function call(pkg, step, cwd, active) {
  try {
    return (await CALLS[step.tool](pkg, step.args, cwd, active)).text;
  } catch (err) {
    return `${err.code ?? "Error"}: ${err.message}`;
  }
}

/** What each configuration's tools add to every request, in bytes (system prompt + tool definitions). */
async function promptCosts(tmp, cli) {
  const saved = { tools: process.env.PI_CODEGRAPH_TOOLS, agent: process.env.PI_CODING_AGENT_DIR };
  process.env.PI_CODING_AGENT_DIR = path.join(tmp, "agent");
  try {
    const { dir } = indexShop(tmp, cli);
    const { peers, piModule, buildSystemPrompt } = await piParts();
    const size = (r) => Buffer.byteLength(r.systemPrompt) + Buffer.byteLength(r.tools);
    const none = { createExtension: () => () => {} };
    const base = size(await requestWith(none, peers, piModule, buildSystemPrompt, dir));
    const costs = {};
    for (const config of CONFIGS) {
      process.env.PI_CODEGRAPH_TOOLS = config.tools;
      const pkg = require(path.join(root, "index.js"));
      costs[config.id] = size(await requestWith(pkg, peers, piModule, buildSystemPrompt, dir)) - base;
    }
    return costs;
  } finally {
    for (const [k, v] of [
      ["PI_CODEGRAPH_TOOLS", saved.tools],
      ["PI_CODING_AGENT_DIR", saved.agent],
    ]) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Runs every question of `corpus` in `dir` under every configuration. */
async function runCorpus(pkg, corpus, dir, questions) {
  const rows = [];
  for (const q of questions) {
    const row = { corpus: corpus.id, id: q.id, kind: q.kind, items: q.truth.length, by: {} };
    for (const config of CONFIGS) {
      const plan = q.plans[config.plan] ?? [];
      const texts = [];
      for (const step of plan.slice(0, 3)) texts.push(await call(pkg, step, dir, config.active));
      const all = texts.join("\n");
      const found = q.truth.filter((item) => names(all, item)).length;
      row.by[config.id] = { calls: texts.length, bytes: Buffer.byteLength(all), found };
    }
    rows.push(row);
  }
  return rows;
}

export async function answers(ctx) {
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const cgVersion = codegraphVersion();
  const savedBin = process.env.PI_CODEGRAPH_BIN;
  process.env.PI_CODEGRAPH_BIN = cli;
  process.env.DO_NOT_TRACK = "1";
  try {
    const parent = path.join(ctx.tmp, "answers");
    fs.mkdirSync(parent, { recursive: true });
    const costs = await promptCosts(parent, cli);
    const pkg = require(path.join(root, "index.js"));
    const rows = [];
    const notes = [];
    for (const corpus of CORPORA) {
      const file = path.join(QUESTIONS_DIR, `${corpus.id}.json`);
      if (!fs.existsSync(file)) {
        notes.push(`${corpus.what}: no questions (${path.relative(root, file)} is missing).`);
        continue;
      }
      const tree = corpusTree(corpus, cli, cgVersion);
      if (tree.skip) {
        notes.push(`${corpus.what}: skipped: ${tree.skip}`);
        continue;
      }
      const how = tree.cached ? `cached, indexed ${tree.indexedAt}` : "indexed in this run";
      notes.push(`${corpus.what}: ${tree.graph ?? "indexed"}; init ${(tree.initMs / 1000).toFixed(0)} s (${how}).`);
      rows.push(...(await runCorpus(pkg, corpus, tree.dir, JSON.parse(fs.readFileSync(file, "utf8")))));
    }
    const figure = report(rows, costs, notes, cgVersion);
    // The figure as run, kept beside its module (docs/tools.md quotes it).
    fs.writeFileSync(path.join(benchDir, "figures", "answers.md"), `${renderFigure(figure).trimEnd()}\n`);
    return figure;
  } finally {
    if (savedBin === undefined) delete process.env.PI_CODEGRAPH_BIN;
    else process.env.PI_CODEGRAPH_BIN = savedBin;
  }
}

function summary(rows, config, costs) {
  const n = rows.length;
  const by = rows.map((r) => r.by[config.id]);
  const items = rows.reduce((s, r) => s + r.items, 0);
  const found = by.reduce((s, b) => s + b.found, 0);
  const full = rows.filter((r) => r.by[config.id].found === r.items).length;
  const bytes = by.reduce((s, b) => s + b.bytes, 0) / (n || 1);
  const calls = by.reduce((s, b) => s + b.calls, 0) / (n || 1);
  return { n, items, found, full, bytes, calls, withPrompt: bytes + costs[config.id] };
}

function report(rows, costs, notes, cgVersion) {
  const sums = CONFIGS.map((c) => ({ config: c, ...summary(rows, c, costs) }));
  const focused = sums.find((s) => s.config.id === "focused");
  return {
    title: "Answers on real code, per tool configuration",
    about:
      `${rows.length} questions on ${CORPORA.map((c) => c.id).join(", ")} (bench/answers/*.json: ground truth read from the sources, symbols with file:line), ` +
      `each configuration's scripted plan of at most 3 calls through the package's calls against CodeGraph ${cgVersion}. ` +
      "An item is found when the answers name its symbol and its file; a question is answered fully when all its items are. " +
      "KB per question counts the answers' bytes, then adds the configuration's prompt cost once (what its tool definitions and guidance add to a request: Pi sends them with every request, a cached prefix after the first).",
    tables: [
      {
        caption: "Per configuration",
        head: [
          "configuration",
          "answered fully",
          "items found",
          "calls / question",
          "answer KB / question",
          "prompt KB / request",
          "KB / question with the prompt",
        ],
        rows: sums.map((s) => [
          s.config.label,
          `${s.full} of ${s.n} (${pct(s.full, s.n)})`,
          `${s.found} of ${s.items} (${pct(s.found, s.items)})`,
          s.calls.toFixed(1),
          kb(s.bytes),
          kb(costs[s.config.id]),
          kb(s.withPrompt),
        ]),
      },
      {
        caption: "Per kind of question (answered fully, items found, answer KB per question)",
        head: ["kind", "questions", ...CONFIGS.map((c) => c.label)],
        rows: [...new Set(rows.map((r) => r.kind))].map((kind) => {
          const of = rows.filter((r) => r.kind === kind);
          return [
            kind,
            of.length,
            ...CONFIGS.map((c) => {
              const s = summary(of, c, costs);
              return `${s.full}, ${s.found}/${s.items}, ${kb(s.bytes)} KB`;
            }),
          ];
        }),
      },
      {
        caption: "Per question (items found of the truth's, answer KB)",
        head: ["question", "kind", ...CONFIGS.map((c) => c.label)],
        rows: rows.map((r) => [
          r.id,
          r.kind,
          ...CONFIGS.map((c) => `${r.by[c.id].found}/${r.items}, ${kb(r.by[c.id].bytes)} KB in ${r.by[c.id].calls}`),
        ]),
      },
    ],
    notes,
    targets: focused
      ? [
          {
            what: `answers (${focused.config.label}): questions answered fully in ≤ 3 calls`,
            target: `≥ ${FULL_TARGET * 100}%`,
            measured: pct(focused.full, focused.n),
            met: focused.n > 0 && focused.full / focused.n >= FULL_TARGET,
          },
          {
            what: `answers (${focused.config.label}): KB per question, the prompt cost included`,
            target: `≤ ${KB_TARGET}`,
            measured: kb(focused.withPrompt),
            met: focused.n > 0 && focused.withPrompt / 1024 <= KB_TARGET,
          },
        ]
      : [],
  };
}
