// What the child inherits: nothing in it may let the workspace choose the code that runs. The CLI
// runs with cwd = workspace and looks programs up on PATH (CodeGraph's launcher runs `dirname`,
// its CLI `git`); a host started by `npm run` has <workspace>/node_modules/.bin on PATH, and an
// empty or relative entry means the workspace. NODE_OPTIONS, NODE_PATH and the loader variables
// can name files there too. The fake CLI's `runOnPath` step starts a program as CodeGraph does.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { expectResult, fakeCli, makeWorkspace, shellFake, tempDir, withEnv } from "../helpers/index.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

useFaultsSuite();

/** A workspace with an executable `name` planted in each of `dirs` (relative to it), each leaving `<marker>` when run. */
function plantedWorkspace(name, dirs) {
  const ws = makeWorkspace();
  const marker = path.join(tempDir("pi-codegraph-planted-"), "ran");
  for (const dir of dirs) {
    fs.mkdirSync(path.join(ws, dir), { recursive: true });
    fs.writeFileSync(path.join(ws, dir, name), `#!/bin/sh\necho "$0" >> ${JSON.stringify(marker)}\n`, { mode: 0o755 });
  }
  return { ws, marker, ran: () => (fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "") };
}

/** The JSON line the fake's `env` step printed. */
const printedEnv = (text) => JSON.parse(text.split("\n").find((l) => l.startsWith("{")));

eachRunner("what the child inherits", ({ explore, diagnose, callee }, runner) => {
  test("a program planted in <workspace>/node_modules/.bin never runs (PATH as `npm run` sets it)", async () => {
    const { ws, ran } = plantedWorkspace("dirname", ["node_modules/.bin"]);
    const fake = fakeCli([
      ["runOnPath", "dirname"],
      ["env", ["PATH"]],
    ]);
    const bin = path.join(ws, "node_modules", ".bin");
    const out = await withEnv({ PATH: `${bin}:${fake.dir}` }, () => explore("q", ws).then((value) => ({ value })));
    const { text, details } = expectResult(out);
    assert.equal(ran(), "", "the planted dirname ran");
    assert.equal(details.executableInWorkspace, false);
    assert.deepEqual(printedEnv(text), { PATH: fake.dir });
    assert.deepEqual(details.envDropped, [{ variable: "PATH", entry: bin, reason: "inside the workspace" }]);
  });

  test("every way a PATH entry can mean the workspace is dropped; entries outside it are kept as written", async () => {
    const { ws, ran } = plantedWorkspace("dirname", [".", "node_modules/.bin", "sub"]);
    const fake = fakeCli([
      ["runOnPath", "dirname"],
      ["env", ["PATH"]],
    ]);
    const outside = tempDir("pi-codegraph-outside-");
    fs.symlinkSync(path.join(ws, "node_modules", ".bin"), path.join(outside, "link"));
    fs.symlinkSync(path.join(ws, "later"), path.join(outside, "dangling"));
    const name = path.basename(ws);
    const refused = [
      ".",
      "",
      "node_modules/.bin",
      "sub",
      path.join(outside, "link"), // a symlink into the workspace
      `${outside}/../${name}/sub`, // `..` that lands inside
      `${ws}/sub/`, // a trailing slash
      ws, // the workspace itself
      `${ws}/node_modules/.bin`,
      `${ws}/node_modules/.bin`, // a duplicate
      `${ws}/later/bin`, // does not exist yet
      `${outside}/dangling/bin`, // a dangling link whose target is inside
      `${ws}/sub/../sub`,
      "/proc/self/cwd", // the child's own cwd: the workspace (the host's cwd is elsewhere)
      "/proc/thread-self/cwd/sub",
    ];
    fs.mkdirSync(`${ws}-sibling`); // shares a prefix of characters, not of components
    const kept = [fake.dir, `${outside}/missing`, `${ws}-sibling`, fake.dir];
    const PATH = [refused[0], fake.dir, ...refused.slice(1, 7), kept[1], kept[2], ...refused.slice(7), kept[3]].join(
      ":",
    );
    const { text, details } = expectResult(
      await withEnv({ PATH }, () => explore("q", ws).then((value) => ({ value }))),
    );
    assert.equal(ran(), "");
    assert.equal(printedEnv(text).PATH, kept.join(":"));
    assert.deepEqual(
      details.envDropped.map((d) => d.entry),
      refused,
    );
    assert.ok(details.envDropped.every((d) => d.variable === "PATH"));
    assert.match(details.envDropped[0].reason, /^relative/);
    assert.match(details.envDropped[1].reason, /^empty/);
    assert.deepEqual(
      details.envDropped.slice(4, -2).map((d) => d.reason),
      refused.slice(4, -2).map(() => "inside the workspace"),
    );
    assert.match(details.envDropped.at(-1).reason, /proc\/self\/cwd is the workspace/);
  });

  test("the `--version` probe and diagnose get the same PATH, and diagnose names what was dropped", async () => {
    const { ws, ran } = plantedWorkspace("readlink", ["node_modules/.bin"]);
    const fake = fakeCli([], { versionRunsOnPath: "readlink" });
    const bin = path.join(ws, "node_modules", ".bin");
    const d = await withEnv({ PATH: `${bin}:${fake.dir}` }, () => diagnose(ws));
    assert.equal(d.ready, true, d.problem);
    assert.equal(d.cliVersion, "1.0.0-faults");
    assert.equal(ran(), "", "the --version probe ran the planted readlink");
    assert.deepEqual(d.envDropped, [{ variable: "PATH", entry: bin, reason: "inside the workspace" }]);
  });

  test("an empty PATH is removed (it would mean the workspace); an unset PATH stays unset", async () => {
    const { ws, ran } = plantedWorkspace("dirname", ["."]);
    const fake = fakeCli([
      ["runOnPath", "dirname"],
      ["env", ["PATH"]],
    ]);
    for (const PATH of ["", undefined]) {
      const out = await withEnv({ PATH, PI_CODEGRAPH_BIN: fake.file }, () =>
        explore("q", ws).then((value) => ({ value })),
      );
      const { text, details } = expectResult(out);
      assert.equal(printedEnv(text).PATH, null);
      assert.deepEqual(
        details.envDropped.map((d) => d.entry),
        PATH === "" ? [""] : [],
      );
    }
    assert.equal(ran(), "");
  });

  test("PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1 passes the environment as it is (today's behaviour, by choice)", async () => {
    const { ws, ran } = plantedWorkspace("dirname", ["node_modules/.bin"]);
    const fake = fakeCli([
      ["runOnPath", "dirname"],
      ["env", ["PATH", "NODE_PATH"]],
    ]);
    const PATH = `${path.join(ws, "node_modules", ".bin")}:${fake.dir}`;
    const out = await withEnv({ PATH, NODE_PATH: "lib", PI_CODEGRAPH_ALLOW_WORKSPACE_BIN: "1" }, () =>
      explore("q", ws).then((value) => ({ value })),
    );
    const { text, details } = expectResult(out);
    assert.deepEqual(printedEnv(text), { PATH, NODE_PATH: "lib" });
    assert.deepEqual(details.envDropped, []);
    assert.match(ran(), /node_modules\/\.bin\/dirname/);
  });

  test("NODE_OPTIONS that loads a file of the workspace is dropped whole; one that loads none, or an absolute file outside, is kept", async () => {
    const ws = makeWorkspace();
    const marker = path.join(tempDir("pi-codegraph-preload-"), "ran");
    const hook = `require("fs").appendFileSync(${JSON.stringify(marker)}, __filename + "\\n");\n`;
    fs.writeFileSync(path.join(ws, "x.js"), hook);
    fs.mkdirSync(path.join(ws, "node_modules", "planted"), { recursive: true });
    fs.writeFileSync(path.join(ws, "node_modules", "planted", "index.js"), hook);
    const outside = path.join(tempDir("pi-codegraph-hook-"), "hook.js");
    fs.writeFileSync(outside, hook);
    const fake = fakeCli([["env", ["NODE_OPTIONS"]]]);
    const run = (NODE_OPTIONS) =>
      withEnv({ NODE_OPTIONS, PI_CODEGRAPH_BIN: fake.file }, () => explore("q", ws).then((value) => ({ value })));
    const ran = () => (fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "");
    for (const value of [
      "--require ./x.js",
      "-r ./x.js",
      "--require=x.js",
      "--import ./x.js",
      "--max-old-space-size=4096 -r planted",
      `--require ${path.join(ws, "x.js")}`,
      "--experimental_loader=./x.js",
    ]) {
      const { text, details } = expectResult(await run(value));
      assert.equal(ran(), "", `${value}: a workspace file ran`);
      assert.equal(printedEnv(text).NODE_OPTIONS, null, value);
      assert.equal(details.envDropped.length, 1, value);
      assert.equal(details.envDropped[0].variable, "NODE_OPTIONS");
    }
    for (const value of ["--max-old-space-size=4096 --enable-source-maps", `--require ${outside}`]) {
      const { text, details } = expectResult(await run(value));
      assert.equal(printedEnv(text).NODE_OPTIONS, value);
      assert.deepEqual(details.envDropped, []);
    }
    assert.equal(ran(), `${outside}\n`, "the user's own absolute preload outside the workspace still runs");
  });

  test("NODE_PATH and the dynamic loader's lists keep only absolute entries outside the workspace", async () => {
    const ws = makeWorkspace();
    const outside = tempDir("pi-codegraph-lib-");
    const names = [
      "NODE_PATH",
      "LD_LIBRARY_PATH",
      "DYLD_LIBRARY_PATH",
      "NODE_COMPILE_CACHE",
      "OPENSSL_CONF",
      "GIT_DIR",
    ];
    const fake = fakeCli([["env", names]]);
    const vars = {
      NODE_PATH: `lib::${ws}/node_modules:${outside}`,
      LD_LIBRARY_PATH: `:${outside}`,
      DYLD_LIBRARY_PATH: "./lib",
      NODE_COMPILE_CACHE: ".cache",
      OPENSSL_CONF: `${ws}/openssl.cnf`, // Node reads it at startup; it can name modules to load
      GIT_DIR: ".git",
    };
    const out = await withEnv({ ...vars, PI_CODEGRAPH_BIN: fake.file }, () =>
      explore("q", ws).then((value) => ({ value })),
    );
    const { text, details } = expectResult(out);
    assert.deepEqual(printedEnv(text), {
      NODE_PATH: outside,
      LD_LIBRARY_PATH: outside,
      DYLD_LIBRARY_PATH: null,
      NODE_COMPILE_CACHE: null,
      OPENSSL_CONF: null,
      GIT_DIR: ".git", // git variables choose no code: kept
    });
    assert.deepEqual(
      details.envDropped.map((d) => `${d.variable}=${d.entry}`).sort(),
      [
        "NODE_PATH=lib",
        "NODE_PATH=",
        `NODE_PATH=${ws}/node_modules`,
        "LD_LIBRARY_PATH=",
        "DYLD_LIBRARY_PATH=./lib",
        "NODE_COMPILE_CACHE=.cache",
        `OPENSSL_CONF=${ws}/openssl.cnf`,
      ].sort(),
    );
  });

  test("a failure after the checks carries what was dropped too", async () => {
    const { ws } = plantedWorkspace("dirname", ["node_modules/.bin"]);
    const fake = fakeCli([["exit", 3]]);
    const bin = path.join(ws, "node_modules", ".bin");
    const err = await withEnv({ PATH: `${bin}:${fake.dir}` }, () => explore("q", ws).then(assert.fail, (e) => e));
    assert.equal(err.code, "CODEGRAPH_EXIT");
    assert.deepEqual(err.details.envDropped, [{ variable: "PATH", entry: bin, reason: "inside the workspace" }]);
  });

  test("in a worker thread, the worker's own process.env is the environment (PI_CODEGRAPH_BIN, PATH)", async () => {
    const ws = makeWorkspace();
    const fake = fakeCli([["env", ["PATH", "PI_CODEGRAPH_MARK"]]]);
    // A host of its own: a Node runner in a worker starts its own reaper, which outlives the
    // worker unreaped until its host exits.
    const inWorker = (vars) => {
      const code = `
        const { Worker } = require("node:worker_threads");
        const worker = new Worker(\`
          const { parentPort, workerData } = require("node:worker_threads");
          Object.assign(process.env, workerData.vars);
          (${callee})("q", workerData.ws).then(
            (r) => parentPort.postMessage({ text: r.text }),
            (e) => parentPort.postMessage({ code: e.code, message: e.message }),
          );\`, { eval: true, workerData: JSON.parse(process.argv[1]) });
        worker.once("message", (m) => { console.log(JSON.stringify(m)); process.exit(0); });`;
      const data = JSON.stringify({ vars, ws });
      const out = execFileSync(process.execPath, ["-e", code, data], { encoding: "utf8", timeout: 20000 });
      return JSON.parse(out);
    };
    // The host's main thread has neither: PATH is an empty directory, PI_CODEGRAPH_BIN unset.
    for (const vars of [
      { PI_CODEGRAPH_BIN: fake.file, PI_CODEGRAPH_MARK: "worker" },
      { PATH: fake.dir, PI_CODEGRAPH_MARK: "worker" },
    ]) {
      const m = inWorker(vars);
      assert.equal(m.code, undefined, m.message);
      assert.equal(printedEnv(m.text).PI_CODEGRAPH_MARK, "worker");
    }
  });

  // Node differs (docs/platforms.md): process.env holds strings, so the Node
  // runner passes U+FFFD where the bytes were not UTF-8; the addon keeps environ's bytes.
  test("a value that is not UTF-8 reaches the CLI byte for byte (process.env read as JS sees it, bytes kept from environ); the Node runner: U+FFFD", () => {
    const ws = makeWorkspace();
    const fake = shellFake(`printf '%s' "$PI_CG_BYTES" | od -An -tx1`, "prints a variable's bytes, which Node cannot");
    const script = `${callee}("q", ${JSON.stringify(ws)}).then((r) => console.log(r.text), (e) => console.log(e.message))`;
    const r = spawnSync(
      "/bin/sh",
      ["-c", 'PI_CG_BYTES="$(printf "a\\377b")" exec "$0" -e "$1"', process.execPath, script],
      { env: { ...process.env, PI_CODEGRAPH_BIN: fake.file }, encoding: "utf8", timeout: 20000 },
    );
    assert.match(r.stdout, runner.runner === "node" ? /61 ef bf bd 62/ : /61 ff 62/, r.stdout + r.stderr);
  });
});
