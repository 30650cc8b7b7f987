// Changes no Pi tool reported, in a git repository (lib/api/disk-changes.js): while HEAD has not
// moved since the index, git names the candidates (differing from its index, staged, untracked
// and not ignored) and only those are looked at, so a change past the walk's file bound is still
// counted, with no lower bound; with auto sync on, a large tree is also watched (the addon, on
// Linux): git's list once the watch is ready, and the watch's files since, with no git run; once
// HEAD moved (a commit since the index), the bounded walk. The glue's changedSince over each
// runner (the WebAssembly core takes the same `paths`), with real git.
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

  for (const impl of implementations) {
    test(`${impl.name}: auto sync on: a large tree is watched; once git's list is kept, the watch's files are added with no git run (Linux); the Node runner, which cannot watch, keeps git's`, async () => {
      const count = async () => (await impl.module.changedSince([{ dir: ws, indexDir }], { watch: true }))[0];
      const counted = (found) => found.files.map((f) => path.relative(ws, f)).sort();
      let found = await count();
      const watches = impl.id === "native" && process.platform === "linux";
      // The watch runs on its own thread: counts until it is ready and git's list is kept (bounded).
      for (let i = 0; watches && found.source !== "watch" && i < 500; i += 1) {
        await new Promise((r) => setTimeout(r, 10));
        found = await count();
      }
      assert.equal(found.source, watches ? "watch" : "git");
      assert.deepEqual(counted(found), ["gen/f50000.ts", "gen/staged.ts", "new.py"]);
      fs.mkdirSync(path.join(ws, "fresh", "deeper"), { recursive: true });
      fs.writeFileSync(path.join(ws, "fresh", "deeper", `n_${impl.id}.ts`), "export const n = 1;\n");
      fs.mkdirSync(path.join(ws, "ignored", "more"), { recursive: true });
      fs.writeFileSync(path.join(ws, "ignored", "more", "i.ts"), ""); // ignored: never counted
      fs.appendFileSync(path.join(ws, "gen", "f00000.ts"), "export const y = 1;\n");
      const want = [`fresh/deeper/n_${impl.id}.ts`, "gen/f00000.ts", "gen/f50000.ts", "gen/staged.ts", "new.py"];
      found = await count();
      for (let i = 0; watches && counted(found).length < want.length && i < 500; i += 1) {
        await new Promise((r) => setTimeout(r, 10));
        found = await count();
      }
      assert.equal(found.source, watches ? "watch" : "git");
      assert.deepEqual(counted(found), want);
      assert.equal(found.cut, null);
      impl.module.unwatchChanges();
      fs.rmSync(path.join(ws, "fresh"), { recursive: true });
      git(ws, "checkout", "-q", "--", "gen/f00000.ts");
      fs.utimesSync(path.join(ws, "gen", "f00000.ts"), Date.now() / 1000 - 120, Date.now() / 1000 - 120);
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
