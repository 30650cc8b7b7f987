// Changes seen at any size (issue 48's item 4): synthetic git
// repositories of 10,000 to 300,000 TypeScript files, five changes planted after "the index"
// (the first, a middle and the last directory in walk order, a new file, a file deep down), and
// how many of them each way of looking finds, in how long, in the same run: the product
// (the glue's changedSince: the walk, then git's candidates when a bound ended it), its walk
// (`changedSource` with lib/contract/source-changes.js's request, the addon and the Node runner's
// WebAssembly core), `git status --porcelain -uall` (git's index, no fsmonitor), and a bare walk
// (`find -newer`, one lstat per file). `node bench/run.mjs scale`.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { root } from "../lib/setup.mjs";
import { ms } from "../lib/stats.mjs";

const require = createRequire(import.meta.url);
const SIZES = (process.env.BENCH_SCALE_SIZES ?? "10000,50000,100000,300000").split(",").map(Number);
const PER_DIR = 100;
const PLANTED = 5;

/** A tree of `files` files under `dir`: 100 per directory, 50 directories per package. */
function makeTree(dir, files) {
  const dirs = Math.ceil(files / PER_DIR);
  for (let d = 0; d < dirs; d += 1) {
    const sub = path.join(dir, `pkg${Math.floor(d / 50)}`, `mod${d % 50}`);
    fs.mkdirSync(sub, { recursive: true });
    for (let f = 0; f < PER_DIR && d * PER_DIR + f < files; f += 1)
      fs.writeFileSync(path.join(sub, `f${f}.ts`), `export const v${f} = ${f};\n`);
  }
  return dirs;
}

const git = (dir, ...args) =>
  spawnSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.invalid", ...args], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 256 << 20,
  });

/** The median of three timed runs of `fn` (after one warm-up), with the last value. */
async function timed3(fn) {
  await fn();
  const times = [];
  let value;
  for (let i = 0; i < 3; i += 1) {
    const t = performance.now();
    value = await fn();
    times.push(performance.now() - t);
  }
  return { ms: times.sort((a, b) => a - b)[1], value };
}

export async function scale(ctx) {
  const { nativeRunner } = require(path.join(root, "lib", "runners", "native.js"));
  const nodeRunner = require(path.join(root, "lib", "runners", "node.js"));
  const { sourceChangesRequest, CHANGE_WALK_LIMITS } = require(path.join(root, "lib", "contract", "source-changes.js"));
  process.env.PI_CODEGRAPH_BIN ??= path.join(root, "node_modules", ".bin", "codegraph");
  const pkg = require(path.join(root, "index.js"));
  const rows = [];
  const notes = [];
  for (const files of SIZES) {
    const dir = path.join(ctx.tmp, `scale-${files}`);
    const dirs = makeTree(dir, files);
    git(dir, "init", "-q", ".");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "tree");
    git(dir, "status", "--porcelain"); // git refreshes its index once, as a user's first status does
    // "The index": written after the commit; its time is what the changes are newer than.
    const indexDir = path.join(dir, ".codegraph");
    fs.mkdirSync(indexDir);
    const marker = path.join(indexDir, "codegraph.db");
    fs.writeFileSync(marker, "");
    const since = fs.statSync(marker).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the file system's time granularity
    // Auto sync on: the tree watched (crates/core/src/change_watch.rs), before the changes; the
    // time until its count stands on git's list and the watch alone.
    const roots = [{ dir, indexDir }];
    const large = files > CHANGE_WALK_LIMITS.maxFiles; // a tree the walk reaches whole is not watched
    const watchStarted = performance.now();
    let watched = await pkg.changedSince(roots, { watch: true });
    const waiting = () => performance.now() - watchStarted < 60_000; // bounded: a count is up to 0.5 s here
    while (large && watched[0]?.source !== "watch" && waiting()) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      watched = await pkg.changedSince(roots, { watch: true });
    }
    const watchReadyMs = performance.now() - watchStarted;
    const last = dirs - 1;
    const at = (d) => path.join(`pkg${Math.floor(d / 50)}`, `mod${d % 50}`);
    const planted = [
      path.join(at(0), "f0.ts"),
      path.join(at(Math.floor(dirs / 2)), "f7.ts"),
      path.join(at(last), "f1.ts"),
      path.join(at(last), "planted-new.ts"),
      path.join(at(Math.floor((dirs * 3) / 4)), "f99.ts"),
    ].slice(0, PLANTED);
    for (const p of planted) fs.appendFileSync(path.join(dir, p), "export const changed = 1;\n");
    const foundOf = (list) => planted.filter((p) => list.includes(p.split(path.sep).join("/"))).length;
    const walkRow = async (runner) => {
      const r = await timed3(() => runner.changedSource(dir, sourceChangesRequest(since)));
      const v = r.value;
      // The walk lists at most maxPaths; here only the planted files changed.
      return `${foundOf(v.paths)} of ${PLANTED}${v.stopped ? `, "at least" (stopped: ${v.stopped} after ${v.filesSeen} files)` : ""} · ${ms(r.ms)} ms`;
    };
    const relOf = (found) => found.files.map((f) => path.relative(dir, f).split(path.sep).join("/"));
    // The watch sees the changes on its own thread: counted once it has (bounded).
    const seenBy = performance.now() + 60_000;
    while (watched[0]?.source === "watch" && foundOf(relOf(watched[0])) < PLANTED && performance.now() < seenBy) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      watched = await pkg.changedSince(roots, { watch: true });
    }
    const watch = await timed3(() => pkg.changedSince(roots, { watch: true }));
    const [w] = watch.value;
    const watchRow = !large
      ? `not watched (the walk reached all ${files.toLocaleString("en-US")} files when it was asked)`
      : w
        ? `${foundOf(relOf(w))} of ${PLANTED} · ${ms(watch.ms)} ms (${w.source}; ready after ${(watchReadyMs / 1000).toFixed(2)} s)`
        : "none";
    pkg.unwatchChanges();
    const product = await timed3(() => pkg.changedSince([{ dir, indexDir }]));
    const [seen] = product.value;
    const productRow = `${foundOf(seen.files.map((f) => path.relative(dir, f).split(path.sep).join("/")))} of ${PLANTED}${seen.cut ? `, "at least" (stopped: ${seen.cut.stopped})` : ""} · ${ms(product.ms)} ms (${seen.source})`;
    const addon = await walkRow(nativeRunner);
    const wasm = await walkRow(nodeRunner);
    const status = await timed3(() => git(dir, "--no-optional-locks", "status", "--porcelain", "-uall"));
    const statusFound = foundOf(
      status.value.stdout
        .split("\n")
        .map((l) => l.slice(3))
        .filter(Boolean),
    );
    const find = await timed3(() =>
      spawnSync("find", [".", "-path", "./.git", "-prune", "-o", "-type", "f", "-newer", marker, "-print"], {
        cwd: dir,
        encoding: "utf8",
        maxBuffer: 64 << 20,
      }),
    );
    const findFound = foundOf(find.value.stdout.split("\n").map((l) => l.replace(/^\.\//, "")));
    rows.push([
      files.toLocaleString("en-US"),
      productRow,
      watchRow,
      addon,
      wasm,
      `${statusFound} of ${PLANTED} · ${ms(status.ms)} ms`,
      `${findFound} of ${PLANTED} · ${ms(find.ms)} ms`,
    ]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  notes.push(
    "The product: the glue's changedSince (lib/api/disk-changes.js): the walk; when a bound ends it, in a git repository whose HEAD has not moved since the index, git names the candidates (`diff --name-only`, `ls-files -o --exclude-standard` and `diff --cached --name-only`, the three at once) and only those are looked at (source: git), and git is asked first there from then on (the median is of the runs after the first).",
    `The product's walk: at most ${CHANGE_WALK_LIMITS.maxFiles.toLocaleString("en-US")} files within ${CHANGE_WALK_LIMITS.deadlineMs} ms (lib/contract/source-changes.js); stopped, it says its count is a lower bound ("at least").`,
    "git status: the repository's own index, refreshed once before; no fsmonitor (git's built-in one is not on Linux, and a hook one would run the repository's configured program), no untracked cache.",
    "find: one lstat per file, nothing parsed: the floor of a walk without a watcher.",
    "auto sync on: the watch (crates/core/src/change_watch.rs, Linux's inotify) of a tree the walk cannot reach whole, started before the changes: what git named once it was ready, and the files it saw written since, looked at alone (no walk, no git run); ready after: from the first count that asked for it until the count stood on the watch.",
  );
  return {
    title: "Changes seen at any size: planted changes found, and the time",
    about: `Synthetic git repositories of ${SIZES.map((n) => n.toLocaleString("en-US")).join(", ")} TypeScript files (${PER_DIR} per directory); ${PLANTED} changes planted after the index time; medians of 3 runs after a warm-up.`,
    tables: [
      {
        caption: "Per tree",
        head: [
          "files",
          "the product (changedSince)",
          "auto sync on: the watch",
          "addon walk",
          "Node runner walk (WebAssembly)",
          "git status",
          "find -newer",
        ],
        rows,
      },
    ],
    notes,
    targets: [],
  };
}
