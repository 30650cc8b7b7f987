// The index preflight: metadata only, never opening a FIFO, device, socket or the host's stdin;
// the workspace's own index, not one symlinked in from elsewhere or an ancestor's.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { test } from "node:test";
import { expectError, expectResult, fakeCli, makeWorkspace, tempDir, withEnv } from "../helpers/index.mjs";
import { assertNothingLeft, runNode } from "../helpers/processes.mjs";
import { eachRunner, saved, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();

/** A workspace whose `.codegraph/codegraph.db` is made by `make(dbPath)` (a FIFO, a symlink …). */
function workspaceWithDb(make) {
  const dir = makeWorkspace({ index: false });
  fs.mkdirSync(path.join(dir, ".codegraph"));
  make(path.join(dir, ".codegraph", "codegraph.db"));
  return dir;
}
const mkfifo = (p) => execFileSync("mkfifo", [p], { env: { PATH: saved.PATH } });
const mustNotRun = () => fakeCli([["stdout", "must not run\n"]]);

eachRunner("never hangs, never touches the host's stdin", ({ exploreWith, diagnose, glue, callee }) => {
  const special = {
    "a FIFO": (p) => mkfifo(p),
    "a symlink to a FIFO": (p) => {
      const fifo = path.join(tempDir(), "fifo");
      mkfifo(fifo);
      fs.symlinkSync(fifo, p);
    },
    "a character device (symlink to /dev/zero)": (p) => fs.symlinkSync("/dev/zero", p),
    "a symlink to /dev/stdin": (p) => fs.symlinkSync("/dev/stdin", p),
    "a directory": (p) => fs.mkdirSync(p),
  };
  for (const [label, make] of Object.entries(special)) {
    test(`codegraph.db is ${label}: CODEGRAPH_NO_INDEX at once, never opened, the CLI never runs`, async () => {
      const dir = workspaceWithDb(make);
      const fake = mustNotRun();
      const outcome = await exploreWith(fake.file, "q", dir, null, { timeoutMs: 20000 });
      const err = expectError(outcome, "CODEGRAPH_NO_INDEX");
      // Well before the 20 s deadline a blocked open would reach (a busy machine is no hang).
      assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
      assert.match(err.message, /not a regular file|not a directory|is a directory/);
      const d = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => diagnose(dir));
      assert.equal(d.problemCode, "CODEGRAPH_NO_INDEX");
    });
  }

  test("codegraph.db is a listening socket: CODEGRAPH_NO_INDEX", async () => {
    const dir = makeWorkspace({ index: false });
    fs.mkdirSync(path.join(dir, ".codegraph"));
    const server = net.createServer();
    await new Promise((r) => server.listen(path.join(dir, ".codegraph", "codegraph.db"), r));
    try {
      const err = expectError(await exploreWith(mustNotRun().file, "q", dir), "CODEGRAPH_NO_INDEX");
      assert.match(err.message, /socket/);
    } finally {
      server.close();
    }
  });

  test(".codegraph itself is a FIFO, and the workspace is a FIFO: clear errors at once", async () => {
    const dir = makeWorkspace({ index: false });
    mkfifo(path.join(dir, ".codegraph"));
    const fake = mustNotRun();
    const err = expectError(await exploreWith(fake.file, "q", dir), "CODEGRAPH_NO_INDEX");
    assert.match(err.message, /FIFO/);
    const fifoWs = path.join(tempDir(), "ws-fifo");
    mkfifo(fifoWs);
    const wsErr = expectError(await exploreWith(fake.file, "q", fifoWs), "CODEGRAPH_WORKSPACE");
    assert.match(wsErr.message, /FIFO/);
  });

  test("eight FIFO explores at once do not starve a normal explore after them", async () => {
    const fifoWs = workspaceWithDb(mkfifo);
    const fake = fakeCli([["stdout", "normal answer\n"]]);
    // The CLI on PATH for the whole test: the calls overlap, and one call's PI_CODEGRAPH_BIN, put
    // back when it ends, must not leave a queued call without a CLI (the executable is found first).
    await withEnv({ PATH: fake.dir }, async () => {
      const stuck = Array.from({ length: 8 }, () => exploreWith(fake.file, "q", fifoWs));
      const outcome = await exploreWith(fake.file, "q", suite.ws, null, { timeoutMs: 20000 });
      assert.equal(expectResult(outcome).text, "normal answer\n");
      assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
      for (const o of await Promise.all(stuck)) expectError(o, "CODEGRAPH_NO_INDEX");
    });
    await assertNothingLeft();
  });

  test("a repository's `codegraph.db -> /dev/stdin` never eats the host's stdin (diagnose and explore)", async () => {
    const dir = workspaceWithDb((p) => fs.symlinkSync("/dev/stdin", p));
    const input = "first keystrokes of the user, or Pi's RPC input\n";
    const script = `const { diagnose } = ${glue};
const explore = ${callee};
(async () => {
const d = await diagnose(${JSON.stringify(dir)});
const e = await explore("q", ${JSON.stringify(dir)}).then(() => "ok", (err) => err.code);
let data = "";
process.stdin.on("data", (c) => { data += c; });
process.stdin.on("end", () => process.stdout.write(JSON.stringify({ d: d.problemCode, e, data })));
})();`;
    const r = await runNode(["-e", script], {
      env: { ...process.env, PI_CODEGRAPH_BIN: mustNotRun().file },
      input,
      timeoutMs: 15000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { d: "CODEGRAPH_NO_INDEX", e: "CODEGRAPH_NO_INDEX", data: input });
  });
});

eachRunner("whose index", ({ exploreWith, diagnose }) => {
  test(".codegraph symlinked to another project's index: refused unless opted in, and details name it", async () => {
    const other = makeWorkspace();
    const linked = makeWorkspace({ index: false });
    fs.symlinkSync(path.join(other, ".codegraph"), path.join(linked, ".codegraph"));
    const fake = fakeCli([["stdout", "answer\n"]]);
    const err = expectError(await exploreWith(fake.file, "q", linked), "CODEGRAPH_NO_INDEX");
    assert.match(err.message, /outside the workspace/);
    assert.match(err.remediation, /PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX=1/);
    const ok = expectResult(
      await exploreWith(fake.file, "q", linked, null, {}, { PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX: "1" }),
    );
    assert.equal(ok.details.indexDir, path.join(linked, ".codegraph"));
    assert.equal(ok.details.indexResolved, path.join(other, ".codegraph"));
    const d = await withEnv({ PI_CODEGRAPH_BIN: fake.file, PI_CODEGRAPH_ALLOW_EXTERNAL_INDEX: "1" }, () =>
      diagnose(linked),
    );
    assert.equal(d.indexResolved, path.join(other, ".codegraph"));
    // Only the database linked out: refused the same way.
    const dbLinked = workspaceWithDb((p) => fs.symlinkSync(path.join(other, ".codegraph", "codegraph.db"), p));
    expectError(await exploreWith(fake.file, "q", dbLinked), "CODEGRAPH_NO_INDEX");
  });

  test("a subdirectory of an indexed project: CODEGRAPH_NO_INDEX naming the ancestor's index, the CLI never runs", async () => {
    const sub = path.join(suite.ws, "packages", "app");
    fs.mkdirSync(sub, { recursive: true });
    const ran = path.join(tempDir(), "ran");
    const fake = fakeCli([["appendArgv0", ran]]);
    const err = expectError(await exploreWith(fake.file, "q", sub), "CODEGRAPH_NO_INDEX");
    assert.equal(err.details.ancestorIndex, suite.ws);
    assert.match(
      err.remediation,
      /The enclosing project (.*) has a CodeGraph index: add it in Pi with `\/codegraph projects add \1` .*, or start Pi there/,
    );
    assert.match(err.remediation, /codegraph init/);
    assert.equal(fs.existsSync(ran), false, "the CLI never ran (it would answer from the ancestor's index)");
    const d = await withEnv({ PI_CODEGRAPH_BIN: fake.file }, () => diagnose(sub));
    assert.equal(d.problemCode, "CODEGRAPH_NO_INDEX");
    assert.equal(d.ancestorIndex, suite.ws);
  });

  test("a CLI that finds the index unusable: CODEGRAPH_NO_INDEX naming the database to move", async () => {
    const fake = fakeCli([
      ["stderr", "✗ CodeGraph isn't available here — no .codegraph/ index exists in this directory.\n"],
      ["exit", 1],
    ]);
    const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_NO_INDEX");
    assert.match(err.message, /cannot use .*codegraph\.db as an index/);
    assert.match(err.remediation, /^Move or delete /);
    assert.equal(err.details.indexDir, path.join(suite.ws, ".codegraph"));
  });
});
