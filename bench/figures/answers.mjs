// Answer quality per tool configuration, on real code: for each question of bench/answers/*.json
// (written from the sources: the symbols a complete answer names, with file:line), each
// configuration's scripted plan (at most 3 calls, chosen up front from the tools' own
// descriptions, as a capable model would; bench/answers/README.md) runs through the package's
// calls, which return what the registered tools return. A plan uses only names the question or an
// earlier answer gives (bench/lib/plans.mjs refuses any other). An item counts as found when the
// answers name its symbol and its file; a question is answered fully when every item is found.
// Change scenarios (kind "changes") run in a git copy of the indexed tree with their edit applied
// (bench/lib/changes.mjs). Every place the product asserts in its own words is checked against the
// source (bench/lib/claims.mjs). The prompt cost is what the configuration's tool definitions and
// guidance add to every request, built as the pinned Pi builds it (bench/figures/prompt.mjs).

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { answersFigure } from "../lib/answers-report.mjs";
import { applyEdits, changesTree, removeTree, syncedToo } from "../lib/changes.mjs";
import { checkClaims } from "../lib/claims.mjs";
import { CORPORA, corpusTree } from "../lib/corpora.mjs";
import { codegraphVersion } from "../lib/django.mjs";
import { checkPlans, unmetSources } from "../lib/plans.mjs";
import { renderFigure } from "../lib/report.mjs";
import { benchDir, indexShop, root } from "../lib/setup.mjs";
import { piParts, requestWith } from "./prompt.mjs";

const require = createRequire(import.meta.url);
const { exploreCaps, exploreCommand } = require(path.join(root, "lib", "contract", "commands.js"));
const { FOCUSED_NAMES, FOCUSED_TOOLS } = require(path.join(root, "lib", "pi", "tools", "focused.js"));
const QUESTIONS_DIR = path.join(benchDir, "answers");
const WITHOUT_CHANGES = FOCUSED_TOOLS.filter((t) => t.name !== "codegraph_changes");
/** The configurations: the plan each question has for it, and the tools Pi is given. */
export const CONFIGS = [
  { id: "explore", label: "explore alone", plan: "explore", tools: "none", active: [] },
  {
    // The default before issue 45 (without codegraph_changes), beside all four (today's default,
    // lib/pi/tools/choice.js): a question whose focused plan needs a tool this set lacks is asked
    // with its explore plan, as a model without that tool would.
    id: "without-changes",
    label: `explore + ${WITHOUT_CHANGES.map((t) => t.short).join(", ")}`,
    plan: "focused",
    fallback: "explore",
    tools: WITHOUT_CHANGES.map((t) => t.short).join(","),
    active: WITHOUT_CHANGES.map((t) => t.name),
  },
  {
    id: "focused",
    label: `explore + ${FOCUSED_TOOLS.map((t) => t.short).join(", ")} (the default)`,
    plan: "focused",
    tools: "all",
    active: FOCUSED_NAMES,
  },
];
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");

/** Whether `text` names `item`'s symbol (as a whole identifier) and its file (a test file: its path alone). */
export function names(text, item) {
  if (!item.symbol) return text.includes(item.path);
  const symbol = new RegExp(`(?<![\\w$])${escapeRegExp(item.symbol)}(?![\\w$])`, "u");
  return symbol.test(text) && text.includes(item.path);
}

/**
 * One planned call through the package, as the registered tool makes it (`active`: explore's caps
 * follow the configuration's tools, lib/pi/tools/registration.js): `{ text, failed }`, a failure
 * in its words. A tool this checkout does not have fails the same way, so the figure still runs.
 */
export async function call(pkg, step, cwd, active) {
  try {
    if (step.tool === "codegraph_explore") {
      return { text: (await pkg.run(exploreCommand(step.args.request, exploreCaps(active, pkg.limits())), cwd)).text };
    }
    const tool = FOCUSED_TOOLS.find((t) => t.name === step.tool);
    if (!tool || typeof pkg[tool.call] !== "function") {
      return { text: `Error: ${step.tool} is not a tool of this checkout`, failed: true };
    }
    return { text: (await pkg[tool.call](step.args, cwd)).text };
  } catch (err) {
    return { text: `${err.code ?? "Error"}: ${err.message}`, failed: true };
  }
}

/** What each configuration's tools add to every request, in bytes (system prompt + tool definitions). */
export async function promptCosts(tmp, cli) {
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

/** The newest write time of a file under `dir` (0 when there is none). */
function newestUnder(dir) {
  let newest = 0;
  for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }) : []) {
    if (e.isFile()) newest = Math.max(newest, fs.statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return newest;
}

/**
 * Which runner answered, in words; with the native addon, whether it is older than the Rust
 * sources beside it (a stale build answers with the old core: rebuild before reading the figure).
 */
function runnerNote(pkg) {
  const info = pkg.runnerInfo();
  if (!info.path) return `Answered by the ${info.name} runner.`;
  const built = fs.statSync(info.path).mtimeMs;
  const sources = Math.max(newestUnder(path.join(root, "src")), newestUnder(path.join(root, "crates", "core", "src")));
  const stale =
    sources > built
      ? ` **It is older than the Rust sources (built ${new Date(built).toISOString()}, sources written ${new Date(sources).toISOString()}): rebuild it (npm run build) before reading this figure.**`
      : "";
  return `Answered by the ${info.name} (${path.relative(root, info.path)}).${stale}`;
}

/** The kind a change scenario's second run (the index synced after the edit) is shown as. */
const SYNCED_KIND = "changes, index synced";

/** Adds one answer's judged claims to `into` (`{ checked, false, unchecked }`). */
function addClaims(into, text, step, dir) {
  const c = checkClaims(text, step, dir);
  into.checked += c.checked;
  into.false.push(...c.false);
  into.unchecked.push(...c.unchecked);
}

/** One question under every configuration, in `dir`: its row; claims and refusals are added to. */
async function runQuestion(pkg, corpus, q, dir, claims, refusals, synced = false) {
  const row = { corpus: corpus.id, id: q.id, kind: q.kind, items: q.truth.length, by: {}, synced };
  for (const config of CONFIGS) {
    const fits = (p) => (p ?? []).every((s) => s.tool === "codegraph_explore" || config.active.includes(s.tool));
    const wanted = q.plans[config.plan];
    const plan = (fits(wanted) || !config.fallback ? (wanted ?? []) : (q.plans[config.fallback] ?? [])).slice(0, 3);
    const texts = [];
    const by = { calls: 0, failed: 0, refused: [] };
    for (const [index, step] of plan.entries()) {
      const unmet = unmetSources(step, texts);
      if (unmet.length > 0) {
        by.refused.push(index);
        refusals.push({ id: q.id, config: config.id, index, unmet });
        texts.push("");
        continue;
      }
      const answer = await call(pkg, step, dir, config.active);
      by.calls++;
      if (answer.failed) by.failed++;
      texts.push(answer.text);
      if (process.env.BENCH_ANSWERS_SHOW) {
        // Every answer as read, for a reader of the figure: <dir>/<question>.<config>.<call>.txt.
        const name = `${q.id}${row.synced ? "-synced" : ""}.${config.id}.${index}.txt`;
        fs.mkdirSync(process.env.BENCH_ANSWERS_SHOW, { recursive: true });
        fs.writeFileSync(
          path.join(process.env.BENCH_ANSWERS_SHOW, name),
          `${JSON.stringify(step)}\n\n${answer.text}\n`,
        );
      }
      claims[config.id] ??= { checked: 0, false: [], unchecked: [] };
      addClaims(claims[config.id], answer.text, step, dir);
    }
    const all = texts.join("\n");
    row.by[config.id] = {
      ...by,
      bytes: Buffer.byteLength(all),
      found: q.truth.filter((item) => names(all, item)).length,
    };
  }
  return row;
}

/**
 * Runs every question of `corpus` in `dir` under every configuration; a change scenario in a git
 * copy of the tree (made once per corpus under `parent`) with its edit applied, then undone.
 */
async function runCorpus(pkg, corpus, dir, questions, { parent, cli, claims, refusals }) {
  const rows = [];
  let tree = null;
  try {
    for (const q of questions) {
      if (q.kind !== "changes") {
        rows.push(await runQuestion(pkg, corpus, q, dir, claims, refusals));
        continue;
      }
      tree ??= changesTree(dir, parent, corpus.id);
      for (const sync of syncedToo() ? [false, true] : [false]) {
        const undo = applyEdits(q, tree.dir, cli, sync);
        try {
          const row = await runQuestion(pkg, corpus, q, tree.dir, claims, refusals, sync);
          // The synced run is shown as its own kind, beside the totals (not in them).
          rows.push(sync ? { ...row, kind: SYNCED_KIND, aside: true } : row);
        } finally {
          undo();
        }
      }
    }
  } finally {
    removeTree(tree);
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
    const notes = [runnerNote(pkg)];
    const claims = {};
    const refusals = [];
    const sets = [];
    for (const corpus of CORPORA) {
      const file = path.join(QUESTIONS_DIR, `${corpus.id}.json`);
      if (!fs.existsSync(file)) {
        notes.push(`${corpus.what}: no questions (${path.relative(root, file)} is missing).`);
        continue;
      }
      const only = process.env.BENCH_ANSWERS_ONLY ? new RegExp(process.env.BENCH_ANSWERS_ONLY, "u") : null;
      const questions = JSON.parse(fs.readFileSync(file, "utf8")).filter((q) => !only || only.test(q.id));
      // Fails loudly, before any call, on a plan that uses a name from outside.
      checkPlans(path.relative(root, file), questions);
      sets.push({ corpus, questions });
    }
    for (const { corpus, questions } of sets) {
      const tree = corpusTree(corpus, cli, cgVersion);
      if (tree.skip) {
        notes.push(`${corpus.what}: skipped: ${tree.skip}`);
        continue;
      }
      const how = tree.cached ? `cached, indexed ${tree.indexedAt}` : "indexed in this run";
      notes.push(`${corpus.what}: ${tree.graph ?? "indexed"}; init ${(tree.initMs / 1000).toFixed(0)} s (${how}).`);
      claims[corpus.id] = {};
      const run = { parent, cli, claims: claims[corpus.id], refusals };
      rows.push(...(await runCorpus(pkg, corpus, tree.dir, questions, run)));
    }
    if (rows.some((r) => r.kind === "changes")) {
      notes.push(
        `Changes: each edit applied to a git copy of the indexed tree, the index left as it was (older than the edit, as when an agent has edited): the kind "changes", counted in the totals and targets. ${
          syncedToo()
            ? `Each ran again with \`codegraph sync\` after the edit (the index as new as the edit): "${SYNCED_KIND}", shown beside the totals, not in them (BENCH_CHANGES_SYNC=0 leaves it out).`
            : "The runs with the index synced after the edit were left out (BENCH_CHANGES_SYNC=0)."
        }`,
      );
    }
    const corpora = sets.map((s) => s.corpus.id);
    // A run of some questions only (BENCH_ANSWERS_ONLY) does not replace the figure.
    const figure = answersFigure({ rows, configs: CONFIGS, costs, notes, cgVersion, corpora, claims, refusals });
    // The figure as run, kept beside its module (docs/tools.md quotes it).
    if (!process.env.BENCH_ANSWERS_ONLY) {
      fs.writeFileSync(path.join(benchDir, "figures", "answers.md"), `${renderFigure(figure).trimEnd()}\n`);
    }
    return figure;
  } finally {
    if (savedBin === undefined) delete process.env.PI_CODEGRAPH_BIN;
    else process.env.PI_CODEGRAPH_BIN = savedBin;
  }
}
