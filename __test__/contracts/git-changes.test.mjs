// Changes no Pi tool reported, in a git repository (lib/api/disk-changes.js): while HEAD has not
// moved since the index, git names the candidates (differing from its index, staged, untracked
// and not ignored) and only those are looked at, so a change past the walk's file bound is still
// counted, with no lower bound; once HEAD moved (a commit since the index), the bounded walk. The
// glue's changedSince over each runner (the WebAssembly core takes the same `paths`), with real git.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { tempDir } from "../helpers/index.mjs";

const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
/** More files than the walk reads (CHANGE_WALK_LIMITS.maxFiles, 50,000). */
const FILES = 50_001;

describe("changes named by git", { timeout: 180_000 }, () => {
  let ws;
  let indexDir;
  before(() => {
    ws = tempDir("pi-codegraph-git-changes-");
    const gen = path.join(ws, "gen");
    fs.mkdirSync(gen);
    for (let i = 0; i < FILES; i += 1) fs.writeFileSync(path.join(gen, `f${String(i).padStart(5, "0")}.ts`), "");
    fs.writeFileSync(path.join(ws, ".gitignore"), ".codegraph/\nignored/\n");
    git(ws, "init", "-q", ".");
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "tree");
    git(ws, "status", "--porcelain"); // git's index refreshed, as a user's status leaves it
    indexDir = path.join(ws, ".codegraph");
    fs.mkdirSync(indexDir);
    fs.writeFileSync(path.join(indexDir, "codegraph.db"), "");
    // The commit a minute ago, the index half a minute ago (after it), the changes below now.
    const ago = (s) => Date.now() / 1000 - s;
    fs.utimesSync(path.join(ws, ".git", "logs", "HEAD"), ago(60), ago(60));
    fs.utimesSync(path.join(indexDir, "codegraph.db"), ago(30), ago(30));
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));

  for (const impl of implementations) {
    test(`${impl.name}: HEAD unmoved: every change git names is counted, past the walk's bound, with no lower bound`, async () => {
      fs.appendFileSync(path.join(ws, "gen", "f50000.ts"), "export const x = 1;\n"); // sorted last
      fs.writeFileSync(path.join(ws, "gen", "staged.ts"), "export const s = 1;\n");
      git(ws, "add", "gen/staged.ts");
      fs.writeFileSync(path.join(ws, "new.py"), "def n(): pass\n"); // untracked
      fs.mkdirSync(path.join(ws, "ignored"), { recursive: true });
      fs.writeFileSync(path.join(ws, "ignored", "skip.ts"), ""); // ignored: not CodeGraph's either
      fs.writeFileSync(path.join(ws, "notes.md"), "# not a language CodeGraph indexes\n");
      const [found] = await impl.module.changedSince([{ dir: ws, indexDir }]);
      assert.equal(found.source, "git");
      assert.deepEqual(found.files.map((f) => path.relative(ws, f)).sort(), [
        "gen/f50000.ts",
        "gen/staged.ts",
        "new.py",
      ]);
      assert.equal(found.cut, null, "complete: no bound ended it");
      assert.equal(found.more, false);
    });
  }

  test("HEAD moved since the index (a commit): the walk, bounded, which says its count is a lower bound", async () => {
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "after the index");
    for (const impl of implementations) {
      const [found] = await impl.module.changedSince([{ dir: ws, indexDir }]);
      assert.equal(found.source, "walk", impl.name);
      assert.ok(found.cut, `${impl.name}: the walk's bound ended it`);
    }
  });
});
