// From the first moment of a `codegraph init`: it creates codegraph.db (schema in the WAL, the
// main file one page long) 50–100 ms before it takes codegraph.lock, and an explore in that
// window would answer exit 0 from an empty index. A database exactly one page long whose header
// counts one page is a writer at work (no pid yet): the call waits, and otherwise says
// CODEGRAPH_INDEX_BUSY. A finished index cut short is damaged, not an init: the CLI answers.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { expectError, expectResult, fakeCli, makeWorkspace, tempDir, withEnv } from "../helpers/index.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

useFaultsSuite();

/** A valid SQLite database file of `pages` pages of 4096 bytes (the header is what counts). */
function sqliteDb(pages) {
  const db = Buffer.alloc(4096 * pages);
  db.write("SQLite format 3\0", 0, "latin1");
  db.writeUInt16BE(4096, 16);
  db.writeUInt32BE(pages, 28);
  return db;
}
function workspaceWithDb(pages, bytes = sqliteDb(pages)) {
  const ws = makeWorkspace();
  fs.writeFileSync(path.join(ws, ".codegraph", "codegraph.db"), bytes);
  return ws;
}

eachRunner("the index while `codegraph init` creates it, before its lock", ({ exploreWith, diagnose }) => {
  test("a database only started (its first page, no lock yet): CODEGRAPH_INDEX_BUSY, the CLI never ran", async () => {
    const ws = workspaceWithDb(1);
    const ran = path.join(tempDir(), "ran");
    const fake = fakeCli([
      ["appendArgv0", ran],
      ["stdout", "an answer from an empty index\n"],
    ]);
    const outcome = await exploreWith(fake.file, "q", ws, null, { timeoutMs: 1200 });
    const err = expectError(outcome, "CODEGRAPH_INDEX_BUSY");
    assert.match(err.message, /codegraph\.db holds only its first page: `codegraph init` is creating it/);
    assert.match(
      err.remediation,
      /an init was interrupted: run `\/codegraph rebuild` in Pi \(or `codegraph index` in the workspace/,
    );
    assert.equal(fs.existsSync(ran), false, "no answer from the empty index");
    const d = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => diagnose(ws));
    assert.equal(d.problemCode, "CODEGRAPH_INDEX_BUSY", "the status slot says indexing");
  });

  test("a finished database (more than one page) is answered at once", async () => {
    const ws = workspaceWithDb(3);
    const fake = fakeCli([["stdout", "an answer\n"]]);
    const outcome = await exploreWith(fake.file, "q", ws);
    assert.equal(expectResult(outcome).text, "an answer\n");
    // Well before the 10 s a wait for a writer would take.
    assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
  });

  // A finished index truncated (a copy cut short, a full disk): its header still counts every
  // page, or the file is shorter than a page. No wait: the CLI runs and its verdict stands.
  for (const [title, bytes] of [
    ["one page of a header that counts 42", sqliteDb(42).subarray(0, 4096)],
    ["the 100-byte header alone", sqliteDb(42).subarray(0, 100)],
    ["less than one page, header counting one", sqliteDb(1).subarray(0, 2048)],
  ]) {
    test(`a truncated database (${title}) is no init: the CLI runs at once`, async () => {
      const ws = workspaceWithDb(0, bytes);
      const fake = fakeCli([["stdout", "the CLI ran\n"]]);
      const outcome = await exploreWith(fake.file, "q", ws);
      assert.equal(expectResult(outcome).text, "the CLI ran\n");
      // Well before the 10 s a wait for a writer would take.
      assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
    });
  }
});

// CodeGraph takes codegraph.lock in two steps (`writeFileSync(lock, pid, { flag: "wx" })`: the
// file is created, then the pid written): a call that reads the lock between them must still see
// a writer, and an empty lock left behind must not hold calls forever.
eachRunner("codegraph.lock while a write takes it", ({ exploreWith }) => {
  const emptyLock = (ageMs) => {
    const ws = workspaceWithDb(3);
    const lock = path.join(ws, ".codegraph", "codegraph.lock");
    fs.writeFileSync(lock, "");
    const at = new Date(Date.now() - ageMs);
    fs.utimesSync(lock, at, at);
    return ws;
  };

  test("a lock just created, no pid in it yet: a writer taking it (the call waits, then CODEGRAPH_INDEX_BUSY), the CLI never ran", async () => {
    const ran = path.join(tempDir(), "ran");
    const fake = fakeCli([
      ["appendArgv0", ran],
      ["stdout", "an answer mid-write\n"],
    ]);
    const outcome = await exploreWith(fake.file, "q", emptyLock(0), null, { timeoutMs: 1200 });
    const err = expectError(outcome, "CODEGRAPH_INDEX_BUSY");
    assert.match(err.message, /codegraph\.lock was just created and names no process yet/);
    assert.match(err.remediation, /a CodeGraph write was taking its lock/);
    assert.equal(fs.existsSync(ran), false, "no answer from an index being written");
  });

  test("an empty lock a minute old is no sign of a writer: the CLI answers at once", async () => {
    const fake = fakeCli([["stdout", "an answer\n"]]);
    const outcome = await exploreWith(fake.file, "q", emptyLock(60_000));
    assert.equal(expectResult(outcome).text, "an answer\n");
    assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
  });
});
