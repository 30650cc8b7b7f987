// codegraph_changes against the real, pinned CodeGraph CLI and the real git, on each runner,
// through the exported changes() and through the registered tool and `/codegraph changes`: a change
// in a symbol whose file a test depends on (affected names the test), a change outside git (the
// files written since the index), an index older than the change (said, with a text search for the
// changed names, each caller's place in its definition where the graph has no dependent), git
// missing (and one planted in the workspace never run), and a failing git. A file's tests: those
// that hold a dependent first, and one named like it that affected cannot list, said by name only.
// The outline is the runner's own `outlineSource`.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { root, tempDir, withEnv } from "../helpers/index.mjs";
import { hostWith, recordingUi, runCommand } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const { forRunner } = require(path.join(root, "index.js"));
const realCli = path.join(root, "node_modules", ".bin", "codegraph");
const cliMissing = fs.existsSync(realCli) ? false : "the pinned CodeGraph CLI is not installed";
const runners = {
  native: () => require(path.join(root, "lib", "runners", "native.js")).nativeRunner,
  node: () => require(path.join(root, "lib", "runners", "node.js")),
};

/** The glue over `impl`'s runner (its own git runner and outline). */
function glueFor(impl) {
  const runner = runners[impl.runner]();
  assert.equal(typeof runner.outlineSource, "function");
  assert.equal(typeof runner.runGit, "function");
  return forRunner(runner);
}

const FILES = {
  "src/math.ts":
    "export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  let r = 0;\n  for (let i = 0; i < b; i++) r = add(r, a);\n  return r;\n}\n",
  "src/app.ts":
    'import { mul } from "./math";\n\nexport function area(w: number, h: number): number {\n  return mul(w, h);\n}\n',
  "test/math.test.ts": 'import { add } from "../src/math";\n\ntest("add", () => {\n  expect(add(1, 2)).toBe(3);\n});\n',
};

let scratch;
let safeBin; // a PATH directory without git: the shell tools CodeGraph's launcher uses
const quiet = { ...process.env, DO_NOT_TRACK: "1" };

/** A project of FILES in a new directory (a git repository with one commit when `git`), indexed. */
function project(name, { git = true } = {}) {
  const dir = path.join(scratch, name);
  for (const [file, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: dir, env: quiet, stdio: "ignore" });
  if (git) {
    run("git", ["init", "-q", "."]);
    run("git", ["-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"]);
    run("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
  }
  run(realCli, ["init", "-y", "."]);
  return dir;
}

/** Writes `text` to `file` in `dir` with a modification time `aheadMs` past the index's. */
function edit(dir, file, from, to, aheadMs = 5000) {
  const p = path.join(dir, file);
  fs.writeFileSync(p, fs.readFileSync(p, "utf8").replace(from, to));
  const t = new Date(Date.now() + aheadMs);
  fs.utimesSync(p, t, t);
}

let binBefore;
before(() => {
  if (cliMissing) return;
  // The pinned CLI, wherever the suite runs (its own PATH may have none).
  binBefore = process.env.PI_CODEGRAPH_BIN;
  process.env.PI_CODEGRAPH_BIN = realCli;
  scratch = tempDir("pi-codegraph-changes-real-");
  safeBin = path.join(scratch, "safe-bin");
  fs.mkdirSync(safeBin);
  for (const tool of ["dirname", "readlink", "sh"]) {
    const found = ["/usr/bin", "/bin"].map((d) => path.join(d, tool)).find((p) => fs.existsSync(p));
    if (found) fs.symlinkSync(found, path.join(safeBin, tool));
  }
});
after(() => {
  if (binBefore === undefined) delete process.env.PI_CODEGRAPH_BIN;
  else process.env.PI_CODEGRAPH_BIN = binBefore;
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

for (const impl of implementations) {
  describe(`${impl.name}: codegraph_changes on the real CLI and git`, { skip: cliMissing, timeout: 240000 }, () => {
    let glue;
    before(() => {
      glue = glueFor(impl);
    });

    test("a changed symbol: its dependents with the lines that use it, and the test file that depends on its file", async () => {
      const ws = project(`covered-${impl.id}`);
      // A test file named like the changed one that imports nothing of it (affected cannot list it).
      fs.writeFileSync(path.join(ws, "test", "math_more.test.ts"), 'test("more", () => {});\n');
      const git = (...args) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: ws });
      git("add", "-A");
      git("commit", "-qm", "more");
      edit(ws, "src/math.ts", "return a + b;", "return b + a;", -60_000); // older than the index
      const r = await glue.changes({}, ws);
      assert.match(
        r.text,
        /^Changes: the working tree against HEAD \(git: staged, unstaged and untracked files\): 1 file, 1 changed symbol, /,
      );
      assert.match(
        r.text,
        /^src\/math\.ts \(modified, 1 changed symbol; 1 test file depends on it \(affected\): test\/math\.test\.ts \(holds a dependent or mentions a changed name\); a test file named like it that affected does not list \(by name only\): test\/math_more\.test\.ts\)$/m,
      );
      assert.match(r.text, /^- add \(function, src\/math\.ts:1-3\), changed line 2$/m);
      assert.match(r.text, /mul \(function, src\/math\.ts:5; uses it at src\/math\.ts:7\)/);
      assert.match(r.text, /uses it at test\/math\.test\.ts:4/);
      assert.doesNotMatch(r.text, /older than the change/);
      // The graph answered: the text search adds only the lines it does not list (a test's name here).
      assert.match(
        r.text,
        /text search for "add": 1 more line of the source mentions it, not among the uses listed above \(text matches, not the graph\)\n {4}test\/math\.test\.ts:3 `test\("add", \(\) => \{`$/m,
      );
      assert.equal(r.details.source, "git");
      assert.equal(r.details.codegraphRuns, 2, "one impact, one affected");
      // A pure deletion inside mul touches mul.
      edit(ws, "src/math.ts", "  let r = 0;\n", "", -60_000);
      const cut = await glue.changes({ depth: 1 }, ws);
      assert.match(cut.text, /^- mul \(function, src\/math\.ts:5-8\), changed line 5$/m);
      assert.match(cut.text, /impact, depth 1/);
    });

    test("an index older than the change says so; where the graph has no dependent, the text search gives the callers' places, each in its definition", async () => {
      const ws = project(`stale-${impl.id}`);
      edit(ws, "src/app.ts", "return mul(w, h);", "return mul(h, w);");
      fs.writeFileSync(
        path.join(ws, "src", "extra.ts"),
        "export function extra(): number {\n  return area(1, 2);\n}\n",
      );
      // A caller committed after the index (the graph is blind to it), and a test that calls it.
      fs.writeFileSync(
        path.join(ws, "src", "more.ts"),
        "export function moreArea(): number {\n  return area(2, 3);\n}\n",
      );
      fs.writeFileSync(
        path.join(ws, "test", "more.test.ts"),
        'test("x", () => {\n  expect(moreArea()).toBe(6);\n});\n',
      );
      const git = (...args) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: ws });
      git("add", "src/more.ts", "test/more.test.ts");
      git("commit", "-qm", "more");
      const r = await glue.changes({}, ws);
      assert.match(r.text, /^The index \(written .* UTC\) is older than the change to src\/app\.ts/m);
      assert.match(r.text, /^src\/extra\.ts \(new, untracked, 1 changed symbol\)$/m);
      assert.match(r.text, /^- area \(function, src\/app\.ts:3-5\), changed line 4$/m);
      assert.match(
        r.text,
        /text search for "area" \(text matches in the source, not the graph; each in the definition that holds it, by the file's outline\): 2 lines\n {4}src\/extra\.ts:2 in extra `return area\(1, 2\);`; src\/more\.ts:2 in moreArea `return area\(2, 3\);`$/m,
      );
      assert.match(
        r.text,
        /^src\/app\.ts \(modified, 1 changed symbol; no test file depends on it \(affected\); the test files that mention its callers' names \(moreArea\) most \(text matches\): test\/more\.test\.ts \(1 line\)\)$/m,
      );
      assert.equal(r.details.indexOlder, true);
    });

    test("outside git: the files written since the index, and why git did not say", async () => {
      const ws = project(`plain-${impl.id}`, { git: false });
      edit(ws, "src/math.ts", "return a + b;", "return b + a;");
      const r = await glue.changes({}, ws);
      assert.match(
        r.text,
        /^Changes: the files written since the index \(no git history to compare with\): 1 file, 2 changed symbols/,
      );
      assert.match(r.text, /the workspace is not inside a git repository/);
      assert.match(
        r.text,
        /^src\/math\.ts \(written since the index, 2 changed symbols; 1 test file depends on it \(affected\): test\/math\.test\.ts \(holds a dependent or mentions a changed name\)\)$/m,
      );
      assert.equal(r.details.source, "index");
    });

    test("git missing: the files written since the index; a git planted in the workspace is not run", async () => {
      const ws = project(`nogit-${impl.id}`);
      edit(ws, "src/math.ts", "return a + b;", "return b + a;");
      const planted = path.join(ws, "bin");
      fs.mkdirSync(planted);
      const marker = path.join(scratch, `planted-${impl.id}`);
      fs.writeFileSync(path.join(planted, "git"), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
      const env = { PATH: [planted, safeBin, path.dirname(process.execPath)].join(":"), PI_CODEGRAPH_BIN: realCli };
      const r = await withEnv(env, () => glue.changes({}, ws));
      assert.match(
        r.text,
        /no git was found on PATH outside the workspace \(.*bin\/git is inside it and was not run\)/,
      );
      assert.match(r.text, /^src\/math\.ts \(written since the index/m);
      assert.equal(fs.existsSync(marker), false, "the planted git never ran");
    });

    test("the registered tool and /codegraph changes give the same answer; a failing git is a worded CODEGRAPH_GIT", async () => {
      const ws = project(`tool-${impl.id}`);
      edit(ws, "src/math.ts", "return a + b;", "return b + a;", -60_000);
      const host = await hostWith(glue);
      const ui = recordingUi();
      const ctx = { cwd: ws, hasUI: true, ui };
      await withEnv({ PI_CODEGRAPH_TOOLS: "all", PI_CODING_AGENT_DIR: path.join(scratch, "agent") }, () =>
        host.startSession(ctx),
      );
      const tool = host.activeTools().find((t) => t.name === "codegraph_changes");
      assert.ok(tool, "codegraph_changes is on with all");
      assert.deepEqual(tool.parameters.required ?? [], [], "no required parameter");
      const r = await tool.execute("call-1", {}, undefined, undefined, ctx);
      const text = r.content.map((c) => c.text).join("");
      assert.match(text, /^- add \(function, src\/math\.ts:1-3\), changed line 2$/m);
      await runCommand(host, ctx, "codegraph", "changes");
      assert.equal(ui.notes.at(-1).message, text, "/codegraph changes shows the same answer");
      // A git that fails in a way the tool cannot answer around: the code, git's words, the remedy.
      const failing = path.join(scratch, `failing-git-${impl.id}`);
      fs.mkdirSync(failing);
      fs.writeFileSync(path.join(failing, "git"), "#!/bin/sh\necho 'fatal: index file corrupt' >&2\nexit 128\n", {
        mode: 0o755,
      });
      const env = { PATH: [failing, safeBin, path.dirname(process.execPath)].join(":"), PI_CODEGRAPH_BIN: realCli };
      await withEnv(env, async () => {
        await assert.rejects(glue.changes({}, ws), (err) => {
          assert.equal(err.code, "CODEGRAPH_GIT");
          assert.match(
            err.message,
            /^CODEGRAPH_GIT: git rev-parse could not say what changed: git exited with code 128: fatal: index file corrupt\.\nRemediation: Run `git diff HEAD --stat`/,
          );
          return true;
        });
      });
    });
  });
}
