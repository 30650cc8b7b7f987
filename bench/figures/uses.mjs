// What the search for what a callers answer leaves out costs (lib/api/call-sites.js: the runner's
// bounded scanSource for calls of the name, then the files it matched read for the definition each
// sits in): each corpus's who-calls questions of the answers figure (bench/answers/*.json, their
// focused plan's codegraph_relations call) through the package with the addon and with the Node
// runner, against the bare `codegraph callers` process on the same indexed tree (the floor: what
// the answer costs without the package), in this same run. One warm-up, then RUNS runs each;
// medians. `node bench/run.mjs uses`.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { indexedCorpora } from "../lib/corpora.mjs";
import { codegraphVersion } from "../lib/django.mjs";
import { benchDir, root } from "../lib/setup.mjs";
import { ms, ratio, timed as timedRuns, worstRatioTarget } from "../lib/stats.mjs";

const require = createRequire(import.meta.url);
const RUNS = 5;
/** The median of RUNS runs after a warm-up (bench/lib/stats.mjs). */
const timed = (fn) => timedRuns(fn, RUNS);
const TARGET_RATIO = 1.25;

/** The who-calls questions' callers calls of `corpus` (their focused plan's first step). */
function callersCalls(corpus) {
  const file = path.join(benchDir, "answers", `${corpus.id}.json`);
  if (!fs.existsSync(file)) return [];
  return JSON.parse(fs.readFileSync(file, "utf8"))
    .filter((q) => q.kind === "who-calls")
    .map((q) => ({ id: q.id, args: q.plans.focused[0].args }))
    .filter((c) => c.args.relation === "callers");
}

const NOTE = /^Calls of "/u;

export async function uses() {
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const saved = process.env.PI_CODEGRAPH_BIN;
  process.env.PI_CODEGRAPH_BIN = cli;
  try {
    const pkg = require(path.join(root, "index.js"));
    const viaNode = pkg.forRunner(require(path.join(root, "lib", "runners", "node.js")));
    const rows = [];
    const notes = [];
    const ratios = [];
    for (const { corpus, tree } of indexedCorpora(cli, codegraphVersion(), notes)) {
      for (const { id, args } of callersCalls(corpus)) {
        const argv = ["callers", ...(args.file ? [`--file=${args.file}`] : []), "--", args.symbol];
        const floor = await timed(() => spawnSync(cli, argv, { cwd: tree.dir, encoding: "utf8" }));
        const addon = await timed(() => pkg.relations(args, tree.dir));
        const node = await timed(() => viaNode.relations(args, tree.dir));
        const said = (r) => (NOTE.test(r.value.text) ? "yes" : "no");
        rows.push([
          id,
          args.symbol,
          ms(floor.ms),
          ms(addon.ms),
          said(addon),
          ms(node.ms),
          said(node),
          ratio(addon.ms, floor.ms),
        ]);
        ratios.push(addon.ms / floor.ms);
      }
    }
    return {
      title: "The search for what a callers answer leaves out: its cost per answer",
      about: `Each who-calls question's \`codegraph_relations\` callers call of the answers figure through the package (the source search included, begun with the CLI: at most 1.5 s, 20,000 files, 256 MiB, 256 mentions), with the addon and with the Node runner, against the bare \`codegraph callers\` process on the same indexed tree; medians of ${RUNS} runs after a warm-up. "note" says whether the answer led with calls the graph lacks.`,
      tables: [
        {
          caption: "Wall time per answer (ms)",
          head: ["question", "symbol", "codegraph callers", "addon", "note", "Node runner", "note", "addon / CLI"],
          rows,
        },
      ],
      notes,
      targets: [
        worstRatioTarget(
          "callers through the package with the addon, the search included, against the CLI alone",
          ratios,
          TARGET_RATIO,
          "the search runs with every callers and impact answer, so it must cost a small part of the answer itself.",
          2,
        ),
      ],
    };
  } finally {
    if (saved === undefined) delete process.env.PI_CODEGRAPH_BIN;
    else process.env.PI_CODEGRAPH_BIN = saved;
  }
}
