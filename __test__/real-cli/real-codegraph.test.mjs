// The product against the real, pinned CodeGraph CLI on a small fixed fixture, through the same
// public seams: explore() and the registered tool.
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { hashTree, root, tempDir, waitFor } from "../helpers/index.mjs";
import { loadTool } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const PINNED = require("../../package.json").devDependencies["@colbymchenry/codegraph"];

const cliBin = path.join(root, "node_modules", ".bin");
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const fixture = path.join(root, "__test__", "fixtures", "shop");
const originalPath = process.env.PATH;
const originalEnv = { HOME: process.env.HOME, DO_NOT_TRACK: process.env.DO_NOT_TRACK };
let home;
let ws;
let unindexed;
let indexDir;
let tool;

/** A fresh copy of the fixture, indexed by the test itself (never by the extension). */
function indexedCopy() {
  const dir = tempDir("pi-codegraph-shop-");
  fs.cpSync(fixture, dir, { recursive: true });
  execFileSync(path.join(cliBin, "codegraph"), ["init", "-y", "."], {
    cwd: dir,
    env: { ...process.env, DO_NOT_TRACK: "1" },
    stdio: "ignore",
  });
  return dir;
}

before(async () => {
  // The pinned CLI first; its npm shim and sh launcher also need `node` and the usual tools.
  process.env.PATH = [cliBin, path.dirname(process.execPath), originalPath].join(path.delimiter);
  ws = indexedCopy();
  // A HOME of our own, and no global opt-out: only pi-codegraph's child defaults keep CodeGraph
  // from writing its telemetry queue (~/.codegraph/telemetry-queue.jsonl) there.
  home = tempDir("pi-codegraph-home-");
  process.env.HOME = home;
  delete process.env.DO_NOT_TRACK;
  indexDir = path.join(ws, ".codegraph");
  unindexed = tempDir("pi-codegraph-shop-bare-");
  fs.cpSync(fixture, unindexed, { recursive: true });
  tool = await loadTool(pkg, { cwd: ws });
});
after(() => {
  process.env.PATH = originalPath;
  for (const [k, v] of Object.entries(originalEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** Every explore must leave the index byte-identical. */
async function exploreUnchanged(request) {
  const before = hashTree(indexDir);
  const result = await pkg.explore(request, ws);
  assert.deepEqual(hashTree(indexDir), before, ".codegraph/ changed");
  return result;
}

describe(`real CodeGraph CLI ${PINNED}`, () => {
  test("records the CLI version", async (t) => {
    const { details } = await exploreUnchanged("where is main defined");
    t.diagnostic(`codegraph --version: ${details.cliVersion} (${details.executable})`);
    assert.equal(details.cliVersion, PINNED);
  });

  test("runs the platform bundle the npm shim would start: the same answer, byte for byte", async () => {
    const request = "how does CheckoutService.checkout call charge";
    const { text, details } = await exploreUnchanged(request);
    assert.equal(details.discoveredExecutable, path.join(cliBin, "codegraph"));
    assert.match(details.executable, /@colbymchenry[/\\]codegraph-[a-z0-9]+-[a-z0-9]+[/\\]bin[/\\]codegraph$/);
    assert.equal(details.cliVersionSource, "package.json");
    // The bare npm command, with the environment pi-codegraph gives its child.
    const quiet = {
      CODEGRAPH_TELEMETRY: "0",
      CODEGRAPH_NO_UPDATE_CHECK: "1",
      CODEGRAPH_NO_DOWNLOAD: "1",
      NO_COLOR: "1",
    };
    const bare = execFileSync(path.join(cliBin, "codegraph"), ["explore", "--", request], {
      cwd: ws,
      env: { ...process.env, ...quiet },
      encoding: "utf8",
    });
    assert.equal(text, bare);
  });

  test("diagnose() starts no process when the package names its version (strace)", {
    skip: spawnSync("strace", ["-V"]).status !== 0 && "strace is not installed",
  }, async () => {
    const trace = path.join(tempDir("pi-codegraph-strace-"), "trace.txt");
    const script = `require(${JSON.stringify(path.join(root, "index.js"))}).diagnose(${JSON.stringify(ws)}).then((d) => console.log(JSON.stringify(d)))`;
    const r = spawnSync("strace", ["-f", "-qq", "-e", "trace=execve", "-o", trace, process.execPath, "-e", script], {
      encoding: "utf8",
      timeout: 60000,
    });
    assert.equal(r.status, 0, r.stderr);
    const d = JSON.parse(r.stdout);
    assert.equal(d.ready, true);
    assert.equal(d.cliVersion, PINNED);
    assert.equal(d.cliVersionSource, "package.json");
    const execs = fs
      .readFileSync(trace, "utf8")
      .split("\n")
      .filter((l) => /execve\(/.test(l) && !/ENOENT/.test(l));
    assert.equal(execs.length, 1, `only node itself: ${execs.join("\n")}`);
  });

  test("a call path through an interface to its implementation", async () => {
    const { text, details } = await exploreUnchanged("how does CheckoutService.checkout call charge");
    assert.match(text, /\*\*Flow/);
    assert.match(text, /checkout \(src\/checkout\.ts:7\)/);
    assert.match(text, /dynamic: interface → impl @src\/stripe\.ts:4/);
    assert.match(text, /class CheckoutService/);
    assert.equal(details.exitCode, 0);
    assert.equal(details.truncated, false);
  });

  test("implementations of an interface", async () => {
    const { text } = await exploreUnchanged("what implements PaymentProcessor");
    assert.match(text, /StripeProcessor/);
    assert.match(text, /src\/stripe\.ts/);
  });

  test("the second language (Python) is indexed too", async () => {
    const { text } = await exploreUnchanged("how does restock_all update the Inventory stock");
    assert.match(text, /py\/restock\.py/);
    assert.match(text, /def add\(self, sku, quantity\)/);
  });

  test("no match is CodeGraph's normal answer, not an error", async () => {
    const { text, details } = await exploreUnchanged("zebra quantum teleportation");
    assert.ok(text.startsWith('No relevant code found for "zebra quantum teleportation"'), text);
    assert.equal(details.exitCode, 0);
  });

  test("requests shaped like the CLI's own options stay the query", async () => {
    for (const request of ["-p /etc restock_all", "--max-files 1 checkout", "--path=/ calculateTotal", "-h"]) {
      const { text } = await exploreUnchanged(request);
      assert.ok(
        text.includes(`**Exploration: ${request}**`) || text.startsWith(`No relevant code found for "${request}"`),
        text,
      );
      assert.doesNotMatch(text, /\/etc\/|passwd/);
    }
  });

  test("the workspace without an index gives CODEGRAPH_NO_INDEX and is left untouched", async () => {
    const before = hashTree(unindexed);
    await assert.rejects(pkg.explore("how does checkout call charge", unindexed), { code: "CODEGRAPH_NO_INDEX" });
    assert.deepEqual(hashTree(unindexed), before);
    assert.equal(fs.existsSync(path.join(unindexed, ".codegraph")), false);
  });

  test("a subdirectory of an indexed project is not its own workspace; the remedy names the project", async () => {
    const err = await pkg.explore("checkout", path.join(ws, "src")).catch((e) => e);
    assert.equal(err.code, "CODEGRAPH_NO_INDEX");
    assert.equal(err.details.ancestorIndex, ws);
    assert.match(err.remediation, new RegExp(`start Pi there \\(cd ${ws} && pi\\)`));
  });

  test("a raw ESC ] in a source comment does not cut CodeGraph's verbatim listing", async () => {
    const dir = tempDir("pi-codegraph-shop-esc-");
    fs.cpSync(fixture, dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, "src", "banner.ts"),
      "// terminal title trick: \u001b]0;not a title\nexport function printBanner(): string {\n  return 'after the escape';\n}\n",
    );
    execFileSync(path.join(cliBin, "codegraph"), ["init", "-y", "."], {
      cwd: dir,
      env: { ...process.env, DO_NOT_TRACK: "1" },
      stdio: "ignore",
    });
    const { text } = await pkg.explore("printBanner", dir);
    assert.match(text, /printBanner/);
    assert.match(text, /return 'after the escape';/, "the lines after the escape are kept");
    assert.ok(!text.includes("\u001b"));
  });

  test("a request holding ESC ] (CodeGraph echoes it) still gets the whole answer", async () => {
    const { text } = await exploreUnchanged("what calls calculateTotal \u001b]0;title");
    assert.ok(!text.includes("\u001b"));
    assert.match(text, /src\/cart\.ts/, text.slice(0, 300));
  });

  test("a read-only index: CODEGRAPH_INDEX_READONLY, the index left as it was", {
    skip: !isRoot && "needs root to run as nobody",
  }, async () => {
    // CodeGraph 1.6.1 opens its database read-write even to explore (SQLite creates -wal/-shm).
    const parent = tempDir("pi-codegraph-shop-ro-");
    fs.chmodSync(parent, 0o755);
    const ro = path.join(parent, "ws");
    fs.cpSync(ws, ro, { recursive: true });
    spawnSync("chmod", ["-R", "a+rX", ro]);
    fs.chmodSync(path.join(ro, ".codegraph"), 0o555);
    fs.chmodSync(path.join(ro, ".codegraph", "codegraph.db"), 0o444);
    const before = hashTree(path.join(ro, ".codegraph"));
    const script = `require(${JSON.stringify(path.join(root, "index.js"))}).explore("checkout", ${JSON.stringify(ro)}).then(
      (r) => console.log(JSON.stringify({ text: r.text })),
      (e) => console.log(JSON.stringify({ code: e.code, remediation: e.remediation, message: e.message })));`;
    const r = spawnSync(process.execPath, ["-e", script], {
      env: { ...process.env, HOME: parent },
      uid: 65534,
      gid: 65534,
      encoding: "utf8",
      timeout: 30000,
    });
    const out = JSON.parse(r.stdout || "{}");
    assert.equal(out.code, "CODEGRAPH_INDEX_READONLY", out.message ?? out.text);
    assert.match(out.remediation, /writable/);
    assert.deepEqual(hashTree(path.join(ro, ".codegraph")), before);
  });

  /** explore() of each runner in a child process: `{ runner: { code, message, remediation } | { text } }`. */
  function exploreInChild(dir, { wrap = (argv) => argv, uid } = {}) {
    const results = {};
    for (const runner of ["native", "node"]) {
      const script = `require(${JSON.stringify(path.join(root, "index.js"))}).explore("checkout", ${JSON.stringify(dir)}).then(
        (r) => console.log(JSON.stringify({ text: r.text })),
        (e) => console.log(JSON.stringify({ code: e.code, remediation: e.remediation, message: e.message })));`;
      const [cmd, ...args] = wrap([process.execPath, "-e", script]);
      const r = spawnSync(cmd, args, {
        env: { ...process.env, HOME: path.dirname(dir), PI_CODEGRAPH_RUNNER: runner },
        ...(uid === undefined ? {} : { uid, gid: uid }),
        encoding: "utf8",
        timeout: 30000,
      });
      results[runner] = JSON.parse(r.stdout || JSON.stringify({ code: `no output: ${r.stderr}` }));
    }
    return results;
  }

  test("a workspace on a read-only mount: CODEGRAPH_INDEX_READONLY naming the mount, on both runners", {
    skip: (process.platform !== "linux" || !isRoot) && "needs Linux and root for a read-only bind mount (unshare -m)",
  }, () => {
    // CodeGraph says only "unable to open database file"; access(2) tells EROFS from EACCES.
    const dir = indexedCopy();
    const before = hashTree(path.join(dir, ".codegraph"));
    const mount = `mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@"`;
    const out = exploreInChild(dir, { wrap: (argv) => ["unshare", "-m", "/bin/sh", "-c", mount, dir, ...argv] });
    for (const [runner, r] of Object.entries(out)) {
      assert.equal(r.code, "CODEGRAPH_INDEX_READONLY", `${runner}: ${r.message ?? r.text}`);
      assert.match(r.message, /read-only filesystem/, runner);
      assert.match(r.remediation, /remount it read-write/, runner);
      assert.doesNotMatch(r.remediation, /Move or delete/, runner);
    }
    assert.deepEqual(hashTree(path.join(dir, ".codegraph")), before);
  });

  test("a db this user may not read (and a -shm of another owner): a permissions remediation, on both runners", {
    skip: !isRoot && "needs root to run as nobody",
  }, () => {
    const parent = tempDir("pi-codegraph-shop-perm-");
    fs.chmodSync(parent, 0o755);
    const dir = path.join(parent, "ws");
    fs.cpSync(ws, dir, { recursive: true });
    spawnSync("chmod", ["-R", "a+rwX", dir]);
    const db = path.join(dir, ".codegraph", "codegraph.db");
    for (const [file, make] of [
      [db, () => fs.chmodSync(db, 0o600)],
      [`${db}-shm`, () => fs.writeFileSync(`${db}-shm`, "", { mode: 0o600 })],
    ]) {
      make();
      const out = exploreInChild(dir, { uid: 65534 });
      for (const [runner, r] of Object.entries(out)) {
        assert.equal(r.code, "CODEGRAPH_INDEX_READONLY", `${runner}: ${r.message ?? r.text}`);
        assert.ok(r.message.includes(file), `${runner} names ${file}: ${r.message}`);
        assert.match(r.remediation, /readable and writable/, runner);
        assert.doesNotMatch(r.remediation, /Move or delete/, runner);
      }
      fs.chmodSync(db, 0o666);
    }
  });

  test("an immutable .codegraph/ (chattr +i: EPERM, even for root): a permissions remediation, on both runners", (t) => {
    const dir = tempDir("pi-codegraph-shop-immutable-");
    fs.cpSync(ws, dir, { recursive: true });
    const index = path.join(dir, ".codegraph");
    if (spawnSync("chattr", ["+i", index]).status !== 0)
      return t.skip("chattr +i is not available here (needs root and ext4-like attributes)");
    try {
      for (const [runner, r] of Object.entries(exploreInChild(dir))) {
        assert.equal(r.code, "CODEGRAPH_INDEX_READONLY", `${runner}: ${r.message ?? r.text}`);
        assert.match(r.message, /not permitted/i, runner);
        assert.match(r.remediation, /do not move or delete it/, runner);
      }
    } finally {
      spawnSync("chattr", ["-i", index]);
    }
  });

  test("a db with a valid header but truncated (header only, or cut after a page): the corrupt-index remediation", () => {
    for (const bytes of [100, 4096, 50000]) {
      const dir = tempDir("pi-codegraph-shop-cut-");
      fs.cpSync(ws, dir, { recursive: true });
      const db = path.join(dir, ".codegraph", "codegraph.db");
      fs.truncateSync(db, bytes);
      for (const [runner, r] of Object.entries(exploreInChild(dir))) {
        assert.equal(r.code, "CODEGRAPH_NO_INDEX", `${runner} at ${bytes} bytes: ${r.message ?? r.text}`);
        assert.match(r.remediation, /Move or delete .*codegraph\.db/, runner);
      }
    }
  });

  test("an explore during a real `codegraph index` waits for the rebuild and answers from the finished index", async (t) => {
    const request = "how does CheckoutService.checkout call charge";
    const whole = (await pkg.explore(request, ws)).text;
    const dir = indexedCopy();
    const rebuild = spawn(path.join(cliBin, "codegraph"), ["index", "."], {
      cwd: dir,
      env: { ...process.env, DO_NOT_TRACK: "1" },
      stdio: "ignore",
    });
    let ended = false;
    const exited = new Promise((resolve) => rebuild.on("exit", resolve)).then(() => {
      ended = true;
    });
    const lock = path.join(dir, ".codegraph", "rebuild.pid");
    await waitFor(() => ended || fs.existsSync(lock), { what: "the rebuild to start" });
    const overlapped = !ended;
    const { text } = await pkg.explore(request, dir);
    await exited;
    t.diagnostic(`explore started while the rebuild ran: ${overlapped}`);
    assert.equal(text, whole, "the answer of the finished index, not a half-built one");
  });

  test("an explore as soon as a real `codegraph init` creates the database (before its lock) answers from the finished index", async (t) => {
    const request = "how does CheckoutService.checkout call charge";
    const whole = (await pkg.explore(request, ws)).text;
    const dir = tempDir("pi-codegraph-shop-init-");
    fs.cpSync(fixture, dir, { recursive: true });
    const init = spawn(path.join(cliBin, "codegraph"), ["init", "-y", "."], {
      cwd: dir,
      env: { ...process.env, DO_NOT_TRACK: "1" },
      stdio: "ignore",
    });
    let ended = false;
    const exited = new Promise((resolve) => init.on("exit", resolve)).then(() => {
      ended = true;
    });
    const db = path.join(dir, ".codegraph", "codegraph.db");
    const lock = path.join(dir, ".codegraph", "codegraph.lock");
    // The first moment the database has its header: CodeGraph takes its lock ~50-100 ms later.
    await waitFor(() => ended || (fs.existsSync(db) && fs.statSync(db).size >= 100), {
      what: "the init to create the db",
    });
    const beforeLock = !ended && !fs.existsSync(lock);
    const { text } = await pkg.explore(request, dir);
    await exited;
    t.diagnostic(`explore started before init took its lock: ${beforeLock}`);
    assert.equal(text, whole, "the answer of the finished index, not an empty or half-built one");
  });

  test("files changed or deleted after the index are named after the answer, until the user's sync", async () => {
    const dir = indexedCopy();
    const db = path.join(dir, ".codegraph", "codegraph.db");
    const request = "how does checkout reach charge";
    const fresh = await pkg.explore(request, dir);
    assert.match(fresh.text, /1 caller in `src\/index\.ts`/);
    assert.match(fresh.text, /charge \(src\/types\.ts:7\)/);
    assert.doesNotMatch(fresh.text, /after the CodeGraph index was last written/);
    assert.equal(fresh.details.staleFiles, undefined);

    // A file's mtime comes from the kernel's coarse clock: edit once that clock is past the index's.
    const written = fs.statSync(db).mtimeMs;
    await waitFor(() => Date.now() > written + 50, { what: "the clock to pass the index's mtime" });
    fs.appendFileSync(path.join(dir, "src", "index.ts"), "// edited after the index\n");
    fs.rmSync(path.join(dir, "src", "types.ts"));
    const stale = await pkg.explore(request, dir);
    assert.deepEqual(stale.details.staleFiles, [
      { path: "src/types.ts", state: "deleted" },
      { path: "src/index.ts", state: "changed" },
    ]);
    assert.ok(
      stale.text.endsWith(
        "\n⚠ 2 files named above changed after the CodeGraph index was last written (src/types.ts — deleted; src/index.ts). Results for them may be stale; the user can run /codegraph sync.\n",
      ),
      stale.text.slice(-400),
    );
    assert.equal(fs.statSync(db).mtimeMs, written, "the index was not written");

    // The user's sync, the test's own explicit step: the answer is fresh again.
    execFileSync(path.join(cliBin, "codegraph"), ["sync"], {
      cwd: dir,
      env: { ...process.env, DO_NOT_TRACK: "1" },
      stdio: "ignore",
    });
    assert.ok(fs.statSync(db).mtimeMs > written, "sync wrote the index");
    const synced = await pkg.explore(request, dir);
    assert.doesNotMatch(synced.text, /after the CodeGraph index was last written/);
    assert.equal(synced.details.staleFiles, undefined);
  });

  test("plain text, and nothing written to the user's home (telemetry stays off)", async () => {
    const { text } = await exploreUnchanged("what implements PaymentProcessor");
    assert.ok(!text.includes("\u001b"), "no terminal escapes");
    assert.deepEqual(fs.readdirSync(home), [], "CodeGraph wrote nothing under HOME");
  });

  test("through the registered tool", async () => {
    const before = hashTree(indexDir);
    const result = await tool.execute("call-1", { request: "what calls calculateTotal" }, undefined, undefined, {
      cwd: ws,
    });
    assert.match(result.content[0].text, /calculateTotal/);
    assert.match(result.content[0].text, /src\/cart\.ts/);
    assert.equal(result.details.cliVersion, PINNED);
    assert.deepEqual(hashTree(indexDir), before);
  });

  test("programs planted in the workspace never run: not the launcher's dirname/readlink, not the CLI's git", async () => {
    const planted = indexedCopy();
    const marker = path.join(tempDir("pi-codegraph-planted-"), "ran");
    const bin = path.join(planted, "node_modules", ".bin");
    fs.mkdirSync(bin, { recursive: true });
    for (const dir of [bin, planted]) {
      for (const name of ["dirname", "readlink", "git"]) {
        fs.writeFileSync(path.join(dir, name), `#!/bin/sh\necho "$0" >> ${JSON.stringify(marker)}\n`, { mode: 0o755 });
      }
    }
    // The install.sh layout: a symlink to the bundle's launcher, which runs readlink and dirname
    // for --version too (no package.json beside it, so the version comes from a probe).
    const { details: first } = await pkg.explore("where is main defined", ws);
    const linkDir = tempDir("pi-codegraph-local-bin-");
    fs.symlinkSync(first.executable, path.join(linkDir, "codegraph"));
    const PATH = [bin, ".", linkDir, path.dirname(process.execPath), originalPath].join(path.delimiter);
    const saved = process.env.PATH;
    process.env.PATH = PATH;
    try {
      const d = await pkg.diagnose(planted);
      assert.equal(d.ready, true, d.problem);
      const { text, details } = await pkg.explore("how does CheckoutService.checkout call charge", planted);
      assert.match(text, /checkout/i);
      assert.equal(details.executable, path.join(linkDir, "codegraph"));
      assert.deepEqual(
        details.envDropped.filter((e) => [bin, "."].includes(e.entry)).map((e) => e.entry),
        [bin, "."],
      );
    } finally {
      process.env.PATH = saved;
    }
    assert.equal(fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "", "", "a planted program ran");
  });
});
