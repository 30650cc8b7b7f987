// What a composed call costs beyond the processes it runs (issue 45): codegraph_relations' path
// and codegraph_changes each run several CodeGraph processes (and changes, git) and put their
// answers together. Per code base, each call-path question's focused path call and each change
// scenario's codegraph_changes call (bench/answers/*.json; the edit applied to a git copy of the
// indexed tree, the index left older than the edit, as in the answers figure), through the
// package with the addon, one warm-up then RUNS runs: the call's wall time against the sum of the
// processes' own run times as the runner timed them (spawn to exit; `details.processRunMs` for a
// path, `codegraphRunMs + gitMs` for changes), in this same run (BENCH_ANSWERS_ONLY=<regex of ids> measures some). Over 1 is what the package adds;
// under 1, what running them side by side saves. `node bench/run.mjs composed` (a run of every question writes bench/figures/composed.md).

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { applyEdits, changesTree, removeTree } from "../lib/changes.mjs";
import { indexedCorpora } from "../lib/corpora.mjs";
import { codegraphVersion } from "../lib/django.mjs";
import { renderFigure } from "../lib/report.mjs";
import { benchDir, root, tempDir } from "../lib/setup.mjs";
import { median, ms, ratio, worstRatioTarget } from "../lib/stats.mjs";

const require = createRequire(import.meta.url);
const RUNS = 3;
const TARGET_RATIO = 1.25;

/** The questions of `corpus` of `kind` (those BENCH_ANSWERS_ONLY's regex of ids matches, when set). */
function questions(corpus, kind) {
  const file = path.join(benchDir, "answers", `${corpus.id}.json`);
  if (!fs.existsSync(file)) return [];
  const only = process.env.BENCH_ANSWERS_ONLY ? new RegExp(process.env.BENCH_ANSWERS_ONLY) : null;
  return JSON.parse(fs.readFileSync(file, "utf8")).filter((q) => q.kind === kind && (!only || only.test(q.id)));
}

/** RUNS runs of `call` after a warm-up: the median wall and the median of the processes' run time. */
async function measured(call, processMs) {
  await call();
  const walls = [];
  const runs = [];
  let processes = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const r = await call();
    walls.push(performance.now() - t);
    runs.push(processMs(r.details));
    processes = r.details.processes?.length ?? r.details.codegraphRuns ?? 0;
  }
  return { wall: median(walls), run: median(runs), processes };
}

const pathRunMs = (d) => d.processRunMs ?? 0;
const changesRunMs = (d) => (d.codegraphRunMs ?? 0) + (d.gitMs ?? 0);

export async function composed() {
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const saved = process.env.PI_CODEGRAPH_BIN;
  process.env.PI_CODEGRAPH_BIN = cli;
  const parent = tempDir("pi-codegraph-composed-");
  try {
    const pkg = require(path.join(root, "index.js"));
    const rows = [];
    const notes = [];
    const ratios = { path: [], changes: [] };
    const add = (id, what, m) => {
      rows.push([id, what, String(m.processes), ms(m.run), ms(m.wall), ratio(m.wall, m.run)]);
      ratios[what].push(m.wall / m.run);
    };
    for (const { corpus, tree } of indexedCorpora(cli, codegraphVersion(), notes)) {
      for (const q of questions(corpus, "call-path")) {
        const call = q.plans.focused.find((c) => c.args?.relation === "path");
        if (!call) continue;
        add(q.id, "path", await measured(() => pkg.relations(call.args, tree.dir), pathRunMs));
      }
      let copy = null;
      try {
        for (const q of questions(corpus, "changes")) {
          copy ??= changesTree(tree.dir, parent, corpus.id);
          const undo = applyEdits(q, copy.dir, cli, false);
          try {
            add(q.id, "changes", await measured(() => pkg.changes({}, copy.dir), changesRunMs));
          } finally {
            undo();
          }
        }
      } finally {
        removeTree(copy);
      }
    }
    const worst = (list) => (list.length ? `${Math.max(...list).toFixed(2)}×` : "none ran");
    const figure = {
      title: "Composed calls (path, changes): their cost against the processes they run",
      about: `Each call-path question's focused \`codegraph_relations\` path call and each change scenario's \`codegraph_changes\` call of the answers figure (the edit applied to a git copy of the indexed tree, the index older than the edit), through the package with the addon; medians of ${RUNS} runs after a warm-up. "processes' run" is the sum of the CodeGraph (and git) processes' own run times as the runner timed them, spawn to exit; the call runs some side by side, so its wall can be below that sum. Worst: path ${worst(ratios.path)}, changes ${worst(ratios.changes)}.`,
      tables: [
        {
          caption: "Wall time per call (ms)",
          head: ["question", "call", "processes", "processes' run", "call", "call / processes"],
          rows,
        },
      ],
      notes,
      targets: [
        worstRatioTarget(
          "a path or changes call against the processes it runs",
          [...ratios.path, ...ratios.changes],
          TARGET_RATIO,
          "putting the answers together (the graph walk, the outline, the source search, the words) must cost a small part of what CodeGraph itself takes.",
          2,
        ),
      ],
    };
    // A run of every question is the figure bench/figures keeps (a subset's is printed only).
    if (!process.env.BENCH_ANSWERS_ONLY)
      fs.writeFileSync(path.join(benchDir, "figures", "composed.md"), `${renderFigure(figure).trimEnd()}\n`);
    return figure;
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
    if (saved === undefined) delete process.env.PI_CODEGRAPH_BIN;
    else process.env.PI_CODEGRAPH_BIN = saved;
  }
}
