// The workspace: deleted under a running CLI, a symlink, unreadable, not a directory: every case
// settles with the answer or a CODEGRAPH_WORKSPACE that says which.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { expectError, expectResult, fakeCli, makeWorkspace, tempDir } from "../helpers/index.mjs";
import { assertNothingLeft, isAlive, processesDie, ROOT_USER, runNode, waitFor } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();

eachRunner("the workspace", ({ exploreWith, callee }) => {
  test("deleted while the CLI runs: the call settles with the answer, no hang", async (t) => {
    const doomed = makeWorkspace();
    const fake = fakeCli([
      ["report"],
      ["waitFile", `${doomed}.deleted`],
      ["stdout", "answer after deletion\n"],
      ["cwd"],
    ]);
    const pending = exploreWith(fake.file, "q", doomed, null, { timeoutMs: 15000 });
    const p = await waitFor(() => fake.readPids(), { what: "the fake to start" });
    fs.rmSync(doomed, { recursive: true, force: true });
    fs.writeFileSync(`${doomed}.deleted`, "");
    const outcome = await pending;
    const result = expectResult(outcome);
    assert.match(result.text, /^answer after deletion\n\{"cwd":.*\}\n$/);
    t.diagnostic(result.text.trim());
    assert.ok(outcome.ms < 10000, `took ${outcome.ms} ms`);
    assert.ok(!isAlive(p.self));
    await assertNothingLeft();
  });

  test("deleted while a hanging CLI runs, then aborted: CODEGRAPH_CANCELLED, tree stopped", async () => {
    const doomed = makeWorkspace();
    const fake = fakeCli([["grandchild", "ignore"], ["report"], ["hang"]]);
    const ac = new AbortController();
    const pending = exploreWith(fake.file, "q", doomed, ac.signal, { timeoutMs: 15000 });
    const p = await waitFor(() => fake.readPids(), { what: "the fake to start" });
    fs.rmSync(doomed, { recursive: true, force: true });
    ac.abort();
    expectError(await pending, "CODEGRAPH_CANCELLED");
    await processesDie([p.self, p.grandchild]);
    await assertNothingLeft();
  });

  test("a symlink to a workspace: works, the CLI runs in the real directory", async () => {
    const link = path.join(tempDir("pi-codegraph-faults-link-"), "ws-link");
    fs.symlinkSync(suite.ws, link);
    const fake = fakeCli([["cwd"]]);
    const result = expectResult(await exploreWith(fake.file, "q", link));
    assert.equal(JSON.parse(result.text).cwd, suite.ws);
    assert.ok([link, suite.ws].includes(result.details.cwd), result.details.cwd);
    await assertNothingLeft();
  });

  test("unreadable (chmod 000) as root: root bypasses permission checks, so the explore still answers", {
    skip: !ROOT_USER && "not running as root",
  }, async () => {
    const locked = makeWorkspace();
    fs.chmodSync(locked, 0o000);
    try {
      const fake = fakeCli([["stdout", "root reads anything\n"]]);
      const result = expectResult(await exploreWith(fake.file, "q", locked));
      assert.equal(result.text, "root reads anything\n");
    } finally {
      fs.chmodSync(locked, 0o755);
    }
    await assertNothingLeft();
  });

  test("unreadable (chmod 000) for an unprivileged user: CODEGRAPH_WORKSPACE, not a missing index", async () => {
    // A world-traversable parent holding a workspace its owner locked, explored by `nobody`
    // (uid 65534) when this suite runs as root, else by the current user.
    const parent = tempDir("pi-codegraph-faults-perm-");
    fs.chmodSync(parent, 0o755);
    const locked = path.join(parent, "ws");
    fs.mkdirSync(path.join(locked, ".codegraph"), { recursive: true });
    fs.writeFileSync(
      path.join(locked, ".codegraph", "codegraph.db"),
      Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(100)]),
    );
    fs.chmodSync(locked, 0o000);
    const fake = fakeCli([["stdout", "should not be reached\n"]]);
    fs.chmodSync(fake.dir, 0o755);
    const script = `${callee}("q", ${JSON.stringify(locked)}).then(
      (r) => console.log(JSON.stringify({ text: r.text })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));`;
    try {
      const r = await runNode(["-e", script], {
        env: { ...process.env, PI_CODEGRAPH_BIN: fake.file, HOME: parent },
        ...(ROOT_USER ? { uid: 65534, gid: 65534 } : {}),
      });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.code, "CODEGRAPH_WORKSPACE", out.message ?? out.text);
      assert.doesNotMatch(out.message, /does not exist/, "an unreadable workspace is not a missing one");
    } finally {
      fs.chmodSync(locked, 0o755);
    }
    await assertNothingLeft();
  });

  test("a file instead of a directory (also through a symlink): CODEGRAPH_WORKSPACE", async () => {
    const fake = fakeCli([["stdout", "must not run\n"]]);
    const file = path.join(suite.ws, "main.ts");
    const link = path.join(tempDir("pi-codegraph-faults-link-"), "file-link");
    fs.symlinkSync(file, link);
    for (const cwd of [file, link, "/dev/null"]) {
      const err = expectError(await exploreWith(fake.file, "q", cwd), "CODEGRAPH_WORKSPACE");
      assert.match(err.message, /not a directory/);
    }
    const dangling = path.join(tempDir("pi-codegraph-faults-link-"), "dangling");
    fs.symlinkSync(path.join(suite.emptyDir, "gone"), dangling);
    expectError(await exploreWith(fake.file, "q", dangling), "CODEGRAPH_WORKSPACE");
    await assertNothingLeft();
  });
});
