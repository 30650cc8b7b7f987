// The one core in its two builds: the native addon and the WebAssembly core the Node runner runs
// in its worker (wasm/, where no addon loads), on the same calls over the answers figure's indexed
// corpora, in this same run: the changed-files walk, a definitions scan, a mentions scan (the
// answers' notes) and the outline of a corpus's first 200 source files. One warm-up (which, for
// the worker, compiles the WebAssembly), then RUNS runs each; medians. `node bench/run.mjs core`.

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { indexedCorpora } from "../lib/corpora.mjs";
import { codegraphVersion } from "../lib/django.mjs";
import { root } from "../lib/setup.mjs";
import { ms, ratio, timed as timedRuns } from "../lib/stats.mjs";

const require = createRequire(import.meta.url);
const RUNS = 5;
const timed = (fn) => timedRuns(fn, RUNS);
/** A name every corpus defines and uses often. */
const NAME = "new";

export async function core() {
  const { nativeRunner } = require(path.join(root, "lib", "runners", "native.js"));
  const nodeRunner = require(path.join(root, "lib", "runners", "node.js"));
  const { sourceChangesRequest } = require(path.join(root, "lib", "contract", "source-changes.js"));
  const { definitionScan } = require(path.join(root, "lib", "contract", "definitions.js"));
  const { mentionScan } = require(path.join(root, "lib", "contract", "call-sites.js"));
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const rows = [];
  const notes = [];
  const ratios = [];
  let same = 0;
  for (const { corpus, tree } of indexedCorpora(cli, codegraphVersion(), notes)) {
    const since = fs.statSync(path.join(tree.dir, ".codegraph", "codegraph.db")).mtimeMs;
    const outlined = await nativeRunner.scanSource(tree.dir, definitionScan([NAME]));
    const paths = [...new Set(outlined.matches.map((m) => m.path))].slice(0, 200);
    const calls = {
      "changed-files walk": (b) => b.changedSource(tree.dir, sourceChangesRequest(since)),
      "definitions scan": (b) => b.scanSource(tree.dir, definitionScan([NAME])),
      "mentions scan": (b) => b.scanSource(tree.dir, mentionScan([NAME])),
      [`outline of ${paths.length} files`]: (b) => b.outlineSource(tree.dir, { paths }),
    };
    for (const [what, call] of Object.entries(calls)) {
      const addon = await timed(() => call(nativeRunner));
      const wasm = await timed(() => call(nodeRunner));
      const alike = JSON.stringify(addon.value) === JSON.stringify(wasm.value);
      if (alike) same += 1;
      else notes.push(`${corpus.id}, ${what}: the two builds answered differently`);
      rows.push([corpus.id, what, ms(addon.ms), ms(wasm.ms), ratio(wasm.ms, addon.ms), alike ? "same" : "DIFFERENT"]);
      ratios.push(wasm.ms / addon.ms);
    }
  }
  return {
    title: "One core, two builds: the native addon against the WebAssembly core (the Node runner's)",
    about: `The same calls with the same requests through the native addon and through the Node runner, whose source calls are the core built for WebAssembly and run in its worker thread (the message to the worker and back included); medians of ${RUNS} runs after a warm-up; "same" when both answered alike.`,
    tables: [
      {
        caption: "Wall time per call (ms)",
        head: ["corpus", "call", "native addon", "WebAssembly core", "WebAssembly / native", "answers"],
        rows,
      },
    ],
    notes: [
      ...notes,
      `The WebAssembly core took ${Math.min(...ratios).toFixed(2)}× to ${Math.max(...ratios).toFixed(2)}× the addon's time (WASI's file calls go through Node's own, one by one).`,
    ],
    targets: [
      {
        what: "The WebAssembly core answers as the native addon does, on every call and corpus",
        target: "all",
        measured: `${same} of ${ratios.length}`,
        met: same === ratios.length && ratios.length > 0,
        why: "one core: where no addon loads, the notes, paths and the changed count are the same facts, within the same bounds.",
      },
    ],
  };
}
