// A CodeGraph writer that Pi's pid namespace cannot see (a dev container or sandboxed shell that
// shares the workspace) writes a pid into `codegraph.lock` that does not run here: it is never
// called interrupted, its lock never removed by `/codegraph unlock`, and the words say what is
// known. The writer is a process holding a real SQLite database open in WAL mode (as CodeGraph's
// `node:sqlite` does) with its pid in the lock; Pi's side runs in a pid namespace of its own
// (`unshare --pid`, which needs root: CI runs as root), where that pid is not there. Both
// runners, over the fake CLI; the same writer seen from its own namespace is a plain BUSY.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, root, useFakeCli } from "../helpers/index.mjs";

useFakeCli();
const UNSHARE = "/usr/bin/unshare";
const canUnshare =
  process.platform === "linux" &&
  spawnSync(UNSHARE, ["--pid", "--fork", "--mount-proc", process.execPath, "-e", ""]).status === 0;
const CHECK = path.join(root, "__test__", "helpers", "writer-check.mjs");

/** A process holding `db` open (WAL, a `nodes` table) and named in `lock`; resolves once it holds it. */
function writer(db, lock) {
  const script = `
    const { DatabaseSync } = require("node:sqlite");
    const d = new DatabaseSync(process.argv[1]);
    d.exec("PRAGMA journal_mode=WAL; CREATE TABLE IF NOT EXISTS nodes(id); INSERT INTO nodes VALUES (1);");
    require("node:fs").writeFileSync(process.argv[2], String(process.pid));
    process.stdout.write("holding\\n");
    process.stdin.on("end", () => process.exit(0)).resume();`;
  const child = spawn(process.execPath, ["--no-warnings", "-e", script, db, lock], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  after(() => child.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    child.stdout.once("data", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`the writer exited (${code})`)));
  });
}

/** What `impl`'s runner says of `ws`, from a pid namespace of its own (`isolated`) or this one. */
function check(impl, ws, isolated) {
  const node = [process.execPath, CHECK, ws];
  const argv = isolated ? [UNSHARE, "--pid", "--fork", "--mount-proc", ...node] : node;
  const env = { ...process.env, PI_CODEGRAPH_IMPL: impl.id };
  const out = spawnSync(argv[0], argv.slice(1), { env, encoding: "utf8", timeout: 60_000 });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout.trim().split("\n").at(-1));
}

describe("a writer outside Pi's pid namespace", { skip: !canUnshare && "needs unshare --pid (root on Linux)" }, () => {
  for (const impl of implementations) {
    test(`${impl.name}: busy and said so, never interrupted, its lock never removed`, async () => {
      const ws = makeWorkspace();
      const index = path.join(ws, ".codegraph");
      fs.rmSync(path.join(index, "codegraph.db"));
      const lock = path.join(index, "codegraph.lock");
      const held = await writer(path.join(index, "codegraph.db"), lock);

      const outside = check(impl, ws, true);
      assert.equal(outside.problemCode, "CODEGRAPH_INDEX_BUSY", outside.problem);
      assert.match(
        outside.problem,
        /^CodeGraph may be writing this workspace's index right now, from outside Pi's pid namespace/u,
      );
      assert.match(outside.problem, new RegExp(`names pid ${held.pid}, which does not run in Pi's pid namespace`, "u"));
      assert.match(outside.remediation, /never removes a lock a writer may hold/u);
      assert.match(outside.unlock, /outside Pi's pid namespace/u, "unlock is refused with the same words");
      assert.equal(outside.confirms, 0, "nothing offered to remove");
      assert.equal(outside.locked, true, "the lock is still there");

      // The same writer seen from its own namespace: a writer at work, as before.
      const here = check(impl, ws, false);
      assert.equal(here.problemCode, "CODEGRAPH_INDEX_BUSY", here.problem);
      assert.match(here.problem, /^CodeGraph is writing this workspace's index right now/u);
      assert.equal(here.locked, true);

      // Once nobody holds the database, the lock left behind is an interrupted write to the addon,
      // which asks the locks themselves; the Node runner, reading /proc/locks, cannot see past its
      // namespace and still does not call it stale.
      held.kill("SIGKILL");
      await new Promise((resolve) => held.once("exit", resolve));
      const gone = check(impl, ws, true);
      if (impl.id === "native") assert.equal(gone.problemCode, "CODEGRAPH_INDEX_INTERRUPTED", gone.problem);
      else assert.match(gone.problem, /processes outside Pi's pid namespace cannot be seen from here/u);
    });
  }
});
