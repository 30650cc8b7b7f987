// Truthful codes when the workspace vanishes during a call or only access fails: a workspace
// deleted or renamed at each point of the call is CODEGRAPH_WORKSPACE (never "install
// CodeGraph"); an index this user may not read, write or enter is CODEGRAPH_INDEX_READONLY with
// a permissions remediation (never "move or delete the index"); a corrupt db is the corrupt-index
// remediation.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { expectError, fakeCli, makeWorkspace, tempDir } from "../helpers/index.mjs";
import { assertNothingLeft, ROOT_USER, runNode, waitFor } from "../helpers/processes.mjs";
import { eachRunner, saved, useFaultsSuite } from "./suite.mjs";

useFaultsSuite();

const CANTOPEN = "✗ Explore failed: unable to open database file\n";

/** Resolves once some process opens the FIFO `fifo` for reading (a blocking open for writing returns then). */
const nextReader = (fifo) =>
  new Promise((resolve) => {
    spawn("/bin/sh", ["-c", 'exec 3>"$0"', fifo], { stdio: "ignore" }).on("exit", resolve);
  });

/** A parent any user may enter, holding a workspace `ws` (mode 0777 all the way down). */
function sharedWorkspace() {
  const parent = tempDir("pi-codegraph-faults-access-");
  fs.chmodSync(parent, 0o755);
  const ws = path.join(parent, "ws");
  fs.cpSync(makeWorkspace(), ws, { recursive: true });
  execFileSync("chmod", ["-R", "a+rwX", ws], { env: { PATH: saved.PATH } });
  return { parent, ws };
}

eachRunner("the workspace vanishes, or only access fails", ({ exploreWith, callee }) => {
  for (const how of ["deleted", "renamed"]) {
    test(`${how} while the CLI runs, which then fails: CODEGRAPH_WORKSPACE, not the CLI's exit`, async () => {
      const ws = makeWorkspace();
      const go = `${ws}.go`;
      const fake = fakeCli([
        ["report"],
        ["waitFile", go],
        ["stderr", "Error: ENOENT: process.cwd failed with error no such file or directory, uv_cwd\n"],
        ["exit", 1],
      ]);
      const pending = exploreWith(fake.file, "q", ws, null, { timeoutMs: 15000 });
      await waitFor(() => fake.readPids(), { what: "the fake to start" });
      if (how === "deleted") fs.rmSync(ws, { recursive: true, force: true });
      else fs.renameSync(ws, `${ws}.moved`);
      fs.writeFileSync(go, "");
      const err = expectError(await pending, "CODEGRAPH_WORKSPACE");
      assert.match(err.message, /removed or renamed during the call/);
      await assertNothingLeft();
    });
  }

  for (const how of ["deleted", "renamed"]) {
    test(`${how} while the call waits for an index writer, before the spawn: CODEGRAPH_WORKSPACE, not NOT_FOUND`, async () => {
      // The call reads rebuild.pid (a FIFO here, so each read is observable) and then
      // codegraph.lock (naming this live process) once in the checks and again on every re-check:
      // after the second read it is past the checks, waiting to spawn.
      const ws = makeWorkspace();
      const fifo = path.join(ws, ".codegraph", "rebuild.pid");
      execFileSync("mkfifo", [fifo], { env: { PATH: saved.PATH } });
      fs.writeFileSync(path.join(ws, ".codegraph", "codegraph.lock"), `${process.pid}\n`);
      const fake = fakeCli([["stdout", "must not run\n"]]);
      const read = nextReader(fifo);
      const pending = exploreWith(fake.file, "q", ws, null, { timeoutMs: 15000 });
      await read;
      await nextReader(fifo);
      if (how === "deleted") fs.rmSync(ws, { recursive: true, force: true });
      else fs.renameSync(ws, `${ws}.moved`);
      const err = expectError(await pending, "CODEGRAPH_WORKSPACE");
      assert.match(err.message, /removed or renamed during the call/);
      assert.doesNotMatch(err.remediation, /Install/);
      await assertNothingLeft();
    });
  }

  for (const [label, marker] of [
    ["database disk image is malformed", "✗ Explore failed: database disk image is malformed\n"],
    ["file is not a database", "Error: file is not a database (SQLITE_NOTADB)\n"],
  ]) {
    test(`the CLI says "${label}": CODEGRAPH_NO_INDEX with the corrupt-index remediation`, async () => {
      const fake = fakeCli([
        ["stderr", marker],
        ["exit", 1],
      ]);
      const err = expectError(await exploreWith(fake.file, "q", makeWorkspace()), "CODEGRAPH_NO_INDEX");
      assert.match(err.remediation, /Move or delete .*codegraph\.db/);
    });
  }

  test('"unable to open database file" with every access allowed: CODEGRAPH_EXIT with the stderr tail', async () => {
    const fake = fakeCli([
      ["stderr", CANTOPEN],
      ["exit", 1],
    ]);
    const err = expectError(await exploreWith(fake.file, "q", makeWorkspace()), "CODEGRAPH_EXIT");
    assert.match(err.message, /unable to open database file/);
  });

  // As `nobody` when this suite runs as root (root passes every permission check).
  const asUser = ROOT_USER ? { uid: 65534, gid: 65534 } : {};
  async function exploreAsUser(ws, fake) {
    fs.chmodSync(fake.dir, 0o755);
    const script = `${callee}("q", ${JSON.stringify(ws)}).then(
      (r) => console.log(JSON.stringify({ text: r.text })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message, remediation: e.remediation })));`;
    const r = await runNode(["-e", script], {
      env: { ...process.env, PI_CODEGRAPH_BIN: fake.file, HOME: path.dirname(ws) },
      ...asUser,
    });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  }
  const cases = {
    "codegraph.db unreadable (0600, another owner)": (ws) =>
      fs.chmodSync(path.join(ws, ".codegraph/codegraph.db"), 0o600),
    ".codegraph/ not enterable (0700)": (ws) => fs.chmodSync(path.join(ws, ".codegraph"), 0o700),
    ".codegraph/ readable but without its execute bit (0644)": (ws) => fs.chmodSync(path.join(ws, ".codegraph"), 0o644),
    "codegraph.db-wal of another owner (0600), the CLI cannot open the db": (ws) => {
      fs.writeFileSync(path.join(ws, ".codegraph/codegraph.db-wal"), "", { mode: 0o600 });
      fs.chmodSync(path.join(ws, ".codegraph/codegraph.db-wal"), 0o600);
    },
    "codegraph.db-shm of another owner (0600), the CLI cannot open the db": (ws) => {
      fs.writeFileSync(path.join(ws, ".codegraph/codegraph.db-shm"), "", { mode: 0o600 });
      fs.chmodSync(path.join(ws, ".codegraph/codegraph.db-shm"), 0o600);
    },
  };
  for (const [label, lock] of Object.entries(cases)) {
    test(`${label}: CODEGRAPH_INDEX_READONLY, a permissions remediation, never "move or delete"`, {
      skip: !ROOT_USER && "needs root to make files another user's",
    }, async () => {
      const { ws } = sharedWorkspace();
      lock(ws);
      const out = await exploreAsUser(
        ws,
        fakeCli([
          ["stderr", CANTOPEN],
          ["exit", 1],
        ]),
      );
      assert.equal(out.code, "CODEGRAPH_INDEX_READONLY", out.message ?? out.text);
      assert.match(out.remediation, /readable and writable/);
      assert.match(out.remediation, /do not move or delete it/);
      assert.doesNotMatch(out.remediation, /Move or delete|remove it/);
      await assertNothingLeft();
    });
  }

  for (const [label, mode] of [
    ["unreadable (0700)", 0o700],
    ["listable but not enterable (0744)", 0o744],
  ]) {
    test(`the workspace itself ${label} for this user: CODEGRAPH_WORKSPACE with a permissions remediation`, {
      skip: !ROOT_USER && "needs root to make files another user's",
    }, async () => {
      const { ws } = sharedWorkspace();
      fs.chmodSync(ws, mode);
      const out = await exploreAsUser(ws, fakeCli([["stdout", "must not run\n"]]));
      assert.equal(out.code, "CODEGRAPH_WORKSPACE", out.message ?? out.text);
      assert.match(out.remediation, /read and execute access/);
      await assertNothingLeft();
    });
  }
  /** explore() as `nobody` in a child that first runs `prelude` (the same as exploreAsUser, async). */
  function exploreAsUserAsync(ws, fake, prelude = "") {
    fs.chmodSync(fake.dir, 0o777);
    const script = `${prelude};${callee}("q", ${JSON.stringify(ws)}).then(
      (r) => console.log(JSON.stringify({ text: r.text })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message, remediation: e.remediation })));`;
    return runNode(["-e", script], {
      env: { ...process.env, PI_CODEGRAPH_BIN: fake.file, HOME: path.dirname(ws) },
      ...asUser,
    }).then((r) => {
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    });
  }

  test("the workspace locked (chmod 0700, another owner) while the CLI runs, which then fails: CODEGRAPH_WORKSPACE, permissions", {
    skip: !ROOT_USER && "needs root to make files another user's",
  }, async () => {
    const { parent, ws } = sharedWorkspace();
    const go = path.join(parent, "go");
    const fake = fakeCli([["report"], ["waitFile", go], ["stderr", CANTOPEN], ["exit", 1]]);
    const pending = exploreAsUserAsync(ws, fake);
    await waitFor(() => fake.readPids(), { what: "the fake to start" });
    fs.chmodSync(ws, 0o700);
    fs.writeFileSync(go, "");
    const out = await pending;
    assert.equal(out.code, "CODEGRAPH_WORKSPACE", out.message ?? out.text);
    assert.match(out.remediation, /read and execute access/);
    await assertNothingLeft();
  });

  test("the workspace locked while the call waits for a writer, before the spawn: CODEGRAPH_WORKSPACE, not CODEGRAPH_SPAWN", {
    skip: !ROOT_USER && "needs root to make files another user's",
  }, async () => {
    const { ws } = sharedWorkspace();
    const fifo = path.join(ws, ".codegraph", "rebuild.pid");
    execFileSync("mkfifo", ["-m", "0666", fifo], { env: { PATH: saved.PATH } });
    // The child names itself the writer, so the call waits (see the deleted-workspace case).
    const lock = path.join(ws, ".codegraph", "codegraph.lock");
    const read = nextReader(fifo);
    const pending = exploreAsUserAsync(
      ws,
      fakeCli([["stdout", "must not run\n"]]),
      `require("fs").writeFileSync(${JSON.stringify(lock)}, String(process.pid))`,
    );
    await read;
    await nextReader(fifo);
    fs.chmodSync(ws, 0o700); // the lock becomes unreadable: the wait ends, the spawn cannot enter
    const out = await pending;
    assert.equal(out.code, "CODEGRAPH_WORKSPACE", out.message ?? out.text);
    assert.match(out.remediation, /read and execute access/);
    await assertNothingLeft();
  });
});
