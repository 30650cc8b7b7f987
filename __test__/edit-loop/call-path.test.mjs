// codegraph_relations' `path` at the seam, over the fake CLI serving CodeGraph 1.6.1's JSON shapes
// (impact and callees `--json`) for a small graph, on both runners: the argument rules (nothing
// runs on a bad one), the commands it runs (each through run(), within the call's one budget), the
// answer's shape (each hop's definition and call site, shortest first, at most three), where a
// walk without a path stops, a name the index lacks (a `from` in a macro block: from its source), a cancel. The real CLI on a fixture, the
// scan's bridge included: call-path-real.test.mjs.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { fakeBinDir, makeWorkspace, tempDir, withEnv } from "../helpers/index.mjs";
import { recording, runnerOf } from "../helpers/recording.mjs";

const require = createRequire(import.meta.url);
const { forRunner } = require("../../index.js");
const { LIMIT_NAMES } = require("../../lib/contract/limits.js");

const node = (name, filePath, startLine, kind = "function") => ({
  id: `${kind}:${name}`,
  name,
  kind,
  filePath,
  startLine,
});
const edge = (source, target, line, kind = "calls") => ({
  source: source.id,
  target: target.id,
  kind,
  metadata: { confidence: 0.9, resolvedBy: "exact-match", refName: target.name },
  line,
  column: 5,
});
const definition = (def, more) => ({
  definition: { ...def, qualifiedName: def.name, language: "typescript" },
  ...more,
});

// main → handle → store → persist; main → helper; run → store (a second, longer way in);
// lonely calls nothing; sink → put (a method, its own edge of an interface's: "implemented by").
const main = node("main", "src/app.ts", 3);
const handle = node("handle", "src/handler.ts", 3);
const store = node("store", "src/store.ts", 1);
const persist = node("persist", "src/store.ts", 5);
const helper = node("helper", "src/util.ts", 1);
const leaf = node("leaf", "src/util.ts", 9);
const direct = node("direct", "src/app.ts", 20);
const orphan = node("orphan", "src/orphan.ts", 1);
const file = { id: "file:src/app.ts", name: "app.ts", kind: "file", filePath: "src/app.ts", startLine: 1 };

const GRAPH = {
  "impact persist": {
    symbol: "persist",
    depth: 6,
    definitions: [
      definition(persist, {
        affected: [persist, store, handle, main, direct, file],
        edges: [
          edge(store, persist, 2),
          edge(handle, store, 5),
          edge(main, handle, 5),
          edge(main, handle, 9), // a second call site: the first is given
          edge(direct, store, 21),
          { ...edge(file, handle, 1), kind: "imports" },
        ],
      }),
    ],
  },
  "callees main": { definitions: [definition(main, { callees: [handle], edges: [edge(main, handle, 5)] })] },
  "callees direct": { definitions: [definition(direct, { callees: [store], edges: [edge(direct, store, 21)] })] },
  "callees helper": { definitions: [definition(helper, { callees: [leaf], edges: [edge(helper, leaf, 2)] })] },
  "callees leaf": { definitions: [definition(leaf, { callees: [], edges: [] })] },
  // orphan calls handle on a line CodeGraph has no edge for: the walk's text step looks it up.
  "callees orphan": { definitions: [definition(orphan, { callees: [], edges: [] })] },
  "callees handle": { definitions: [definition(handle, { callees: [store], edges: [edge(handle, store, 5)] })] },
};

for (const impl of implementations) {
  describe(`${impl.name}: codegraph_relations path`, () => {
    let ws;
    let bin;
    let graphFile;
    const originalPath = process.env.PATH;
    before(() => {
      ws = makeWorkspace();
      bin = fakeBinDir();
      graphFile = path.join(tempDir(), "graph.json");
      fs.writeFileSync(graphFile, JSON.stringify(GRAPH));
      // The callers' source, each call on the edge's line; store's spread over two lines (CodeGraph's
      // line is where the expression starts, the name is on the next).
      const lines = (at) => Array.from({ length: 30 }, (_, i) => at[i + 1] ?? "").join("\n");
      const files = {
        "src/app.ts": lines({
          3: "export function main() {",
          4: "  helper();",
          5: "  handle(1);",
          9: "  handle(2);",
          21: "  store(1);",
        }),
        "src/handler.ts": lines({ 3: "export function handle(x) {", 5: "  return store(x);" }),
        "src/store.ts": lines({
          1: "export function store(x) {",
          2: "  return db",
          3: "    .persist(x);",
          5: "export function persist(x) {}",
        }),
        "src/orphan.ts": lines({ 1: "export function orphan(x) {", 2: "  return registry.handle(x);", 3: "}" }),
        "src/blind.rs": lines({
          1: "cfg_x! {",
          2: "    pub fn hidden(x: u32) {",
          3: "        handle(x);",
          4: "    }",
          5: "}",
        }),
        // A re-export far into a large file (CodeGraph 1.6.1 can miss it): its one name, handle.
        // …and a call in the function given to the same file's withRun: through withRun, which runs it.
        "src/facade.ts": `${"\n".repeat(2099)}export const relayed = registry.handle;\nexport const withRun = (f) => f(registry);\nexport const wrapped = (x) =>\n  withRun((r) => r.handle(x));\n`,
        "src/util.ts": lines({ 1: "export function helper() {", 2: "  leaf();", 9: "export function leaf() {}" }),
      };
      for (const [f, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(ws, f)), { recursive: true });
        fs.writeFileSync(path.join(ws, f), text);
      }
      process.env.PATH = bin;
      delete process.env.PI_CODEGRAPH_BIN;
    });
    after(() => {
      process.env.PATH = originalPath;
    });
    const graphCall = (params, options, signal) => {
      const { glue, seen } = recording(runnerOf(impl.id));
      const answer = withEnv({ FAKE_CG_MODE: "graph", FAKE_CG_GRAPH: graphFile }, () =>
        glue.relations(params, ws, signal, options),
      );
      return { answer, seen };
    };

    test("the argument rules: from and to for path (the name rules of symbol), symbol for the others; nothing runs on a bad one", async () => {
      const cases = [
        [{ relation: "path", to: "persist" }, /`from`: it is required/],
        [{ relation: "path", from: "main" }, /`to`: it is required/],
        [{ relation: "path", from: " ", to: "persist" }, /`from`: it is empty or only whitespace/],
        [{ relation: "path", from: "a\0b", to: "persist" }, /`from`: it contains a NUL byte/],
        [{ relation: "path", from: "main", to: "x".repeat(301) }, /`to`: it is longer than 300 characters/],
        [
          { relation: "path", from: "main", to: "persist", symbol: "main" },
          /`symbol`: it does not apply to relation=path/,
        ],
        [{ relation: "path", from: "main", to: "persist", depth: 3 }, /`depth`: it does not apply to relation=path/],
        [
          { relation: "callers", symbol: "main", to: "persist" },
          /`to`: it does not apply to relation=callers .*path takes from and to/,
        ],
        [{ relation: "impact", from: "main" }, /`from`: it does not apply to relation=impact/],
        [{ relation: "callers" }, /`symbol`: it is required/],
        [{ relation: "path", from: "main", to: "persist", form: "x" }, /`form`: the tool has no such argument/],
      ];
      for (const [params, message] of cases) {
        const { answer, seen } = graphCall(params);
        await assert.rejects(answer, (err) => err.code === "CODEGRAPH_INVALID_REQUEST" && message.test(err.message));
        assert.equal(seen.length, 0, JSON.stringify(params));
      }
    });

    test("a path in the graph: each hop's definition and call site (the line naming the callee where the call spans lines), the first call site of two, shortest first; impact and callees as JSON, within one budget", async () => {
      const { answer, seen } = graphCall({ relation: "path", from: "main", to: "persist" }, { timeoutMs: 20_000 });
      const { text, details } = await answer;
      assert.equal(
        text.split("\n⚠")[0], // the fake's index is older than the files: a stale-files line may follow
        "1 call path from main to persist, shortest first, from CodeGraph's graph (impact of persist, depth 6, and the callees of main):\n" +
          "1. main (src/app.ts:3) → calls handle at src/app.ts:5 → handle (src/handler.ts:3) → calls store at src/handler.ts:5 → store (src/store.ts:1) → calls persist at src/store.ts:3 → persist (src/store.ts:5)",
      );
      const argv = seen.map((s) => [s.command.subcommand, ...s.command.options, "--", s.command.positional].join(" "));
      assert.deepEqual(argv.sort(), ["callees --json --limit=50 -- main", "impact --json --depth=6 -- persist"]);
      for (const s of seen) assert.ok(s.options.timeoutMs <= 20_000 && s.options.timeoutMs > 0, s.options.timeoutMs);
      assert.equal(details.processes.length, 2);
      assert.equal(details.truncated, false);
      assert.ok(details.processRunMs >= 0 && details.durationMs >= 0);
    });

    test("a detour: beside the shortest path, one a hop longer through a definition as near as the one before", async () => {
      const cache = node("cache", "src/cache.ts", 1);
      const reverse = GRAPH["impact persist"].definitions[0];
      const graph = {
        ...GRAPH,
        "impact persist": {
          definitions: [
            {
              ...reverse,
              affected: [...reverse.affected, cache],
              edges: [...reverse.edges, edge(store, cache, 2), edge(cache, persist, 2)],
            },
          ],
        },
      };
      fs.writeFileSync(graphFile, JSON.stringify(graph));
      try {
        const { text } = await graphCall({ relation: "path", from: "main", to: "persist" }).answer;
        const lines = text.split("\n⚠")[0].split("\n");
        assert.match(lines[0], /^2 call paths from main to persist, shortest first/);
        assert.match(
          lines[1],
          /^1\. main .* → store \(src\/store\.ts:1\) → calls persist at src\/store\.ts:3 → persist/,
        );
        assert.match(
          lines[2],
          /^2\. main .* → store \(src\/store\.ts:1\) → calls cache .*→ cache \(src\/cache\.ts:1\) → calls persist .*→ persist/,
        );
      } finally {
        fs.writeFileSync(graphFile, JSON.stringify(GRAPH));
      }
    });

    test("no path: the walk goes forward from `from` (callees of what it reached) and says where it stops and the way there", async () => {
      const reverse = GRAPH["impact persist"].definitions[0];
      const graph = {
        ...GRAPH,
        "impact persist": {
          definitions: [
            {
              ...reverse,
              affected: reverse.affected.filter((n) => n !== main),
              edges: reverse.edges.filter((e) => e.source !== main.id),
            },
          ],
        },
        "callees main": { definitions: [definition(main, { callees: [helper], edges: [edge(main, helper, 4)] })] },
      };
      fs.writeFileSync(graphFile, JSON.stringify(graph));
      try {
        const { answer, seen } = graphCall({ relation: "path", from: "main", to: "persist" });
        const { text } = await answer;
        assert.match(
          text,
          /^No call path from main to persist in CodeGraph's graph: 3 definitions reach persist within 6 hops \(store, handle, direct\)/,
        );
        assert.match(text, /main reaches 2 definitions within 3 hops/);
        assert.match(
          text,
          /\nWhere it stops \(what main reaches, those in persist's files or folders first\): leaf \(src\/util\.ts:9\), helper \(src\/util\.ts:1\)\.\n/,
        );
        assert.match(
          text,
          /\nThe way there: main \(src\/app\.ts:3\) → calls helper at src\/app\.ts:4 → helper \(src\/util\.ts:1\) → calls leaf at src\/util\.ts:2 → leaf \(src\/util\.ts:9\)\n/,
        );
        assert.match(text, /To look further: codegraph_node on leaf/);
        const symbols = seen.map((s) => `${s.command.subcommand} ${s.command.positional}`);
        assert.deepEqual(symbols.slice(2).sort(), ["callees helper", "callees leaf"]);
        const narrowed = seen.find((s) => s.command.positional === "helper").command.options;
        assert.ok(narrowed.includes("--file=src/util.ts"), narrowed.join(" "));
      } finally {
        fs.writeFileSync(graphFile, JSON.stringify(GRAPH));
      }
    });

    test("a qualified name CodeGraph lacks as written: asked by its last part, the definitions its module or file names kept; none: said, all read", async () => {
      const { answer, seen } = graphCall({ relation: "path", from: "app.main", to: "store.persist" });
      const { text } = await answer;
      assert.match(
        text,
        /^1 call path from app\.main to store\.persist, shortest first, from CodeGraph's graph \(impact of persist, depth 6, and the callees of main\):/,
      );
      assert.match(text, /\n1\. main \(src\/app\.ts:3\) → calls handle at src\/app\.ts:5 →/);
      const asked = seen.map((s) => `${s.command.subcommand} ${s.command.positional}`);
      assert.deepEqual(asked.sort(), ["callees app.main", "callees main", "impact persist", "impact store.persist"]);
      const other = await graphCall({ relation: "path", from: "util.main", to: "persist" }).answer;
      assert.match(
        other.text,
        /^None of CodeGraph's 1 definition named main is util\.main by its qualified name or file \(another symbol\): the answer below reads it\.\n1 call path from util\.main to persist/,
      );
    });

    test("no callee of from in the graph: the names its body calls are looked up (callees by name), the hop a text match", async () => {
      // The runner with its outlineSource (the text step reads the body's lines by it), its commands recorded.
      const base = runnerOf(impl.id);
      const seen = [];
      const withOutline = forRunner({
        ...Object.fromEntries(LIMIT_NAMES.map((n) => [n, base[n]])),
        runCommand(command, cwd, signal, options) {
          seen.push({ command });
          return base.runCommand(command, cwd, signal, options);
        },
        outlineSource: (...a) => base.outlineSource(...a),
        diagnose: (...a) => base.diagnose(...a),
        releaseFullOutputs: (p) => base.releaseFullOutputs(p),
        runnerInfo: () => base.runnerInfo(),
      });
      const { text } = await withEnv({ FAKE_CG_MODE: "graph", FAKE_CG_GRAPH: graphFile }, () =>
        withOutline.relations({ relation: "path", from: "orphan", to: "persist" }, ws),
      );
      assert.match(
        text,
        /\n1\. orphan \(src\/orphan\.ts:1\) → calls handle at src\/orphan\.ts:2 \(text match: not in CodeGraph's graph; namesakes share the name\) → handle \(src\/handler\.ts:3\) → calls store at src\/handler\.ts:5 →/,
      );
      assert.ok(seen.some((s) => s.command.subcommand === "callees" && s.command.positional === "handle"));
    });

    test("a from the index lacks (inside a Rust macro block; a re-export far into a large file): the path from its source body or the name it gives, the hop a text match; a call in a function given to a call, through what it is given to", async () => {
      const base = runnerOf(impl.id); // with its scanSource and outlineSource
      const glue = forRunner({
        ...Object.fromEntries(LIMIT_NAMES.map((n) => [n, base[n]])),
        ...Object.fromEntries(
          ["runCommand", "scanSource", "outlineSource", "diagnose", "releaseFullOutputs", "runnerInfo"].map((n) => [
            n,
            (...a) => base[n](...a),
          ]),
        ),
      });
      const pathOf = (from) =>
        withEnv({ FAKE_CG_MODE: "graph", FAKE_CG_GRAPH: graphFile }, () =>
          glue.relations({ relation: "path", from, to: "persist" }, ws),
        );
      const { text } = await pathOf("hidden");
      assert.match(
        (await pathOf("relayed")).text,
        /\n1\. relayed \(src\/facade\.ts:2100; not in CodeGraph's index: far into a 2,103-line file, where CodeGraph 1\.6\.1 can miss declarations\) → names handle at src\/facade\.ts:2100 \(text match: not in CodeGraph's graph; namesakes share the name\) → handle \(src\/handler\.ts:3\) →/,
      );
      assert.match(
        (await pathOf("wrapped")).text,
        /\n1\. wrapped \(src\/facade\.ts:2102; .*\) → calls withRun at src\/facade\.ts:2103 \(text match: .*\) → withRun \(src\/facade\.ts:2101\) → is given, at src\/facade\.ts:2103, a function that calls handle \(text match: not in CodeGraph's graph; namesakes share the name\) → handle \(src\/handler\.ts:3\) →/,
      );
      assert.match(
        text,
        /\n1\. hidden \(src\/blind\.rs:2; not in CodeGraph's index: inside a cfg_x! macro block, which CodeGraph does not index\) → calls handle at src\/blind\.rs:3 \(text match: not in CodeGraph's graph; namesakes share the name\) → handle \(src\/handler\.ts:3\) → calls store at src\/handler\.ts:5 →/,
      );
    });

    test("a name the index lacks: said, with CodeGraph's own line; the same definition: said", async () => {
      const { text } = await graphCall({ relation: "path", from: "main", to: "nowhere" }).answer;
      assert.match(text, /^CodeGraph's index has no symbol named nowhere \(CodeGraph: ℹ Symbol "nowhere" not found\)/);
      const missing = await graphCall({ relation: "path", from: "ghost", to: "persist" }).answer;
      assert.match(missing.text, /^CodeGraph's index has no symbol named ghost/);
      const graph = { ...GRAPH, "callees persist": { definitions: [definition(persist, { callees: [], edges: [] })] } };
      fs.writeFileSync(graphFile, JSON.stringify(graph));
      try {
        const same = await graphCall({ relation: "path", from: "persist", to: "persist" }).answer;
        assert.match(same.text, /^persist and persist name the same definition/);
      } finally {
        fs.writeFileSync(graphFile, JSON.stringify(GRAPH));
      }
    });

    test("a cancelled call: CODEGRAPH_CANCELLED, as every call", async () => {
      const controller = new AbortController();
      controller.abort();
      const { answer } = graphCall({ relation: "path", from: "main", to: "persist" }, undefined, controller.signal);
      await assert.rejects(answer, (err) => err.code === "CODEGRAPH_CANCELLED");
    });
  });
}

test("the transcript's line: 'path from A to B', over the first command it runs (impact of B as JSON)", async () => {
  const { createRequire } = await import("node:module");
  const require = createRequire(import.meta.url);
  const { focusedTool } = require("../../lib/pi/tools/focused.js");
  const { commandLine } = require("../../lib/contract/text.js");
  const spec = focusedTool("codegraph_relations");
  const args = { relation: "path", from: "main", to: "persist" };
  assert.equal(spec.subject(args).filter(Boolean).join(" "), "path from main to persist");
  assert.equal(commandLine(spec.command(args)), "codegraph impact --json --depth=6 -- 'persist'");
  assert.equal(spec.subject({ relation: "callers", symbol: "x" }).filter(Boolean).join(" "), "callers of x");
});
