// An answer about another symbol or file than asked says so first, and where the source defines
// the asked one (lib/api/answer-subject.js, worded by lib/words/answer-notes.js), through the
// public seam on both runners: the fake CLI prints CodeGraph 1.6.1's shapes (node's sections,
// the heads of callers and impact, query's rows), the workspace holds the source. An answer about
// the asked symbol gets no note. The real CLI's own answers: answer-subject-real.test.mjs.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, test } from "node:test";
import { fakeCli, makeWorkspace, useFakeCli, withEnv } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const nodeRunner = require("../../lib/runners/node.js");
useFakeCli();

const SOURCE = {
  "src/local.rs":
    "pub struct LocalRuntime;\n\nimpl LocalRuntime {\n    pub fn block_on(&self) -> u32 {\n        1\n    }\n}\n",
  "src/macros.rs": [
    "pub struct Runtime;", // 1
    "", // 2
    "cfg_rt! {", // 3
    "    impl Runtime {", // 4
    "        pub fn block_on(&self) -> u32 {", // 5
    "            2", // 6
    "        }", // 7
    "        pub fn enter(&self) {}", // 8
    "    }", // 9
    "    fn spawn_inner() {}", // 10
    "}", // 11
  ].join("\n"),
  "src/other.rs":
    "pub struct Other;\n\nimpl Other {\n    pub fn poll_ready(&self) -> bool {\n        true\n    }\n}\ncfg_rt! {\n    pub fn enter() {}\n}\n",
  "src/registration.rs":
    "pub struct Registration;\n\nimpl Registration {\n    pub fn poll_ready(&self) -> bool {\n        false\n    }\n}\n",
  "py/module.py": "def func(x):\n    return x + 1\n",
};

function workspace() {
  const ws = makeWorkspace();
  for (const [rel, text] of Object.entries(SOURCE)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), `${text}\n`);
  }
  // Written before the index, as a user's source is.
  const earlier = Date.now() / 1000 - 3600;
  for (const rel of Object.keys(SOURCE)) fs.utimesSync(path.join(ws, rel), earlier, earlier);
  return ws;
}

const section = (name, kind, at, body = "") =>
  `**${name}** (${kind})\n\n**Location:** ${at}\n**Signature:** \`(&self)\`\n\n\`\`\`rust\n${body}\n\`\`\``;
const POLL_READY_BOTH = [
  '**2 definitions named "poll_ready"**',
  "Returning 2 in full — pick the one you need (no Read required).",
  "",
  section("poll_ready", "method", "src/other.rs:4"),
  "\n---\n",
  section("poll_ready", "method", "src/registration.rs:4"),
].join("\n");
const callersOf = (asked, heads) =>
  [
    "",
    `Callers of "${asked}" — ${heads.length} distinct definitions (narrow with --file):`,
    "",
    ...heads.flatMap((h) => [`${h} (0):`, "", "  (no callers)", ""]),
  ].join("\n");
const QUERY_SPAWN = `\nSearch Results for "spawn_inner":\n\nfunction    spawn\n  src/task.rs:3\n  (f: F) -> JoinHandle\n`;

for (const [runner, api] of [
  ["the loaded runner", pkg],
  ["the node runner", pkg.forRunner(nodeRunner)],
]) {
  describe(`another symbol or file than asked (${runner})`, () => {
    const ws = workspace();
    async function ask(tool, params, answer) {
      const cli = fakeCli([["stdout", `${answer}\n`]]);
      return (await withEnv({ PI_CODEGRAPH_BIN: cli.file }, () => api[tool](params, ws))).text;
    }
    const lead = (text, n = 1) => text.split("\n").slice(0, n).join("\n");

    test("a file none of the N definitions is in: said first, with where the source defines it there", async () => {
      const text = await ask("node", { symbol: "poll_ready", file: "src/macros.rs" }, POLL_READY_BOTH);
      assert.equal(
        lead(text),
        `Note: CodeGraph's index has no "poll_ready" in src/macros.rs; this answer is about its 2 definitions elsewhere: src/other.rs:4, src/registration.rs:4.`,
      );
      assert.match(text, /\n\n\*\*2 definitions named "poll_ready"\*\*/u, "CodeGraph's answer follows");
      const one = await ask(
        "node",
        { symbol: "block_on", file: "src/macros.rs" },
        section("block_on", "method", "src/local.rs:4"),
      );
      assert.equal(
        lead(one, 2),
        [
          `Note: CodeGraph's index has no "block_on" in src/macros.rs; this answer is its definition in src/local.rs:4.`,
          `The source defines "block_on" at src/macros.rs:5 (inside a cfg_rt! macro block, which CodeGraph does not index); read it there.`,
        ].join("\n"),
      );
      // callers with a file: the same rule, the same words.
      const callers = await ask(
        "relations",
        { relation: "callers", symbol: "block_on", file: "src/macros.rs" },
        callersOf("block_on", ["method LocalRuntime::block_on (rust) — src/local.rs:4"]),
      );
      assert.match(
        lead(callers),
        /^Note: CodeGraph's index has no "block_on" in src\/macros\.rs; this answer is its definition in src\/local\.rs:4\.$/u,
      );
    });

    test("a qualified name none of the definitions matches: said first, with where the source defines it", async () => {
      const source = `The source defines "Runtime" at src/macros.rs:1, and "block_on" at src/macros.rs:5 (inside a cfg_rt! macro block, which CodeGraph does not index); read them there.`;
      const callers = await ask(
        "relations",
        { relation: "callers", symbol: "Runtime.block_on" },
        callersOf("Runtime.block_on", ["method LocalRuntime::block_on (rust) — src/local.rs:4"]),
      );
      assert.equal(
        lead(callers, 2),
        `Note: this answer is not about "Runtime.block_on": CodeGraph answered with LocalRuntime::block_on (src/local.rs:4), which is not in "Runtime".\n${source}`,
      );
      // node shows no qualified name: the source says its file opens no `Runtime`.
      const node = await ask("node", { symbol: "Runtime::block_on" }, section("block_on", "method", "src/local.rs:4"));
      assert.equal(
        lead(node, 2),
        `Note: this answer is not about "Runtime::block_on": CodeGraph answered with block_on (src/local.rs:4), which is not in "Runtime".\n${source}`,
      );
      // Some of them: the others are named.
      const some = await ask(
        "relations",
        { relation: "impact", symbol: "Runtime::block_on" },
        callersOf("Runtime::block_on", [
          "method LocalRuntime::block_on (rust) — src/local.rs:4",
          "method Runtime::block_on (rust) — src/macros.rs:5",
        ]),
      );
      assert.equal(
        lead(some),
        `Note: of the 2 definitions below, LocalRuntime::block_on (src/local.rs:4) is not "Runtime::block_on" but another "block_on".`,
      );
      assert.doesNotMatch(some, /The source defines/u, "the asked one is in the answer");
    });

    test("a qualified name the index lacks: where the source defines it in its scope, not its namesakes", async () => {
      const r = await ask("node", { symbol: "Runtime::enter" }, 'Symbol "Runtime::enter" not found in the codebase');
      assert.equal(
        lead(r),
        `Not in CodeGraph's index: "Runtime::enter" is defined at src/macros.rs:8 (inside a cfg_rt! macro block, which CodeGraph does not index); read it there.`,
      );
      const none = await ask("node", { symbol: "Nowhere::enter" }, 'Symbol "Nowhere::enter" not found in the codebase');
      assert.match(lead(none), /^Symbol "Nowhere::enter" not found/u, "src/other.rs:10 is no Nowhere's");
      // One the index may well have (no reason known it lacks it): only where the source defines it.
      const plain = await ask(
        "relations",
        { relation: "callers", symbol: "crate::Registration::poll_ready" },
        'ℹ Symbol "crate::Registration::poll_ready" not found',
      );
      assert.equal(
        lead(plain),
        `The source defines "crate::Registration::poll_ready" at src/registration.rs:4; read it there.`,
      );
    });

    test("an explore request naming a qualified name its answer never mentions: where the source defines it", async () => {
      const request = "how does Runtime::spawn_inner start a task";
      const cli = fakeCli([["stdout", `**Exploration: ${request}**\n\nFound 1 symbols across 1 files.\n`]]);
      const r = await withEnv({ PI_CODEGRAPH_BIN: cli.file }, () => api.explore(request, ws));
      assert.equal(
        lead(r.text),
        `CodeGraph's answer does not mention "spawn_inner"; the source defines it at src/macros.rs:10 (inside a cfg_rt! macro block, which CodeGraph does not index); read it there.`,
      );
    });

    test("a search none of whose hits has the name: said first, with where the source defines it", async () => {
      const text = await ask("search", { name: "spawn_inner" }, QUERY_SPAWN);
      assert.equal(
        lead(text, 2),
        [
          `Note: CodeGraph's one search result below is not named "spawn_inner" and does not contain it; it is another name.`,
          `The source defines "spawn_inner" at src/macros.rs:10 (inside a cfg_rt! macro block, which CodeGraph does not index); read it there.`,
        ].join("\n"),
      );
    });

    test("an answer about the asked symbol gets no note", async () => {
      const cases = [
        ["node", { symbol: "poll_ready", file: "src/registration.rs" }, POLL_READY_BOTH],
        // The asked path a longer spelling of the indexed one.
        ["node", { symbol: "poll_ready", file: "tokio/src/other.rs" }, POLL_READY_BOTH],
        ["node", { symbol: "Registration::poll_ready" }, section("poll_ready", "method", "src/registration.rs:4")],
        ["node", { symbol: "module.func" }, section("func", "function", "py/module.py:1")],
        ["node", { symbol: "Runtime.block_on" }, section("block_on", "method", "src/macros.rs:5")],
        [
          "relations",
          { relation: "callers", symbol: "Registration::poll_ready" },
          callersOf("Registration::poll_ready", ["method Registration::poll_ready (rust) — src/registration.rs:4"]),
        ],
        ["search", { name: "spawn" }, QUERY_SPAWN],
      ];
      for (const [tool, params, answer] of cases) {
        const text = await ask(tool, params, answer);
        assert.doesNotMatch(text, /^Note:|The source defines/mu, JSON.stringify(params));
      }
    });
  });
}
