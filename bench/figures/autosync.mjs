// What auto sync (`/codegraph sync auto`, lib/pi/auto-sync.js) costs per turn, on the answers
// figure's indexed corpora, each on a copy of its tree: a session of the package driven as Pi drives
// it (helpers/pi-host.mjs) with the pinned CodeGraph CLI. Per run, a turn without changes (the
// time its end takes and what a call right after waited: the floor is zero) and a turn after a
// one-file edit through Pi's write tool (a new function appended to one source file): what the
// call right after it waited for the sync, and the sync itself measured alone on the same kind of
// edit (`codegraph sync`'s wall and CPU, the shell's `times` of its children). RUNS runs each;
// medians. `node bench/run.mjs autosync`.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { hostWith, recordingUi } from "../../__test__/helpers/pi-host.mjs";
import { indexedCorpora } from "../lib/corpora.mjs";
import { codegraphVersion } from "../lib/django.mjs";
import { root } from "../lib/setup.mjs";
import { median, ms } from "../lib/stats.mjs";

const require = createRequire(import.meta.url);
const RUNS = 3;
/** The file each corpus' edit appends a function to, and the function, by language. */
const EDITS = {
  tokio: { file: "src/lib.rs", add: (n) => `\npub fn bench_added_${n}() -> usize {\n    ${n}\n}\n` },
  django: { file: "django/utils/text.py", add: (n) => `\n\ndef bench_added_${n}():\n    return ${n}\n` },
  effect: { file: "src/Array.ts", add: (n) => `\nexport const benchAdded${n} = (): number => ${n}\n` },
};

/** `codegraph sync` in `dir`, alone: `{ wallMs, cpuMs }` (CPU: the shell's `times` for its children, user + sys). */
function syncAlone(cli, dir) {
  const started = performance.now();
  const r = spawnSync("sh", ["-c", '"$0" sync >/dev/null 2>&1; times', cli], { cwd: dir, encoding: "utf8" });
  const wallMs = performance.now() - started;
  // `times` prints the shell's user/sys, then its children's: "0m1.234s 0m0.120s".
  const children = r.stdout.trim().split("\n").at(-1).split(/\s+/);
  const seconds = (t) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN;
  };
  return { wallMs, cpuMs: (seconds(children[0]) + seconds(children[1])) * 1000 };
}

export async function autosync(ctx) {
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  process.env.PI_CODEGRAPH_BIN = cli;
  process.env.DO_NOT_TRACK = "1";
  process.env.PI_CODING_AGENT_DIR = path.join(ctx.tmp, "autosync-agent");
  const pkg = require(path.join(root, "index.js"));
  const notes = [];
  const rows = [];
  for (const { corpus, tree } of indexedCorpora(cli, codegraphVersion(), notes)) {
    const edit = EDITS[corpus.id];
    const dir = path.join(ctx.tmp, `autosync-${corpus.id}`);
    fs.cpSync(tree.dir, dir, { recursive: true, preserveTimestamps: true });
    const host = await hostWith(pkg, "bench");
    const ui = recordingUi();
    const session = { cwd: dir, hasUI: true, ui };
    await host.startSession(session);
    const cg = async (args) => {
      const command = host.commands.get("codegraph");
      await command.handler(args, session);
    };
    await cg("sync auto");
    const search = host.registry.find((t) => t.name === "codegraph_search");
    const call = async (name) => {
      const started = performance.now();
      const r = await search.execute("bench", { name }, undefined, undefined, session);
      return { waitedMs: r.details.syncWaitMs ?? 0, callMs: performance.now() - started, text: r.content[0].text };
    };
    const quiet = { turnMs: [], waitedMs: [] };
    const edited = { turnMs: [], waitedMs: [], callMs: [], found: 0 };
    const alone = { wallMs: [], cpuMs: [] };
    for (let n = 1; n <= RUNS; n += 1) {
      // A turn without changes: its end, then a call.
      let started = performance.now();
      await host.turnEnd(session);
      quiet.turnMs.push(performance.now() - started);
      quiet.waitedMs.push((await call("bench_nothing")).waitedMs);
      // A turn that appended a function to one file through Pi's write tool.
      fs.appendFileSync(path.join(dir, edit.file), edit.add(n));
      await host.toolResult({ toolName: "write", input: { path: edit.file } }, session);
      started = performance.now();
      await host.turnEnd(session);
      edited.turnMs.push(performance.now() - started);
      const name = corpus.id === "effect" ? `benchAdded${n}` : `bench_added_${n}`;
      const answer = await call(name);
      edited.waitedMs.push(answer.waitedMs);
      edited.callMs.push(answer.callMs);
      if (answer.text.includes(edit.file) && !answer.text.startsWith("Not in CodeGraph's index")) edited.found += 1;
      // The same edit again, synced alone (no session): CodeGraph's own cost.
      fs.appendFileSync(path.join(dir, edit.file), edit.add(n + 100));
      const s = syncAlone(cli, dir);
      alone.wallMs.push(s.wallMs);
      alone.cpuMs.push(s.cpuMs);
    }
    await host.shutdown(session);
    fs.rmSync(dir, { recursive: true, force: true });
    rows.push([
      corpus.id,
      ms(median(quiet.turnMs)),
      ms(median(quiet.waitedMs)),
      ms(median(edited.turnMs)),
      ms(median(edited.waitedMs)),
      ms(median(edited.callMs)),
      `${edited.found} of ${RUNS}`,
      ms(median(alone.wallMs)),
      ms(median(alone.cpuMs)),
    ]);
  }
  notes.push(
    "A turn's end returns at once either way (the sync runs in the background); with no change it decides from the session's ledger without a walk, a process or a write.",
    "waited: what the next tool call waited for the sync the turn started (`details.syncWaitMs`); it then answered from the synced index (found: the new function, from CodeGraph's index, not the source scan).",
    "sync alone: the same one-file edit synced by `codegraph sync` outside the session: wall and CPU (user + sys of the CLI and its children).",
  );
  return {
    title: "Auto sync: the cost per turn",
    about: `CodeGraph ${codegraphVersion()}; ${RUNS} runs per tree, medians.`,
    tables: [
      {
        caption: "Per tree",
        head: [
          "tree",
          "turn end, no change",
          "next call waited, no change",
          "turn end, one-file edit",
          "next call waited (the sync)",
          "next call, total",
          "found",
          "sync alone, wall",
          "sync alone, CPU",
        ],
        rows,
      },
    ],
    notes,
    targets: [],
  };
}
