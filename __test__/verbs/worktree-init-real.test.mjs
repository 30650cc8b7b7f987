// `/codegraph init` in a git worktree without an index (lib/pi/commands/worktree-init.js), through
// a Pi host (helpers/pi-host.mjs) with the real pinned CodeGraph CLI and real git: Pi's select
// offers the other worktrees' indexes beside a new one; the copy-and-sync path answers a symbol
// that exists only in the new worktree, from CodeGraph's index; the other worktree's index is
// byte-identical afterwards; an index of another repository is refused and nothing is kept; a
// worktree inside the main checkout (where CodeGraph itself would walk up to the main index) gets
// its own; /codegraph doctor names the worktree and where its index came from.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { hashTree, root, tempDir, useAgentDirEnv, withEnv } from "../helpers/index.mjs";
import { codegraphSaid, hostWith, piInteractive, recordingUi } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const realBin = path.join(root, "node_modules", ".bin");
const cliMissing = fs.existsSync(path.join(realBin, "codegraph")) ? false : "the pinned CodeGraph CLI is not installed";
// CodeGraph's launcher calls dirname/readlink through PATH; git is found there too.
const realPath = [realBin, path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter);
const NEW_SOURCE = "export function refundAuditTrail(id: string): string {\n  return `audit:${id}`;\n}\n";

useAgentDirEnv(["PI_CODEGRAPH_TOOLS"]);
before(piInteractive);

const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    env: { ...process.env, PATH: realPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
const codegraphInit = (dir) =>
  execFileSync(path.join(realBin, "codegraph"), ["init", "-y", "."], {
    cwd: dir,
    env: { ...process.env, PATH: realPath, DO_NOT_TRACK: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });

/** A Pi session in `cwd` whose select picks the option `pick(options)` returns. */
async function session(cwd, pick) {
  const host = await hostWith(pkg, "worktrees");
  const ui = recordingUi({ select: ({ options }) => pick(options) });
  const ctx = { cwd, hasUI: true, ui };
  await host.startSession(ctx);
  const search = (name) =>
    host.registry.find((t) => t.name === "codegraph_search").execute("c1", { name }, undefined, undefined, ctx);
  return { host, ui, ctx, cg: (args) => codegraphSaid(host, ctx, args), search };
}

describe("init in a git worktree: copy another worktree's index and sync it", {
  skip: cliMissing,
  timeout: 180000,
}, () => {
  let scratch;
  let main;
  const env = (fn) => withEnv({ PATH: realPath, DO_NOT_TRACK: "1", PI_CODEGRAPH_BIN: undefined }, fn);

  before(() => {
    scratch = tempDir("pi-codegraph-worktrees-");
    main = path.join(scratch, "main");
    fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), main, { recursive: true });
    fs.rmSync(path.join(main, ".codegraph"), { recursive: true, force: true });
    fs.writeFileSync(path.join(main, ".gitignore"), ".codegraph/\n.worktrees/\n");
    git(main, "init", "-q", "-b", "main");
    git(main, "add", "-A");
    git(main, "commit", "-q", "-m", "shop");
    codegraphInit(main);
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  test("copy and sync: a symbol only this worktree has is answered from the index; the main index is byte-identical", async () => {
    const wt = path.join(scratch, "feature");
    git(main, "worktree", "add", "-q", "-b", "feature", wt);
    fs.writeFileSync(path.join(wt, "src", "audit.ts"), NEW_SOURCE);
    const before = hashTree(path.join(main, ".codegraph"));
    await env(async () => {
      const s = await session(wt, (options) => options.find((o) => o.startsWith("Copy the index of main at ")));
      const said = await s.cg("init");
      assert.equal(s.ui.selects.length, 1);
      assert.match(s.ui.selects[0].title, /is a git worktree without a CodeGraph index/);
      assert.deepEqual(
        s.ui.selects[0].options.map((o) => o.replace(/\([^)]*\)/, "(…)")),
        [`Copy the index of main at ${main} (…) and sync it (seconds)`, "A new index of this worktree (…)"],
      );
      assert.equal(s.ui.confirms.length, 0, "the choice is the consent");
      assert.match(said, /^\/codegraph init: copied the index of main at .* and synced it with this worktree in /);
      const answer = (await s.search("refundAuditTrail")).content[0].text;
      assert.match(answer, /src\/audit\.ts/);
      assert.doesNotMatch(
        answer,
        /Not in CodeGraph's index|changed after the CodeGraph index/,
        "CodeGraph's own answer",
      );
      assert.match(await s.cg(""), /^pi-codegraph: ready \(worktree feature\)$/m);
      const doctor = await s.cg("doctor");
      assert.match(
        doctor,
        new RegExp(
          `^worktree: feature at ${wt}, one of 2; the index is this worktree's own; its index was copied from ${main} on \\d{4}-\\d\\d-\\d\\d, then synced$`,
          "m",
        ),
      );
    });
    assert.deepEqual(hashTree(path.join(main, ".codegraph")), before, "the main worktree's index was only read");
    const copy = fs.statSync(path.join(wt, ".codegraph", "codegraph.db"));
    assert.notEqual(copy.ino, fs.statSync(path.join(main, ".codegraph", "codegraph.db")).ino);
    assert.equal(fs.lstatSync(path.join(wt, ".codegraph")).isSymbolicLink(), false);
  });

  test("an index of another repository in a worktree is refused, and nothing is kept", async () => {
    const other = path.join(scratch, "other");
    fs.mkdirSync(path.join(other, "lib"), { recursive: true });
    for (const name of ["alpha", "beta", "gamma", "delta"])
      fs.writeFileSync(path.join(other, "lib", `${name}.py`), `def ${name}():\n    return 1\n`);
    codegraphInit(other);
    const planted = path.join(scratch, "planted");
    git(main, "worktree", "add", "-q", "-b", "planted", planted);
    fs.cpSync(path.join(other, ".codegraph"), path.join(planted, ".codegraph"), { recursive: true });
    const wt = path.join(scratch, "third");
    git(main, "worktree", "add", "-q", "-b", "third", wt);
    await env(async () => {
      const s = await session(wt, (options) => options.find((o) => o.startsWith("Copy the index of planted at ")));
      const said = await s.cg("init");
      assert.match(
        said,
        /^\/codegraph init: the index of planted at .* was not copied: it is not this repository's: of 4 of its 4 files, 0 are in this worktree\. Nothing was kept;/,
      );
    });
    assert.equal(fs.existsSync(path.join(wt, ".codegraph")), false, "nothing kept");
    assert.deepEqual(
      fs.readdirSync(wt).filter((n) => n.startsWith(".codegraph")),
      [],
    );
  });

  test("a worktree inside the main checkout gets an index of its own, never the enclosing main one", async () => {
    const nested = path.join(main, ".worktrees", "nested");
    git(main, "worktree", "add", "-q", "-b", "nested", nested);
    fs.writeFileSync(path.join(nested, "src", "audit.ts"), NEW_SOURCE);
    await env(async () => {
      const s = await session(nested, (options) => options.find((o) => o.startsWith("Copy the index of main at ")));
      assert.match(await s.cg("init"), /^\/codegraph init: copied the index of main at /);
      assert.match((await s.search("refundAuditTrail")).content[0].text, /src\/audit\.ts/);
    });
    assert.ok(fs.existsSync(path.join(nested, ".codegraph", "codegraph.db")));
  });

  test("another worktree is never a project: not found by the scan below the workspace, refused by projects add", async () => {
    const inner = path.join(main, "wts", "inner");
    git(main, "worktree", "add", "-q", "-b", "inner", inner);
    codegraphInit(inner);
    const sub = path.join(main, "py");
    await env(async () => {
      const s = await session(main, () => undefined);
      const listed = await s.cg("projects");
      assert.doesNotMatch(listed, /inner/, listed);
      const refused = await s.cg(`projects add ${inner}`);
      assert.match(
        refused,
        /^\/codegraph projects add: nothing added: .*inner is in another git worktree of this repository/,
      );
      // A directory of this worktree is no other worktree: refused for its own reason only.
      assert.doesNotMatch(await s.cg(`projects add ${sub}`), /another git worktree/);
    });
  });
});

for (const impl of implementations) {
  test(`${impl.name}: copyIndex copies whole or refuses, leaving nothing`, async () => {
    // The runner's own method (the native addon's, or the WebAssembly core's in the Node runner's worker).
    const glue = impl.id === "native" ? require("../../lib/runners/native.js").nativeRunner : require(impl.entry);
    const from = tempDir("pi-codegraph-copy-from-");
    fs.mkdirSync(path.join(from, ".codegraph"));
    fs.writeFileSync(path.join(from, ".codegraph", "codegraph.db"), Buffer.alloc(3 << 20, 1));
    fs.writeFileSync(path.join(from, ".codegraph", "codegraph.lock"), "1");
    const ws = tempDir("pi-codegraph-copy-to-");
    const request = { from: path.join(from, ".codegraph"), to: path.join(ws, ".codegraph") };
    const aborted = AbortSignal.abort();
    assert.deepEqual(await glue.copyIndex(ws, request, aborted), {
      files: [],
      bytes: 0,
      refused: { is: "stopped", why: "cancelled" },
    });
    assert.deepEqual(fs.readdirSync(ws), []);
    const copied = await glue.copyIndex(ws, request);
    assert.deepEqual([copied.files, copied.bytes, copied.refused ?? null], [["codegraph.db"], 3 << 20, null]);
    assert.deepEqual(fs.readdirSync(path.join(ws, ".codegraph")), ["codegraph.db"]);
    assert.equal((await glue.copyIndex(ws, request)).refused.is, "targetExists");
  });
}
