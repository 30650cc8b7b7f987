// The explore() contract on Windows, through index.js, run by a Windows node.exe (CI runs it under
// Wine: .ci/windows-lane). Not part of `npm test` (its glob is __test__/*.test.mjs only).
//
// The CLI is a fake in each layout a user can have:
//   exe   codegraph.exe only (a native fake, __test__/windows/fake-codegraph.c)
//   npm   npm's global layout: codegraph.cmd + node_modules/@colbymchenry/codegraph/npm-shim.js
//         (the shim is the JS fake, __test__/helpers/fake-codegraph.js)
//   cmd   a bare codegraph.cmd outside npm's layout, which calls the native fake
// PI_CG_FAKE_EXE names the built native fake (a Windows path).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { isAlive, makeWorkspace, parseEcho, rejectsWith, root, tempDir, waitFor, withEnv } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const { explore } = require(path.join(root, "index.js"));

if (process.platform !== "win32") throw new Error("this suite runs under a Windows node.exe");
const fakeExe = process.env.PI_CG_FAKE_EXE;
if (!fakeExe || !fs.existsSync(fakeExe)) throw new Error(`PI_CG_FAKE_EXE (${fakeExe}) is not the built fake`);
const jsFake = path.join(root, "__test__", "helpers", "fake-codegraph.js");
const nodeDir = path.dirname(process.execPath);
const system32 = path.join(process.env.SystemRoot ?? "C:\\windows", "system32");
// Where Wine's cmd.exe differs from Windows': Rust's std escapes each `%` of a batch-file
// argument (`%%cd:~,%`) so that Windows' cmd.exe passes `%PATH%` and `100%` through verbatim.
// Wine 8.0's cmd.exe still expands `%PATH%` and drops a lone `%` (`100%` arrives as `100`).
// Only the bare .cmd layout goes through cmd.exe. The lane sets this under Wine.
const underWine = process.env.PI_CG_UNDER_WINE === "1";

function exeLayout() {
  const dir = tempDir("cg-exe-");
  fs.copyFileSync(fakeExe, path.join(dir, "codegraph.exe"));
  return dir;
}

/** npm's global prefix: the cmd-shim npm writes, and the package's npm-shim.js beside it. */
function npmLayout() {
  const dir = tempDir("cg-npm-");
  const pkg = path.join(dir, "node_modules", "@colbymchenry", "codegraph");
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, "npm-shim.js"), `require(${JSON.stringify(jsFake)});\n`);
  fs.writeFileSync(
    path.join(pkg, "package.json"),
    JSON.stringify({ name: "@colbymchenry/codegraph", version: "1.6.1", bin: { codegraph: "npm-shim.js" } }),
  );
  // What npm's cmd-shim generates (abridged): node on the shim, arguments as %*.
  fs.writeFileSync(
    path.join(dir, "codegraph.cmd"),
    '@ECHO off\r\nSET "_prog=node"\r\n"%_prog%" "%~dp0\\node_modules\\@colbymchenry\\codegraph\\npm-shim.js" %*\r\n',
  );
  return dir;
}

/** A codegraph.cmd that is not npm's: cmd.exe parses the arguments on the way to the exe. */
function cmdLayout() {
  const dir = tempDir("cg-cmd-");
  fs.mkdirSync(path.join(dir, "real"));
  fs.copyFileSync(fakeExe, path.join(dir, "real", "codegraph.exe"));
  fs.writeFileSync(path.join(dir, "codegraph.cmd"), '@"%~dp0real\\codegraph.exe" %*\r\n');
  return dir;
}

/** PATH for the child: the given dirs, then node (the npm shim needs it) and system32. */
const pathOf = (...dirs) => [...dirs, nodeDir, system32].join(";");

const awkward = [
  "how does checkout call charge",
  `quotes "double" and 'single' and "unbalanced`,
  "a & b | c < d > e ^ f",
  "%PATH% and %NOPE% and 100%",
  "Unicode: wie ruft checkout → charge auf? 日本語 🚀",
  "-p C:\\Windows --max-files 1",
  "--help",
  "trailing backslash \\",
  "  leading and trailing spaces  ",
  "line one\nline two",
];

let ws;
let scratch;
const layouts = {};
before(() => {
  ws = makeWorkspace();
  scratch = tempDir("cg-scratch-");
  layouts.exe = exeLayout();
  layouts.npm = npmLayout();
  layouts.cmd = cmdLayout();
  delete process.env.PI_CODEGRAPH_BIN;
  process.env.PATHEXT = ".COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC";
});

for (const layout of ["exe", "npm", "cmd"]) {
  describe(`layout: ${layout}`, () => {
    for (const request of awkward) {
      const throughCmd = layout === "cmd";
      test(`request ${JSON.stringify(request).slice(0, 40)} arrives as one argument`, async () => {
        await withEnv({ PATH: pathOf(layouts[layout]) }, async () => {
          if (throughCmd && request.includes("\n")) {
            // cmd.exe cannot take a newline in an argument: Rust's std refuses to build the
            // command line, and explore() reports it as a request it cannot pass.
            const err = await rejectsWith(explore(request, ws), "CODEGRAPH_INVALID_REQUEST");
            assert.match(err.message, /batch launcher/);
            return;
          }
          const result = await explore(request, ws);
          const echoed = parseEcho(result.text);
          if (throughCmd && underWine && request.includes("%")) {
            // Wine's cmd.exe difference (see underWine): it expands %VAR% despite Rust's escaping
            // (unset ones to nothing) and drops a lone `%`. It still arrives as one argument.
            const wine = request.replace(/%([^%]*)%/g, (_, name) => process.env[name] ?? "").replaceAll("%", "");
            assert.deepEqual(echoed.argv, ["explore", "--", wine]);
          } else {
            assert.deepEqual(echoed.argv, ["explore", "--", request]);
          }
          assert.equal(echoed.cwd.toLowerCase(), ws.toLowerCase());
          const exe = layout === "exe" ? "codegraph.exe" : "codegraph.cmd";
          assert.equal(result.details.executable.toLowerCase(), path.join(layouts[layout], exe).toLowerCase());
        });
      });
    }
  });
}

describe("discovery", () => {
  test("codegraph.exe and codegraph.cmd in different PATH dirs: the first dir's wins (PATHEXT)", async () => {
    // `codegraph` is looked up first and PATHEXT lets it match either file, so PATH order decides,
    // as it does in cmd.exe; the name codegraph.cmd is only a fallback when PATHEXT lacks .CMD.
    for (const [first, second, exe] of [
      [layouts.exe, layouts.npm, "codegraph.exe"],
      [layouts.npm, layouts.exe, "codegraph.cmd"],
    ]) {
      await withEnv({ PATH: pathOf(first, second) }, async () => {
        const result = await explore("which one", ws);
        assert.equal(result.details.executable.toLowerCase(), path.join(first, exe).toLowerCase());
      });
    }
  });

  test("without .CMD in PATHEXT, codegraph.cmd is still found by its full name, after codegraph.exe", async () => {
    await withEnv({ PATH: pathOf(layouts.npm, layouts.exe), PATHEXT: ".COM;.EXE" }, async () => {
      const result = await explore("which one", ws);
      assert.equal(result.details.executable.toLowerCase(), path.join(layouts.exe, "codegraph.exe").toLowerCase());
    });
    await withEnv({ PATH: pathOf(layouts.npm), PATHEXT: ".COM;.EXE" }, async () => {
      const result = await explore("which one", ws);
      assert.equal(result.details.executable.toLowerCase(), path.join(layouts.npm, "codegraph.cmd").toLowerCase());
    });
  });

  test("paths in details are the ordinary Windows spelling, without the verbatim \\\\?\\ prefix", async () => {
    await withEnv({ PATH: pathOf(layouts.exe) }, async () => {
      const d = (await explore("q", ws)).details;
      for (const key of ["cwd", "executable", "indexDir", "indexResolved"]) {
        assert.doesNotMatch(d[key], /^\\\\\?\\/, `${key}: ${d[key]}`);
      }
      assert.equal(d.indexResolved.toLowerCase(), path.join(ws, ".codegraph").toLowerCase());
    });
  });

  test("CODEGRAPH_NOT_FOUND when no codegraph is on PATH", async () => {
    await withEnv({ PATH: pathOf() }, () => rejectsWith(explore("q", ws), "CODEGRAPH_NOT_FOUND"));
  });

  test("a codegraph.cmd planted in the workspace never runs, even with the workspace on PATH", async () => {
    const planted = makeWorkspace();
    const marker = path.join(scratch, "planted-ran");
    fs.writeFileSync(path.join(planted, "codegraph.cmd"), `@echo ran> "${marker}"\r\n`);
    fs.copyFileSync(fakeExe, path.join(planted, "codegraph.exe"));
    await withEnv({ PATH: pathOf(planted, ".") }, async () => {
      const err = await rejectsWith(explore("q", planted), "CODEGRAPH_NOT_FOUND");
      assert.match(err.message, /inside the workspace/);
    });
    // A relative PATH entry never resolves against the workspace either.
    await withEnv({ PATH: pathOf(".") }, () => rejectsWith(explore("q", planted), "CODEGRAPH_NOT_FOUND"));
    assert.equal(fs.existsSync(marker), false, "the planted launcher did not run");
  });

  test("CODEGRAPH_NO_INDEX when the workspace has no .codegraph, and the CLI never runs", async () => {
    const bare = makeWorkspace({ index: false });
    const log = path.join(scratch, "noindex.jsonl");
    await withEnv({ PATH: pathOf(layouts.exe), FAKE_CG_LOG: log }, async () => {
      await rejectsWith(explore("q", bare), "CODEGRAPH_NO_INDEX");
    });
    assert.equal(fs.existsSync(log), false);
  });

  test("the CLI's own no-index message is CODEGRAPH_NO_INDEX too", async () => {
    await withEnv({ PATH: pathOf(layouts.exe), FAKE_CG_MODE: "noindex" }, () =>
      rejectsWith(explore("q", ws), "CODEGRAPH_NO_INDEX"),
    );
  });

  test("CODEGRAPH_INDEX_BUSY while a live process holds codegraph.lock; a lock of an exited pid is an interrupted write, and without it the index answers", async () => {
    const busy = makeWorkspace();
    const lock = path.join(busy, ".codegraph", "codegraph.lock");
    // This node.exe stands in for CodeGraph writing the index (liveness through OpenProcess).
    fs.writeFileSync(lock, String(process.pid));
    const log = path.join(scratch, "busy.jsonl");
    await withEnv({ PATH: pathOf(layouts.exe), FAKE_CG_LOG: log }, async () => {
      const err = await rejectsWith(explore("q", busy, null, { timeoutMs: 500 }), "CODEGRAPH_INDEX_BUSY");
      assert.ok(err.message.includes(`pid ${process.pid} holds`), err.message);
    });
    assert.equal(fs.existsSync(log), false, "the CLI never ran");
    const exited = spawnSync(process.execPath, ["-e", "0"]);
    assert.equal(exited.status, 0);
    fs.writeFileSync(lock, String(exited.pid));
    await withEnv({ PATH: pathOf(layouts.exe) }, async () => {
      // The writer is gone and its lock left: the last write never finished (never served).
      await rejectsWith(explore("q", busy), "CODEGRAPH_INDEX_INTERRUPTED");
      fs.rmSync(lock); // what `codegraph unlock` (or the next write) does
      assert.deepEqual(parseEcho((await explore("q", busy)).text).argv, ["explore", "--", "q"]);
    });
  });
});

describe("output", () => {
  for (const layout of ["exe", "npm"]) {
    test(`${layout}: a large answer is capped and reported`, async () => {
      await withEnv({ PATH: pathOf(layouts[layout]), FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "30000" }, async () => {
        const result = await explore("q", ws);
        assert.equal(result.details.truncated, true);
        assert.ok(result.details.keptBytes <= 51200, `kept ${result.details.keptBytes}`);
        assert.ok(result.text.startsWith("line 1\n"));
      });
    });

    test(`${layout}: a failing CLI is CODEGRAPH_EXIT with the exit code and the stderr tail`, async () => {
      await withEnv(
        { PATH: pathOf(layouts[layout]), FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "3", FAKE_CG_COUNT: "20000" },
        async () => {
          const err = await rejectsWith(explore("q", ws), "CODEGRAPH_EXIT");
          assert.equal(err.details.exitCode, 3);
          assert.ok(err.details.stderrTail.endsWith("TAIL-END"), err.details.stderrTail.slice(-80));
          assert.ok(Buffer.byteLength(err.details.stderrTail) <= 4096);
        },
      );
    });
  }
});

describe("nothing left running (job object)", () => {
  let n = 0;
  const pidsFile = () => path.join(scratch, `pids-${++n}.json`);
  const readPids = (file) => JSON.parse(fs.readFileSync(file, "utf8"));

  async function bothDie(pids) {
    await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), {
      timeoutMs: 5000,
      what: `the CLI ${pids.self} and its grandchild ${pids.grandchild} to die`,
    });
  }

  test("abort kills the CLI and its grandchild: CODEGRAPH_CANCELLED", async () => {
    const pids = pidsFile();
    await withEnv({ PATH: pathOf(layouts.exe), FAKE_CG_MODE: "hang", FAKE_CG_PIDS: pids }, async () => {
      const ac = new AbortController();
      const pending = explore("q", ws, ac.signal);
      await waitFor(() => fs.existsSync(pids), { timeoutMs: 10000, what: "the fake to start" });
      const p = readPids(pids);
      assert.ok(isAlive(p.self) && isAlive(p.grandchild), "both run before the abort");
      ac.abort();
      await rejectsWith(pending, "CODEGRAPH_CANCELLED");
      await bothDie(p);
    });
  });

  test("timeout kills the CLI and its grandchild: CODEGRAPH_TIMEOUT", async () => {
    const pids = pidsFile();
    await withEnv({ PATH: pathOf(layouts.exe), FAKE_CG_MODE: "hang", FAKE_CG_PIDS: pids }, async () => {
      const err = await rejectsWith(explore("q", ws, null, { timeoutMs: 3000 }), "CODEGRAPH_TIMEOUT");
      assert.equal(err.details.timeoutMs, 3000);
      await bothDie(readPids(pids));
    });
  });

  // Node (libuv) puts its own children in a kill-on-close job, so this one would pass even
  // without ours; the codegraph.exe cases above fail without the job object (checked by hand).
  test("npm layout: abort kills node on the shim and the shim's grandchild", async () => {
    const pids = pidsFile();
    await withEnv({ PATH: pathOf(layouts.npm), FAKE_CG_MODE: "hang", FAKE_CG_PIDS: pids }, async () => {
      const ac = new AbortController();
      const pending = explore("q", ws, ac.signal, { timeoutMs: 30000 });
      await waitFor(() => fs.existsSync(pids), { timeoutMs: 15000, what: "the fake to start" });
      ac.abort();
      await rejectsWith(pending, "CODEGRAPH_CANCELLED");
      await bothDie(readPids(pids));
    });
  });
});

after(() => {
  for (const dir of [ws, scratch, ...Object.values(layouts)]) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {}
  }
});
