// The change scenarios of the answers bench (kind "changes", bench/answers/README.md): each is a
// real, small edit described as data (`edits: [{ file, old, new }]`, `old` occurring exactly once)
// applied to a COPY of the indexed corpus, its `.codegraph` index included: the copy is a git
// repository with the cached tree as its one commit, so `git diff HEAD` sees the edit, and the
// index is as old as the commit, as when an agent has edited and not re-indexed. Each scenario
// also runs a second time with `codegraph sync` after the edit (the index as new as the edit; the
// saved index is put back after it), unless BENCH_CHANGES_SYNC=0.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const GIT_CONFIG = [
  "-c",
  "user.name=bench",
  "-c",
  "user.email=bench@localhost",
  "-c",
  "commit.gpgsign=false",
  "-c",
  "core.hooksPath=/dev/null",
];

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd}: ${r.error?.message ?? r.stderr.trim()}`);
  }
  return r.stdout;
}

/** Whether each change scenario runs a second time with the index synced after the edit. */
export const syncedToo = () => process.env.BENCH_CHANGES_SYNC !== "0";

/**
 * A copy of the indexed corpus at `dir` under `parent`, committed as one git commit (the index is
 * excluded from git, not from the copy): `{ dir }`. With the synced runs, the index is saved aside.
 */
export function changesTree(dir, parent, id) {
  const copy = path.join(parent, `changes-${id}`);
  fs.rmSync(copy, { recursive: true, force: true });
  fs.mkdirSync(parent, { recursive: true });
  run("cp", ["-R", "--preserve=mode,timestamps", dir, copy], parent);
  run("git", ["init", "-q"], copy);
  fs.appendFileSync(path.join(copy, ".git", "info", "exclude"), ".codegraph/\n.codegraph-saved/\n");
  run("git", ["add", "-A"], copy);
  run("git", [...GIT_CONFIG, "commit", "-q", "-m", "the cached corpus"], copy);
  if (syncedToo()) run("cp", ["-R", "--preserve=mode,timestamps", ".codegraph", ".codegraph-saved"], copy);
  return { dir: copy };
}

/** Puts the edited files back as they were, their times included (the index's staleness is by time). */
function restore(originals) {
  for (const [file, { text, stat }] of originals) {
    fs.writeFileSync(file, text);
    fs.utimesSync(file, stat.atime, stat.mtime);
  }
}

/**
 * Applies `q.edits` in the copy at `dir` (each `old` must occur exactly once: a scenario that no
 * longer fits its corpus fails loudly), syncs the index with `cli` when `sync`, and returns the undo.
 */
export function applyEdits(q, dir, cli, sync) {
  const originals = new Map();
  for (const e of q.edits ?? []) {
    const file = path.join(dir, e.file);
    const text = fs.readFileSync(file, "utf8");
    if (!originals.has(file)) originals.set(file, { text, stat: fs.statSync(file) });
    const at = text.indexOf(e.old);
    if (at < 0 || text.indexOf(e.old, at + 1) >= 0) {
      restore(originals);
      throw new Error(
        `${q.id}: the edit of ${e.file} needs its old text exactly once (found ${at < 0 ? "none" : "more"})`,
      );
    }
    fs.writeFileSync(file, text.slice(0, at) + e.new + text.slice(at + e.old.length));
  }
  if (sync) run(cli, ["sync", "."], dir);
  return () => {
    restore(originals);
    if (sync) {
      fs.rmSync(path.join(dir, ".codegraph"), { recursive: true, force: true });
      run("cp", ["-R", "--preserve=mode,timestamps", ".codegraph-saved", ".codegraph"], dir);
    }
  };
}

/** Removes the copy. */
export function removeTree(tree) {
  if (tree) fs.rmSync(tree.dir, { recursive: true, force: true });
}
