// The focused tools (codegraph_node, codegraph_relations, codegraph_search) against the real,
// pinned CodeGraph CLI on a copy of the shop fixture, on each runner, through the exported
// functions node()/relations()/search() and through the registered tools (turned on with
// `/codegraph tools all`, as the user would). The CLI runs behind a recording wrapper on PATH: a
// line per start, so a refused `file` key is shown to start no process at all.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { DEFAULT_ACTIVE, recordingCli, rejectsWith, root, tempDir, withEnv } from "../helpers/index.mjs";
import { hostWith, recordingUi, runCommand } from "../helpers/pi-host.mjs";

const realBin = path.join(root, "node_modules", ".bin");
const realCli = path.join(realBin, "codegraph");
const cliMissing = fs.existsSync(realCli) ? false : "the pinned CodeGraph CLI is not installed";
const fixture = path.join(root, "__test__", "fixtures", "shop");

let scratch;
let ws;
let wrapperDir;
let log;

/** Every start of the CLI other than the version probe, as the argument lines the wrapper logged. */
const starts = () =>
  fs.existsSync(log)
    ? fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l && l !== "--version")
    : [];

/** The environment of every call: the wrapper first, a temp agent dir and HOME, no opt-outs of ours. */
const env = (fn) =>
  withEnv(
    {
      PATH: [wrapperDir, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
      DO_NOT_TRACK: "1",
      PI_CODEGRAPH_BIN: undefined,
      PI_CODEGRAPH_TOOLS: undefined,
      PI_CODING_AGENT_DIR: path.join(scratch, "agent"),
      HOME: path.join(scratch, "home"),
    },
    fn,
  );

/** A copy of the fixture (plus `extra` files, by relative path) indexed by the test itself with the pinned CLI. */
function indexedCopy(name, extra = {}) {
  const dir = path.join(scratch, name);
  fs.cpSync(fixture, dir, { recursive: true });
  for (const [file, text] of Object.entries(extra)) fs.writeFileSync(path.join(dir, file), text);
  fs.rmSync(path.join(dir, ".codegraph"), { recursive: true, force: true });
  execFileSync(realCli, ["init", "-y", "."], { cwd: dir, env: { ...process.env, DO_NOT_TRACK: "1" }, stdio: "ignore" });
  return dir;
}

before(() => {
  if (cliMissing) return;
  scratch = tempDir("pi-codegraph-tools-real-");
  fs.mkdirSync(path.join(scratch, "home"));
  ws = indexedCopy("shop");
  wrapperDir = path.join(scratch, "bin");
  log = path.join(scratch, "starts.log");
  recordingCli(wrapperDir, log, realCli);
});
after(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** No line of an answer is a JSON document (we never pass --json; CodeGraph's text is not JSON). */
function assertNoJson(text) {
  assert.doesNotMatch(text, /"(?:name|kind|filePath|nodes|edges)"\s*:/, "no JSON keys");
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!/^[[{]/.test(t) || t.length < 2) continue;
    let parsed;
    try {
      parsed = JSON.parse(t);
    } catch {}
    assert.equal(parsed, undefined, `a JSON line: ${t}`);
  }
}

/** The lookup keys that are never sent: each with the rule it breaks. */
const BAD_FILES = [
  ["/etc/passwd", "absolute"],
  ["../../etc/passwd", "parent"],
  ["C:\\x", "absolute"],
  ["..\\x", "parent"],
  ["-x", "dash"],
  ["src/cart.ts\0", "nul"],
];

for (const impl of implementations) {
  describe(`${impl.name}: the focused tools on the real CodeGraph CLI`, { skip: cliMissing, timeout: 180000 }, () => {
    // Each call through both seams: the exported function, and the registered tool, on by default
    // (its answer is Pi's tool result; a failure is a thrown coded Error).
    let tools;
    const direct = {
      node: (params) => impl.module.node(params, ws),
      relations: (params) => impl.module.relations(params, ws),
      search: (params) => impl.module.search(params, ws),
    };
    const viaTool = {
      node: (params) => callTool("codegraph_node", params),
      relations: (params) => callTool("codegraph_relations", params),
      search: (params) => callTool("codegraph_search", params),
    };
    async function callTool(name, params) {
      const tool = tools.find((t) => t.name === name);
      assert.ok(tool, `${name} is active`);
      const r = await tool.execute("call-1", params, undefined, undefined, { cwd: ws, hasUI: false });
      return { text: r.content.map((c) => c.text).join(""), details: r.details };
    }
    const seams = [
      ["function", direct],
      ["tool", viaTool],
    ];

    before(async () => {
      // No choice saved by an earlier suite: the default, every tool on.
      fs.rmSync(path.join(scratch, "agent"), { recursive: true, force: true });
      const all = [
        "codegraph_explore",
        "codegraph_node",
        "codegraph_relations",
        "codegraph_search",
        "codegraph_changes",
      ];
      await env(async () => {
        const host = await hostWith(impl.module);
        const ctx = { cwd: ws, hasUI: true, ui: recordingUi() };
        await host.startSession(ctx);
        assert.deepEqual(
          host
            .activeTools()
            .map((t) => t.name)
            .sort(),
          [...DEFAULT_ACTIVE].sort(),
          "the default",
        );
        await runCommand(host, ctx, "codegraph", "tools none");
        assert.deepEqual(
          host.activeTools().map((t) => t.name),
          ["codegraph_explore"],
          "none: explore alone",
        );
        await runCommand(host, ctx, "codegraph", "tools all");
        tools = host.activeTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), [...all].sort());
      });
    });

    for (const [seam, call] of seams) {
      describe(`through the ${seam}`, () => {
        test("node: a symbol found: its source with numbered lines and its trail", async () => {
          const { text } = await env(() => call.node({ symbol: "checkout" }));
          assert.match(text, /\*\*checkout\*\* \(method\)/);
          assert.match(text, /\*\*Location:\*\* src\/checkout\.ts:7/);
          assert.match(text, /\*\*Calls →\*\* .*calculateTotal \(src\/cart\.ts:11\)/);
          assertNoJson(text);
        });

        test("node: two definitions of charge are both shown; `file` picks one", async () => {
          const both = await env(() => call.node({ symbol: "charge" }));
          assert.match(both.text, /2 definitions named "charge"/);
          assert.match(both.text, /src\/stripe\.ts:4/);
          assert.match(both.text, /src\/types\.ts:7/);
          const one = await env(() => call.node({ symbol: "charge", file: "src/types.ts" }));
          assert.doesNotMatch(one.text, /2 definitions/);
          assert.match(one.text, /\*\*Location:\*\* src\/types\.ts:7/);
          assert.doesNotMatch(one.text, /\*\*Location:\*\* src\/stripe\.ts/);
          assertNoJson(one.text);
        });

        test("node: a symbol not found is an answer, not an error", async () => {
          const { text } = await env(() => call.node({ symbol: "zzqxNothingLikeThis" }));
          assert.match(text, /"zzqxNothingLikeThis" not found/);
        });

        test("a name that looks like an option is still a name (it goes after --)", async () => {
          const node = await env(() => call.node({ symbol: "--help" }));
          assert.match(node.text, /Symbol "--help" not found/);
          const rel = await env(() => call.relations({ relation: "callers", symbol: "--json" }));
          assert.match(rel.text, /Symbol "--json" not found/);
        });

        test("node: a symbol written as an indexed path is CodeGraph's file mode", async () => {
          const { text } = await env(() => call.node({ symbol: "src/cart.ts" }));
          assert.match(text, /\*\*src\/cart\.ts\*\* — 19 lines/);
          assert.match(text, /^1\texport interface CartItem \{$/m);
        });

        test("node file mode: numbered lines from offset, limit of them", async () => {
          const { text } = await env(() => call.node({ file: "src/cart.ts", offset: 2, limit: 3 }));
          assert.match(text, /^2\t {2}sku: string;$/m);
          assert.match(text, /^4\t {2}quantity: number;$/m);
          assert.doesNotMatch(text, /^1\t/m, "nothing before offset");
          assert.doesNotMatch(text, /^5\t/m, "nothing after offset + limit - 1");
          assert.match(text, /lines 2–4 of 19/);
          assertNoJson(text);
        });

        test("node outline: the file's symbols, no source lines", async () => {
          const { text } = await env(() => call.node({ file: "src/cart.ts", outline: true }));
          assert.match(text, /\*\*Symbols\*\*/);
          assert.match(text, /`validateCart` \(function\)/);
          assert.match(text, /`applyDiscount` \(function\)/);
          assert.doesNotMatch(text, /^\d+\t/m, "no numbered source lines");
          assertNoJson(text);
        });

        test("node: a file that is not indexed is CodeGraph's own answer", async () => {
          const { text } = await env(() => call.node({ file: "src/nope.ts" }));
          assert.match(text, /No indexed file matches "src\/nope\.ts"/);
        });

        test("relations callers: one group per definition of charge; `file` picks one", async () => {
          const both = await env(() => call.relations({ relation: "callers", symbol: "charge" }));
          // CodeGraph's "narrow with --file", in the tool's own parameter.
          assert.match(both.text, /2 distinct definitions \(narrow with `file`\):/);
          assert.doesNotMatch(both.text, /--file|--limit/);
          assert.match(both.text, /StripeProcessor::charge .*src\/stripe\.ts:4/);
          assert.match(both.text, /PaymentProcessor::charge .*src\/types\.ts:7/);
          assertNoJson(both.text);
          const one = await env(() => call.relations({ relation: "callers", symbol: "charge", file: "src/types.ts" }));
          assert.doesNotMatch(one.text, /distinct definitions|StripeProcessor/);
          assert.match(one.text, /PaymentProcessor::charge/);
          assert.match(one.text, /checkout\n\s+src\/checkout\.ts:7/);
        });

        test("relations impact: a blast radius per definition; `file` and `depth` narrow it", async () => {
          const both = await env(() => call.relations({ relation: "impact", symbol: "charge" }));
          assert.match(both.text, /Impact of changing "charge" — 2 distinct definitions/);
          assert.match(both.text, /main:4/, "the interface's radius reaches main");
          const one = await env(() =>
            call.relations({ relation: "impact", symbol: "charge", file: "src/stripe.ts", depth: 1 }),
          );
          assert.doesNotMatch(one.text, /distinct definitions|PaymentProcessor::charge/);
          assert.match(one.text, /StripeProcessor::charge/);
          assert.doesNotMatch(one.text, /main:4/, "depth 1 stops before main");
          assertNoJson(one.text);
        });

        test("relations callees: what checkout calls", async () => {
          const { text } = await env(() => call.relations({ relation: "callees", symbol: "checkout", limit: 2 }));
          assert.match(text, /Callees of "checkout"/);
          assert.match(text, /calculateTotal|validateCart/);
          assertNoJson(text);
        });

        test("relations on a misspelt name keeps CodeGraph's suggestion, as a result", async () => {
          for (const relation of ["callers", "callees", "impact"]) {
            const { text } = await env(() => call.relations({ relation, symbol: "chrge" }));
            assert.match(text, /"chrge" not found — did you mean: charge\?/, relation);
          }
        });

        test("search: kind and limit", async () => {
          const methods = await env(() => call.search({ name: "c", kind: "method", limit: 50 }));
          assert.match(methods.text, /method {6}checkout/);
          assert.doesNotMatch(methods.text, /^(function|class|interface) /m, "methods only");
          const one = await env(() => call.search({ name: "c", limit: 1 }));
          assert.equal(one.text.match(/^\S+ +\S+\n {2}\S+:\d+/gm)?.length, 1, one.text);
          assert.match(one.text, /truncated at 1/);
          const none = await env(() => call.search({ name: "zzqxNothingLikeThis" }));
          assert.match(none.text, /No results found for "zzqxNothingLikeThis"/);
          assertNoJson(methods.text);
        });

        test("a `file` key outside the index's names is refused before any process starts", async () => {
          // A valid call is logged: the wrapper sees what runs.
          const before = starts().length;
          await env(() => call.node({ file: "src/cart.ts", outline: true }));
          assert.equal(starts().length, before + 1, "the wrapper logs a start");
          const absoluteIndexed = path.join(ws, "src", "cart.ts");
          const cases = [...BAD_FILES, [absoluteIndexed, "absolute"]];
          for (const [file, rule] of cases) {
            const calls = [
              ["codegraph_node", "file", () => call.node({ file })],
              ["codegraph_node", "file", () => call.node({ symbol: "charge", file })],
              ["codegraph_relations", "file", () => call.relations({ relation: "callers", symbol: "charge", file })],
            ];
            // A symbol with a separator is CodeGraph's own file mode: the same rule.
            if (/[/\\]/.test(file)) calls.push(["codegraph_node", "symbol", () => call.node({ symbol: file })]);
            for (const [tool, argument, c] of calls) {
              const n = starts().length;
              const err = await rejectsWith(
                env(() => c()),
                "CODEGRAPH_INVALID_REQUEST",
              );
              assert.deepEqual(err.details, { tool, argument, rule }, `${JSON.stringify(file)}: ${err.message}`);
              assert.equal(starts().length, n, `no process for ${JSON.stringify(file)}`);
            }
          }
        });
      });
    }

    test("no focused command was ever started with --json", () => {
      const focused = starts().filter((l) => /^(node|callers|callees|impact|query)\b/.test(l));
      assert.ok(focused.length > 20, `the suite ran the focused commands (${focused.length})`);
      assert.deepEqual(
        focused.filter((l) => /(^| )--json\b/.test(l.split(" -- ")[0])),
        [],
      );
    });

    test("the stale-files line on a focused answer citing a file edited after the index", async () => {
      // An ES module's imports name files relative to it ("./cart.js"): code, never a citation.
      const esm = 'import { validateCart } from "./cart.js";\nexport function esm() { return validateCart([]); }\n';
      const dir = await env(() => indexedCopy(`stale-${impl.id}`, { "src/esm.ts": esm }));
      const fresh = await env(() => impl.module.relations({ relation: "callers", symbol: "validateCart" }, dir));
      assert.doesNotMatch(fresh.text, /changed after the CodeGraph index/);
      const lines = await env(() => impl.module.node({ file: "src/esm.ts" }, dir));
      assert.match(lines.text, /^1\timport \{ validateCart \} from "\.\/cart\.js";$/m);
      assert.doesNotMatch(lines.text, /changed after the CodeGraph index/, "a fresh index: no stale line");
      assert.equal(lines.details.staleFiles, undefined);
      const file = path.join(dir, "src", "checkout.ts");
      // Edited after the index, as a user edits (no date set: a modification time in the future
      // is no later write, and the change time is the clock's).
      fs.appendFileSync(file, "\n// edited later\n");
      const stale = await env(() => impl.module.relations({ relation: "callers", symbol: "validateCart" }, dir));
      assert.match(stale.text, /src\/checkout\.ts/);
      assert.match(
        stale.text,
        /⚠ 1 file named above changed after the CodeGraph index was last written \(src\/checkout\.ts\)/,
      );
      for (const params of [{ file: "src/checkout.ts", outline: true }, { file: "src/checkout.ts" }]) {
        const node = await env(() => impl.module.node(params, dir));
        assert.match(node.text, /changed after the CodeGraph index was last written \(src\/checkout\.ts\)/);
      }
    });
  });
}
