// What it costs to learn of changes no Pi tool reported (a shell command's, the editor's): the
// changed-files walk (`changedSource` with lib/contract/source-changes.js's request: metadata only)
// of the addon and of the Node runner on the answers figure's indexed corpora, against CodeGraph's
// own `codegraph status --json` (the one other way to count: it hashes every file) on the same
// trees, in this same run. One warm-up, then RUNS runs each; medians. `node bench/run.mjs walk`.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { indexedCorpora } from "../lib/corpora.mjs";
import { codegraphVersion } from "../lib/django.mjs";
import { root } from "../lib/setup.mjs";
import { ms, ratio, timed as timedRuns, worstRatioTarget } from "../lib/stats.mjs";

const require = createRequire(import.meta.url);
const RUNS = 5;
/** The median of RUNS runs after a warm-up (bench/lib/stats.mjs). */
const timed = (fn) => timedRuns(fn, RUNS);
const TARGET_RATIO = 0.25;

export async function walk() {
  const { nativeRunner } = require(path.join(root, "lib", "runners", "native.js"));
  const nodeRunner = require(path.join(root, "lib", "runners", "node.js"));
  const { sourceChangesRequest } = require(path.join(root, "lib", "contract", "source-changes.js"));
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const rows = [];
  const notes = [];
  const ratios = [];
  for (const { corpus, tree } of indexedCorpora(cli, codegraphVersion(), notes)) {
    const request = () => sourceChangesRequest(fs.statSync(path.join(tree.dir, ".codegraph", "codegraph.db")).mtimeMs);
    const addon = await timed(() => nativeRunner.changedSource(tree.dir, request()));
    const node = await timed(() => nodeRunner.changedSource(tree.dir, request()));
    const status = await timed(() => spawnSync(cli, ["status", "--json"], { cwd: tree.dir, encoding: "utf8" }));
    if (status.value.status !== 0) notes.push(`${corpus.id}: codegraph status exited ${status.value.status}`);
    const seen = (r) => `${r.value.filesSeen}${r.value.stopped ? ` (stopped: ${r.value.stopped})` : ""}`;
    rows.push([
      corpus.id,
      seen(addon),
      ms(addon.ms),
      seen(node),
      ms(node.ms),
      ms(status.ms),
      ratio(addon.ms, status.ms),
    ]);
    ratios.push(addon.ms / status.ms);
  }
  return {
    title: "The changed-files walk: the status bar's count of changes no Pi tool reported",
    about: `The addon's and the Node runner's walk (files of CodeGraph's extensions outside what it skips, modified after the index; at most 50,000 files within 300 ms) against \`codegraph status --json\` on the same indexed trees; medians of ${RUNS} runs after a warm-up.`,
    tables: [
      {
        caption: "Wall time per check (ms)",
        head: [
          "corpus",
          "files seen (addon)",
          "addon",
          "files seen (Node)",
          "Node runner",
          "codegraph status",
          "addon / status",
        ],
        rows,
      },
    ],
    notes,
    targets: [
      worstRatioTarget(
        "The addon's walk against CodeGraph's own count, on every corpus",
        ratios,
        TARGET_RATIO,
        "it runs after every bash call and before every turn, so it must cost a small part of what asking CodeGraph would.",
      ),
    ],
  };
}
