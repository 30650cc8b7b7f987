// codegraph_changes' pieces at their seams, without the real CLI: git as a child on both runners
// (a recording git on PATH: the safety settings before every subcommand, the allowlist, the
// quiet C-locale environment without git's pointers elsewhere, the workspace as cwd), git's diff
// read into ranges, changed lines mapped to an outline's definitions, CodeGraph's impact JSON read,
// and the composition over stand-ins (each run once, the bounds, a repository without a commit,
// the arguments, the caps).
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { root, tempDir, withEnv } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const lib = (...p) => require(path.join(root, "lib", ...p));
const { diffHeadCommand, gitCommand, headCommand, untrackedCommand } = lib("contract", "git.js");

/** The settings every git run gets before its subcommand (crates/core/src/git_run.rs GIT_SAFETY). */
const GIT_SAFETY = Object.freeze([
  ...["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external="],
  ...["-c", "core.quotePath=false", "-c", "core.untrackedCache=false", "-c", "color.ui=false"],
  ...["--no-pager", "--no-optional-locks"],
]);
/** What `diff` always gets after its subcommand (git_run.rs DIFF_SAFETY). */
const DIFF_SAFETY = Object.freeze([
  ...["--no-ext-diff", "--no-textconv", "--no-color", "--no-renames", "--src-prefix=a/", "--dst-prefix=b/"],
]);

/** The environment git gets on top of the quiet one (crates/core/src/git_found.rs): C messages, no prompt, no pager. */
const GIT_ENV = Object.freeze({
  LC_ALL: "C",
  LANGUAGE: "C",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EXTERNAL_DIFF: "",
});

/** The variables git never gets (git_found.rs): they would point it at another repository, config or program. */
const GIT_DROPPED_ENV = Object.freeze([
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_CONFIG",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_EXEC_PATH",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_ASKPASS",
  "GIT_EDITOR",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_NAMESPACE",
  "GIT_TRACE",
  "GIT_TRACE2",
  "GIT_TRACE2_EVENT",
]);

const { parseDiff, parseFileList, isIndexedLanguage } = lib("api", "git-diff.js");
const { touchedDefinitions, impactOf, testsOf } = lib("api", "changed-symbols.js");
const { changesFacts } = lib("api", "changes.js");
const { changesText } = lib("words", "changes.js");
const runners = {
  native: () => lib("runners", "native.js").nativeRunner,
  node: () => lib("runners", "node.js"),
};

/** A git on PATH that records its argv, cwd and the variables the contract sets or drops, and prints `out`. */
function recordingGit(out = "") {
  const dir = tempDir("pi-codegraph-fake-git-");
  const log = path.join(dir, "log.json");
  const script = `#!${process.execPath}
const fs = require("node:fs");
const keys = ${JSON.stringify([...Object.keys(GIT_ENV), ...GIT_DROPPED_ENV, "CODEGRAPH_TELEMETRY"])};
fs.writeFileSync(${JSON.stringify(log)}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), env: Object.fromEntries(keys.map((k) => [k, process.env[k] ?? null])) }));
process.stdout.write(${JSON.stringify(out)});
`;
  fs.writeFileSync(path.join(dir, "git"), script, { mode: 0o755 });
  return { dir, read: () => JSON.parse(fs.readFileSync(log, "utf8")) };
}

for (const impl of implementations) {
  describe(`${impl.name}: git as a child`, () => {
    const runner = runners[impl.runner]();

    test("the safety settings come first, diff's after it; the workspace is cwd; the environment is quiet and C", async () => {
      const ws = tempDir("pi-codegraph-ws-");
      const git = recordingGit("diff --git a/x.ts b/x.ts\n");
      const env = {
        ...Object.fromEntries(GIT_DROPPED_ENV.map((k) => [k, "/elsewhere"])),
        PATH: `${git.dir}:/usr/bin:/bin`,
        GIT_CONFIG_PARAMETERS: "'core.pager=evil'",
      };
      const r = await withEnv(env, () => runner.runGit(diffHeadCommand(), ws));
      assert.equal(r.text, "diff --git a/x.ts b/x.ts\n");
      assert.equal(r.truncated, false);
      const seen = git.read();
      const at = seen.argv.indexOf("diff");
      assert.deepEqual(seen.argv.slice(0, at), GIT_SAFETY, "the contract's settings, exactly, on both runners");
      assert.deepEqual(seen.argv.slice(at + 1, at + 1 + DIFF_SAFETY.length), DIFF_SAFETY);
      assert.deepEqual(seen.argv.slice(-3), ["HEAD", "--unified=0", "--relative"]);
      assert.equal(seen.cwd, ws);
      for (const [k, v] of Object.entries(GIT_ENV)) assert.equal(seen.env[k], v, `${k} is the contract's`);
      for (const k of GIT_DROPPED_ENV) assert.equal(seen.env[k], null, `${k} is not passed on`);
      assert.equal(seen.env.LC_ALL, "C");
      assert.equal(seen.env.GIT_CONFIG_PARAMETERS, null, "nor the caller's -c settings");
      assert.equal(seen.env.CODEGRAPH_TELEMETRY, "0", "the quiet defaults too");
    });

    test("only read-only subcommands with option arguments run; a git in the workspace never does", async () => {
      const ws = tempDir("pi-codegraph-ws-");
      // Each read by the core, on both runners (src/args/git.rs, then git_run.rs's rules).
      const described = gitCommand("diff", ["HEAD"]);
      for (const [bad, problem] of [
        [gitCommand("commit", []), "gitSubcommand"],
        [gitCommand("diff", ["src/a.ts"]), "gitArgs"],
        [gitCommand("diff", ["---x"]), "gitArgs"],
        [gitCommand("push", ["--force"]), "gitSubcommand"],
        [gitCommand("worktree", ["add", "--force"]), "gitArgs"],
        [{ ...described, program: "sh" }, "gitProgram"],
        [null, "gitProgram"],
        [{ ...described, subcommand: 7 }, "gitSubcommand"],
        [{ ...described, args: "HEAD" }, "gitArgs"],
        [{ ...described, args: Array(17).fill("--stat") }, "gitArgs"],
        [{ ...described, maxBytes: 1.5 }, "caps"],
        [{ ...described, maxLines: 0 }, "caps"],
        [{ ...described, timeoutMs: 60_001 }, "timeoutMs"],
        [{ ...described, timeoutMs: "10" }, "timeoutMs"],
      ]) {
        await assert.rejects(runner.runGit(bad, ws), (err) => {
          assert.equal(err.code, "CODEGRAPH_GIT");
          assert.deepEqual(err.facts.reason, { is: "invalid", problem: { is: problem } }, JSON.stringify(bad));
          return true;
        });
      }
      const planted = recordingGit();
      const inside = path.join(ws, "bin");
      fs.cpSync(planted.dir, inside, { recursive: true });
      await withEnv({ PATH: inside }, () =>
        assert.rejects(runner.runGit(headCommand(), ws), (err) => {
          assert.equal(err.code, "CODEGRAPH_GIT");
          assert.deepEqual(err.facts.reason, { is: "notFound", skipped: path.join(inside, "git") });
          return true;
        }),
      );
    });

    test("a failed git: its reason from its stderr, in the C locale", async () => {
      const dir = tempDir("pi-codegraph-fake-git-");
      fs.writeFileSync(
        path.join(dir, "git"),
        "#!/bin/sh\necho 'fatal: not a git repository (or any of the parent directories): .git' >&2\nexit 128\n",
        { mode: 0o755 },
      );
      const ws = tempDir("pi-codegraph-ws-");
      await withEnv({ PATH: `${dir}:/usr/bin:/bin` }, () =>
        assert.rejects(runner.runGit(untrackedCommand(), ws), (err) => {
          assert.deepEqual(
            [err.code, err.facts.subcommand, err.facts.reason],
            ["CODEGRAPH_GIT", "ls-files", { is: "notRepository" }],
          );
          return true;
        }),
      );
    });
  });
}

describe("git's output read", () => {
  test("a diff: new-side ranges, a pure deletion as the place it was cut, new and deleted files, quoted paths", () => {
    const text = [
      "diff --git a/x.ts b/x.ts",
      "--- a/x.ts",
      "+++ b/x.ts",
      "@@ -2 +2 @@ f",
      "@@ -10,3 +9,0 @@",
      "@@ -20,0 +21,2 @@",
      "diff --git a/gone.py b/gone.py",
      "--- a/gone.py",
      "+++ /dev/null",
      "@@ -1,2 +0,0 @@",
      'diff --git "a/q\\tz.ts" "b/q\\tz.ts"',
      "--- /dev/null",
      '+++ "b/q\\tz.ts"',
      "@@ -0,0 +1,3 @@",
    ].join("\n");
    assert.deepEqual(parseDiff(text), [
      {
        path: "x.ts",
        ranges: [
          { from: 2, to: 2 },
          { from: 9, to: 9, cut: true },
          { from: 21, to: 22 },
        ],
        deleted: false,
        added: false,
      },
      { path: "gone.py", ranges: [], deleted: true, added: false },
      { path: "q\tz.ts", ranges: [{ from: 1, to: 3 }], deleted: false, added: true },
    ]);
    assert.deepEqual(parseFileList('a.ts\n"caf\\303\\251.py"\n'), ["a.ts", "café.py"]);
    assert.equal(isIndexedLanguage("src/a.rs"), true);
    assert.equal(isIndexedLanguage("README.md"), false);
  });

  const defs = [
    { name: "Cart", kind: "class", line: 1, endLine: 20, parent: null },
    { name: "add", kind: "method", line: 3, endLine: 8, parent: 0 },
    { name: "remove", kind: "method", line: 10, endLine: 18, parent: 0 },
    { name: "helper", kind: "function", line: 24, endLine: 30, parent: null },
  ];

  test("changed lines → the innermost definitions that hold them; a cut inside a body; lines outside any", () => {
    const file = {
      path: "cart.ts",
      ranges: [
        { from: 5, to: 6 },
        { from: 9, to: 9 },
        { from: 12, to: 12, cut: true },
        { from: 21, to: 23 },
      ],
    };
    const { symbols, outside } = touchedDefinitions(file, { definitions: defs });
    assert.deepEqual(
      symbols.map((s) => [s.name, s.parent ?? null, s.changed]),
      [
        ["Cart", null, [[9, 9]]],
        ["add", "Cart", [[5, 6]]],
        ["remove", "Cart", [[12, 12]]],
      ],
    );
    assert.deepEqual(outside, [[21, 23]]);
    // A deletion after a definition's last line is not in it.
    const after = touchedDefinitions(
      { path: "c.ts", ranges: [{ from: 30, to: 30, cut: true }] },
      { definitions: defs },
    );
    assert.deepEqual([after.symbols, after.outside], [[], [[30, 30]]]);
    // A whole file: its top-level definitions.
    const whole = touchedDefinitions({ path: "c.ts", ranges: [], whole: true }, { definitions: defs });
    assert.deepEqual(
      whole.symbols.map((s) => s.name),
      ["Cart", "helper"],
    );
  });

  test("CodeGraph's impact JSON: the definition in this file, its dependents, the direct ones with their line", () => {
    const json = JSON.stringify({
      definitions: [
        { definition: { id: "o", filePath: "other.ts", startLine: 1 }, affected: [], edges: [] },
        {
          definition: { id: "d", filePath: "a.ts", startLine: 3 },
          affected: [
            { id: "d", name: "f", kind: "function", filePath: "a.ts", startLine: 3 },
            { id: "g", name: "g", kind: "function", filePath: "b.ts", startLine: 9 },
            { id: "h", name: "h", kind: "method", filePath: "c.ts", startLine: 2 },
          ],
          edges: [
            { source: "h", target: "g", kind: "calls", line: 4 },
            { source: "g", target: "d", kind: "calls", line: 12 },
          ],
        },
      ],
    });
    assert.deepEqual(impactOf(json, "a.ts", 3), {
      found: true,
      dependents: [
        { name: "g", kind: "function", path: "b.ts", line: 9, callAt: "b.ts:12" },
        { name: "h", kind: "method", path: "c.ts", line: 2 },
      ],
      files: 2,
    });
    assert.deepEqual(impactOf(json, "z.ts", 1), { found: false });
    assert.equal(impactOf('{"definitions": [', "a.ts", 1), null, "a cut answer is not read");
    assert.deepEqual(testsOf('{"affectedTests":["t.test.ts"]}'), ["t.test.ts"]);
  });
});

describe("the composition over stand-ins", () => {
  const ws = tempDir("pi-codegraph-ws-");
  const outline = async (_dir, { paths }) => ({
    files: paths.map((p) => ({
      path: p,
      lines: 40,
      definitions: Array.from({ length: 12 }, (_, i) => ({
        name: `f${i}`,
        kind: "function",
        line: i * 3 + 1,
        endLine: i * 3 + 3,
        parent: null,
      })),
    })),
  });
  /** Stand-ins: git answers from `answers` by subcommand; CodeGraph's data runs are counted. */
  function deps(answers) {
    const runs = [];
    return {
      runs,
      runGit: async (c) => {
        const a = answers[c.subcommand];
        if (a instanceof Error) throw a;
        return { text: a ?? "", truncated: false };
      },
      runData: async (c) => {
        runs.push(`${c.subcommand} ${c.options.join(" ")} -- ${c.positional}`);
        const text =
          c.subcommand === "affected"
            ? '{"affectedTests":["t.test.ts"]}'
            : JSON.stringify({
                definitions: [{ definition: { id: "x", filePath: "a.ts", startLine: 1 }, affected: [] }],
              });
        return { text, details: {} };
      },
      outline,
      diagnose: async () => ({}),
      changedSince: async () => [],
    };
  }
  const diffOf = (lines) => `diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1,${lines} +1,${lines} @@\n`;

  test("each symbol's impact and each file's affected run once, at most 8 impacts; the rest is counted", async () => {
    const d = deps({ diff: diffOf(36) });
    const facts = await changesFacts(d, ws, { depth: 1 });
    const impacts = d.runs.filter((r) => r.startsWith("impact"));
    assert.equal(impacts.length, 8);
    assert.equal(new Set(d.runs).size, d.runs.length, "no run twice");
    assert.ok(
      impacts.every((r) => r.includes("--file=a.ts --depth=1 --json")),
      impacts[0],
    );
    assert.equal(d.runs.filter((r) => r.startsWith("affected")).length, 1);
    assert.equal(facts.impactsNotAsked, 4);
    const text = changesText(facts);
    assert.match(text, /^Changes: .*: 1 file, 12 changed symbols, 0 dependents, 1 test file\.$/m);
    assert.match(text, /Not shown: 4 more symbols not asked about \(ask codegraph_relations impact\)\./);
  });

  test("one failed run leaves its symbol unanswered, said; every run failed is the call's failure", async () => {
    const d = deps({ diff: diffOf(4) });
    const runData = d.runData;
    const boom = () => Object.assign(new Error("CODEGRAPH_TIMEOUT"), { code: "CODEGRAPH_TIMEOUT" });
    d.runData = async (c, ...rest) => {
      if (c.positional === "f0") throw boom();
      return runData(c, ...rest);
    };
    const text = changesText(await changesFacts(d, ws, {}));
    assert.match(
      text,
      /^- f0 \(function, a\.ts:1-3\), changed lines 1-3\n {2}dependents: codegraph impact failed \(CODEGRAPH_TIMEOUT\); not counted$/m,
    );
    d.runData = async () => {
      throw boom();
    };
    await assert.rejects(changesFacts(d, ws, {}), /CODEGRAPH_TIMEOUT/);
  });

  test("a repository without a commit: every tracked and untracked file is new, and none is asked about tests", async () => {
    const noHead = Object.assign(new Error("CODEGRAPH_GIT"), {
      code: "CODEGRAPH_GIT",
      facts: { subcommand: "rev-parse", reason: { is: "exit", exitCode: 1, stderrTail: "" } },
    });
    const d = deps({ "rev-parse": noHead, "ls-files": "a.ts\n" });
    const facts = await changesFacts(d, ws, {});
    assert.equal(facts.source, "gitNoHead");
    assert.equal(d.runs.filter((r) => r.startsWith("affected")).length, 0);
    assert.match(changesText(facts), /a repository with no commit yet/);
  });

  test("text matches: the changed file's first, calls before other mentions, tests last, each in the definition that holds it", async () => {
    const d = deps({ diff: diffOf(1) });
    d.runData = async (c) => ({
      text:
        c.subcommand === "affected"
          ? '{"affectedTests":["t/zeta.test.ts","t/other.test.ts","t/a_f0.test.ts","tests/uses.ts"]}'
          : '{"definitions":[{"definition":{"id":"x","filePath":"a.ts","startLine":1},"affected":[]}]}',
      details: {},
    });
    const at = (p, line, text) => ({ path: p, line, text, tags: [] });
    d.scan = async () => ({
      matches: [
        at("tests/uses.ts", 2, "expect(f0()).toBe(1);"),
        at("b.ts", 3, "const x = { f0 };"),
        at("b.ts", 8, "return f0();"),
        at("m.rs", 2, "f0(x)"),
        at("a.ts", 7, "f0();"),
      ],
    });
    d.outline = async (_dir, { paths }) => ({
      files: paths.map((p) => ({
        path: p,
        definitions:
          p === "m.rs"
            ? [{ name: "gen", kind: "function", line: 1, endLine: 4, macro: "mac" }]
            : p === "b.ts"
              ? [{ name: "g", kind: "function", line: 6, endLine: 9, parent: null }]
              : [
                  { name: "f0", kind: "function", line: 1, endLine: 3, parent: null },
                  { name: "h", kind: "function", line: 6, endLine: 8, parent: null },
                  { name: "caseOne", kind: "function", line: 1, endLine: 4, parent: null },
                ],
      })),
    });
    const text = changesText(await changesFacts(d, ws, {}));
    const search = text.split("\n").find((l) => l.startsWith("    a.ts:7"));
    assert.equal(
      search,
      "    a.ts:7 in h `f0();`; b.ts:8 in g `return f0();`; m.rs:2 `f0(x)`; b.ts:3 `const x = { f0 };`; tests/uses.ts:2 in caseOne `expect(f0()).toBe(1);`",
      "no container outside every definition, none from a macro template",
    );
    assert.match(text, /each in the definition that holds it, by the file's outline/);
    assert.match(
      text,
      /4 test files depend on it \(affected\): tests\/uses\.ts \(holds a dependent or mentions a changed name\); named like the changed file or its dependents' files: t\/a_f0\.test\.ts; others: t\/zeta\.test\.ts, t\/other\.test\.ts\)/,
    );
  });

  test("a file's tests: covering ones first, then named like it, then an indirect dependent's; unlisted ones by name", () => {
    const { rankTests } = lib("api", "change-mentions.js");
    const f = {
      path: "src/time/sleep.rs",
      tests: ["tests/a.rs", "tests/deep.rs", "tests/direct.rs", "tests/time_pause.rs", "tests/said.rs"],
      symbols: [
        {
          name: "poll_elapsed",
          kind: "method",
          line: 399,
          endLine: 426,
          changed: [[415, 417]],
          impact: {
            dependents: [
              { name: "x", path: "tests/deep.rs", line: 1 },
              { name: "y", path: "tests/direct.rs", line: 1, callAt: "tests/direct.rs:3" },
            ],
          },
          mentions: [{ path: "tests/said.rs", line: 2, text: "poll_elapsed" }],
        },
      ],
    };
    const tracked = ["src/time/sleep.rs", "tests/time_sleep.rs", "tests/sleep/tests.rs", "src/sleepy.rs", "tests/a.rs"];
    assert.deepEqual(rankTests(f, tracked), {
      covering: ["tests/direct.rs", "tests/said.rs"],
      named: ["tests/time_pause.rs"],
      rest: ["tests/deep.rs", "tests/a.rs"],
      unlisted: ["tests/time_sleep.rs", "tests/sleep/tests.rs"],
    });
    f.ranked = rankTests(f, tracked);
    f.state = "modified";
    assert.match(
      changesText({ source: "git", depth: 2, files: [f], outlined: true }),
      /5 test files depend on it \(affected\): tests\/direct\.rs, tests\/said\.rs \(hold a dependent or mention a changed name\); named like the changed file or its dependents' files: tests\/time_pause\.rs; others: tests\/deep\.rs, tests\/a\.rs; test files named like it that affected does not list \(by name only\): tests\/time_sleep\.rs, tests\/sleep\/tests\.rs\)/,
    );
  });

  test("the tests that mention the callers' names most: callers from the graph and from call-like text in functions, one scan", async () => {
    const { callerTests } = lib("api", "change-mentions.js");
    const f = {
      path: "src/rt.rs",
      state: "modified",
      tests: [],
      symbols: [
        {
          name: "enter_runtime",
          kind: "function",
          line: 35,
          endLine: 74,
          changed: [[35, 35]],
          impact: {
            found: true,
            files: 1,
            dependents: [{ name: "block_on_inner", path: "src/h.rs", line: 3, callAt: "src/h.rs:9" }],
          },
          mentions: [
            {
              path: "src/s.rs",
              line: 8,
              text: "enter_runtime(h, |b| {",
              within: { name: "block_on", kind: "method", line: 5 },
            },
            {
              path: "src/s.rs",
              line: 2,
              text: "use enter_runtime as E;",
              within: { name: "Context", kind: "struct", line: 1 },
            },
            {
              path: "src/s.rs",
              line: 20,
              text: "enter_runtime(x)",
              within: { name: "run", kind: "function", line: 19 },
            },
            {
              path: "src/s.rs",
              line: 30,
              text: "enter_runtime(x)",
              within: { name: "__init__", kind: "method", line: 29 },
            },
          ],
        },
      ],
    };
    const asked = [];
    const at = (p, line, text) => ({ path: p, line, text, tags: [] });
    const deps = {
      scan: async (_cwd, request) => {
        asked.push(request);
        return {
          stopped: "matches",
          matches: [
            at("tests/rt_common.rs", 3, "rt.block_on(async {"),
            at("tests/rt_common.rs", 4, "rt.block_on(block_on_inner())"),
            at("tests/rt_common.rs", 9, "rt.block_on(f)"),
            at("tests/other.rs", 1, "block_on(f)"),
            at("src/s.rs", 5, "fn block_on() {}"),
          ],
        };
      },
    };
    await callerTests(deps, ws, [f], undefined);
    assert.equal(asked.length, 1);
    assert.ok(asked[0].maxMatches > 256, "more matches than a mention search reads");
    assert.deepEqual(f.callerTests.names, ["block_on_inner", "block_on"], "no type, no short name, no dunder");
    assert.deepEqual(f.callerTests.top, [
      { path: "tests/rt_common.rs", count: 3 },
      { path: "tests/other.rs", count: 1 },
    ]);
    assert.match(
      changesText({ source: "git", depth: 2, files: [f], outlined: true }),
      /; the test files that mention its callers' names \(block_on_inner, block_on\) most \(text matches; the search stopped at its bound on matches: there may be more\): tests\/rt_common\.rs \(3 lines\), tests\/other\.rs \(1 line\)\)$/m,
    );
  });

  test("the arguments: none, or depth 1–4; anything else is refused before any run", async () => {
    const glue = require(path.join(root, "index.js")).forRunner({
      runCommand: async () => assert.fail("nothing runs"),
      diagnose: async () => ({}),
      runGit: async () => assert.fail("nothing runs"),
    });
    for (const bad of [{ depth: 9 }, { depth: "2" }, { file: "a.ts" }]) {
      await assert.rejects(glue.changes(bad, ws), (err) => {
        assert.equal(err.code, "CODEGRAPH_INVALID_REQUEST");
        assert.match(err.message, /codegraph_changes/);
        return true;
      });
    }
  });
});
