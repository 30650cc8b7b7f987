// The focused tools (codegraph_node, codegraph_relations, codegraph_search) at the public seam
// (the session and its helpers: helpers/tools-session.mjs). Each suite runs over the native addon,
// and the Node runner.
// This file: the command each call runs (argv as the fake CLI records it), every argument rule
// through the registered tool's execute() and through the exported node()/relations()/search(),
// and the schemas under Pi's own validator.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { rejectsWith, root, withEnv } from "../helpers/index.mjs";
import { CALL, logged, settle, toolsSessions, useToolsEnv } from "../helpers/tools-session.mjs";

const longName = "x".repeat(301);
const longFile = `${"d/".repeat(256)}f`; // 513 characters
const throwing = (base, name) =>
  Object.defineProperty({ ...base }, name, {
    enumerable: true,
    get() {
      throw new Error("getter");
    },
  });
/**
 * Every argument rule, with variants the issue does not list: [tool, params, argument, rule].
 * `ws`: the indexed workspace (one case names a file in it by its absolute path).
 */
function argumentRules(ws) {
  return [
    ["codegraph_node", null, "", "notObject"],
    ["codegraph_node", [], "", "notObject"],
    ["codegraph_search", "Cart", "", "notObject"],
    ["codegraph_node", {}, "symbol", "symbolOrFile"],
    ["codegraph_node", { symbol: null, file: undefined }, "symbol", "symbolOrFile"],
    ["codegraph_node", { symbol: 5 }, "symbol", "notString"],
    ["codegraph_node", { symbol: "a\0b" }, "symbol", "nul"],
    ["codegraph_node", { symbol: "  \t" }, "symbol", "blank"],
    ["codegraph_node", { symbol: longName }, "symbol", "tooLong"],
    ["codegraph_node", { symbol: "../../etc/passwd" }, "symbol", "parent"],
    ["codegraph_node", { symbol: "/etc/passwd" }, "symbol", "absolute"],
    ["codegraph_node", { file: "/etc/passwd" }, "file", "absolute"],
    ["codegraph_node", { file: "../../etc/passwd" }, "file", "parent"],
    ["codegraph_node", { file: path.join(ws, "main.ts") }, "file", "absolute"], // an indexed file, absolute
    ["codegraph_node", { file: "C:\\Windows\\win.ini" }, "file", "absolute"],
    ["codegraph_node", { file: "c:relative" }, "file", "absolute"],
    ["codegraph_node", { file: "\\\\server\\share\\x.ts" }, "file", "absolute"],
    ["codegraph_node", { file: "//server/share/x.ts" }, "file", "absolute"],
    ["codegraph_node", { file: "src\\..\\..\\secret" }, "file", "parent"],
    ["codegraph_node", { file: "src/ .. /x" }, "file", "parent"],
    ["codegraph_node", { file: "src/.." }, "file", "parent"],
    ["codegraph_node", { file: "~/.ssh/id_rsa" }, "file", "absolute"],
    ["codegraph_node", { file: "~root/x" }, "file", "absolute"],
    ["codegraph_node", { file: "-rf" }, "file", "dash"],
    ["codegraph_node", { file: "src/a\nb.ts" }, "file", "control"],
    ["codegraph_node", { file: "src/a\u001bb.ts" }, "file", "control"],
    ["codegraph_node", { file: "src/a\u007f.ts" }, "file", "control"],
    ["codegraph_node", { file: "a\0.ts" }, "file", "nul"],
    ["codegraph_node", { file: "" }, "file", "blank"],
    ["codegraph_node", { file: longFile }, "file", "tooLong"],
    ["codegraph_node", { file: ["src/a.ts"] }, "file", "notString"],
    ["codegraph_node", { file: "a.ts", offset: 2.5 }, "offset", "range"],
    ["codegraph_node", { file: "a.ts", offset: 0 }, "offset", "range"],
    ["codegraph_node", { file: "a.ts", offset: 1_000_001 }, "offset", "range"],
    ["codegraph_node", { file: "a.ts", limit: Number.NaN }, "limit", "range"],
    ["codegraph_node", { file: "a.ts", limit: "5" }, "limit", "range"],
    ["codegraph_node", { file: "a.ts", limit: Number.POSITIVE_INFINITY }, "limit", "range"],
    ["codegraph_node", { file: "a.ts", limit: 2001 }, "limit", "range"],
    ["codegraph_node", { file: "a.ts", outline: "yes" }, "outline", "notBoolean"],
    ["codegraph_node", { symbol: "x", offset: 3 }, "offset", "fileModeOnly"],
    ["codegraph_node", { symbol: "x", file: "a.ts", limit: 3 }, "limit", "fileModeOnly"],
    ["codegraph_node", { symbol: "x", outline: true }, "outline", "fileModeOnly"],
    ["codegraph_node", { symbol: "x", limt: 3 }, "limt", "unknown"],
    ["codegraph_node", throwing({}, "symbol"), "symbol", "unreadable"],
    ["codegraph_relations", { symbol: "x" }, "relation", "required"],
    ["codegraph_relations", { relation: "Callers", symbol: "x" }, "relation", "enum"],
    ["codegraph_relations", { relation: "nope", symbol: "x" }, "relation", "enum"],
    ["codegraph_relations", { relation: "callers" }, "symbol", "required"],
    ["codegraph_relations", { relation: "callers", symbol: "x", file: "../x" }, "file", "parent"],
    ["codegraph_relations", { relation: "callers", symbol: "x", file: "D:/x.ts" }, "file", "absolute"],
    ["codegraph_relations", { relation: "impact", symbol: "x", limit: 5 }, "limit", "notFor"],
    ["codegraph_relations", { relation: "callers", symbol: "x", depth: 2 }, "depth", "notFor"],
    ["codegraph_relations", { relation: "callees", symbol: "x", depth: 2 }, "depth", "notFor"],
    ["codegraph_relations", { relation: "impact", symbol: "x", depth: 11 }, "depth", "range"],
    ["codegraph_relations", { relation: "impact", symbol: "x", depth: 0 }, "depth", "range"],
    ["codegraph_relations", { relation: "callers", symbol: "x", limit: 51 }, "limit", "range"],
    ["codegraph_relations", { relation: "callers", symbol: "x", limit: "abc" }, "limit", "range"],
    ["codegraph_relations", { relation: "callers", symbol: "x", extra: 1 }, "extra", "unknown"],
    ["codegraph_relations", throwing({ symbol: "x" }, "relation"), "relation", "unreadable"],
    ["codegraph_search", {}, "name", "required"],
    ["codegraph_search", { name: "" }, "name", "blank"],
    ["codegraph_search", { name: "Cart", kind: "banana" }, "kind", "enum"],
    ["codegraph_search", { name: "Cart", kind: "Class" }, "kind", "enum"],
    ["codegraph_search", { name: "Cart", kind: "file" }, "kind", "enum"],
    ["codegraph_search", { name: "Cart", limit: 0 }, "limit", "range"],
    ["codegraph_search", { name: "Cart", limit: 2.5 }, "limit", "range"],
    ["codegraph_search", { name: "Cart", query: "x" }, "query", "unknown"],
    ["codegraph_search", throwing({ name: "Cart" }, "limit"), "limit", "unreadable"],
  ];
}

test("every rule lib/contract/arguments.js can break is among the cases the suites below run", () => {
  const source = fs.readFileSync(path.join(root, "lib", "contract", "arguments.js"), "utf8");
  const named = new Set([...source.matchAll(/argumentError\(tool, [^,]+, "(\w+)"/g)].map((m) => m[1]));
  assert.ok(named.size >= 15, [...named].join());
  const exercised = new Set(argumentRules("/ws").map(([, , , rule]) => rule));
  assert.deepEqual([...exercised].sort(), [...named].sort());
});

const fake = useToolsEnv();

for (const impl of implementations) {
  describe(impl.name, () => {
    const pkg = impl.module;
    const { allOn, execute } = toolsSessions(pkg, fake);
    describe("the command each call runs", () => {
      // [tool, params, argv]: options as --name=value, the user's text after `--`, file mode without `--`.
      const cases = [
        ["codegraph_node", { symbol: "checkout" }, ["node", "--", "checkout"]],
        [
          "codegraph_node",
          { symbol: "checkout", file: "src/cart.ts" },
          ["node", "--file=src/cart.ts", "--", "checkout"],
        ],
        ["codegraph_node", { file: "src/cart.ts" }, ["node", "--file=src/cart.ts"]],
        [
          "codegraph_node",
          { file: "src/cart.ts", offset: 10, limit: 20, outline: true },
          ["node", "--file=src/cart.ts", "--offset=10", "--limit=20", "--symbols-only"],
        ],
        ["codegraph_node", { file: "src/cart.ts", outline: false }, ["node", "--file=src/cart.ts"]],
        ["codegraph_node", { symbol: "--json" }, ["node", "--", "--json"]],
        ["codegraph_relations", { relation: "callers", symbol: "charge" }, ["callers", "--", "charge"]],
        [
          "codegraph_relations",
          { relation: "callers", symbol: "charge", file: "src/pay.ts", limit: 5 },
          ["callers", "--file=src/pay.ts", "--limit=5", "--", "charge"],
        ],
        [
          "codegraph_relations",
          { relation: "callees", symbol: "-rf", limit: 50 },
          ["callees", "--limit=50", "--", "-rf"],
        ],
        [
          "codegraph_relations",
          { relation: "impact", symbol: "Cart.total", depth: 10 },
          ["impact", "--depth=10", "--", "Cart.total"],
        ],
        ["codegraph_search", { name: "Cart" }, ["query", "--", "Cart"]],
        [
          "codegraph_search",
          { name: "a b; rm -rf /", kind: "type_alias", limit: 1 },
          ["query", "--kind=type_alias", "--limit=1", "--", "a b; rm -rf /"],
        ],
      ];

      test("through the exported calls and the registered tools: the same argv, never --json", async () => {
        const s = await allOn();
        for (const [name, params, argv] of cases) {
          const direct = await logged(() => pkg[CALL[name]](params, fake.ws));
          assert.deepEqual(direct.argvs, [argv], `${name} ${JSON.stringify(params)}`);
          assert.match(direct.value.text, /^FAKE EXPLORE\n/);
          const viaTool = await logged(() => execute(s.tool(name), params, s.ctx));
          assert.deepEqual(viaTool.argvs, [argv], `${name} via execute()`);
          assert.equal(viaTool.value.content[0].text, direct.value.text);
          const dashes = argv.indexOf("--");
          const options = dashes < 0 ? argv : argv.slice(0, dashes);
          assert.ok(!options.includes("--json"), "no --json reaches the CLI as an option");
        }
      });

      test("a 'not found — did you mean' answer is a normal result that keeps its suggestions", async () => {
        const s = await allOn();
        const said = 'ℹ Symbol "chrge" not found — did you mean: charge, change, charges?\n';
        await withEnv({ FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "0", FAKE_CG_STDOUT: said }, async () => {
          const r = await execute(s.tool("codegraph_relations"), { relation: "callers", symbol: "chrge" }, s.ctx);
          assert.equal(r.content[0].text, said);
          const direct = await pkg.search({ name: "chrge" }, fake.ws);
          assert.equal(direct.text, said);
        });
      });

      test("a focused tool's failure ends with its own fallback line", async () => {
        const s = await allOn();
        await withEnv({ FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "3", FAKE_CG_STDERR: "boom" }, async () => {
          const err = await settle(execute(s.tool("codegraph_search"), { name: "Cart" }, s.ctx));
          assert.ok(err.error, "it fails");
          assert.match(
            err.error.message,
            /\ncodegraph_search is unavailable for this request; use read, and grep\/find \(as tools or through bash\), instead\.$/,
          );
        });
      });
    });

    describe("argument rules", () => {
      test("each rule rejects through the exported call, with tool, argument and rule, and nothing starts", async () => {
        for (const [name, params, argument, rule] of argumentRules(fake.ws)) {
          const what = `${name} ${rule} ${argument}`;
          const { value: err, argvs } = await logged(() =>
            rejectsWith(pkg[CALL[name]](params, fake.ws), "CODEGRAPH_INVALID_REQUEST"),
          );
          assert.deepEqual(err.details, { tool: name, argument, rule }, what);
          assert.match(err.message, new RegExp(`the ${name} arguments are invalid`), what);
          if (argument) assert.ok(err.message.includes(`\`${argument}\``), `${what}: ${err.message}`);
          assert.doesNotMatch(err.message, /unnamed rule/, `${what}: the rule has its words`);
          assert.match(err.remediation, new RegExp(`Call ${name} again with the argument fixed`));
          assert.deepEqual(argvs, [], `${what}: no CLI started`);
        }
      });

      test("each rule rejects through the registered tool's execute(): the words without a fallback line", async () => {
        const s = await allOn();
        for (const [name, params, argument, rule] of argumentRules(fake.ws)) {
          const what = `${name} ${rule} ${argument}`;
          const { value: outcome, argvs } = await logged(() => settle(execute(s.tool(name), params, s.ctx)));
          assert.ok(outcome.error, `${what}: rejected`);
          assert.equal(outcome.error.code, "CODEGRAPH_INVALID_REQUEST", what);
          assert.deepEqual(outcome.error.details, { tool: name, argument, rule }, what);
          assert.ok(outcome.error.message.startsWith("CODEGRAPH_INVALID_REQUEST:"), what);
          assert.doesNotMatch(outcome.error.message, /is unavailable for this request/, what);
          assert.deepEqual(argvs, [], `${what}: no CLI started`);
        }
      });

      test("never throws synchronously, whatever the arguments", () => {
        for (const call of ["node", "relations", "search"])
          for (const params of [
            undefined,
            null,
            5,
            Symbol("s"),
            new Proxy(
              {},
              {
                ownKeys: () => {
                  throw new Error("k");
                },
              },
            ),
          ]) {
            const p = pkg[call](params, fake.ws);
            assert.ok(p instanceof Promise, call);
            p.catch(() => {});
          }
      });

      test("valid boundaries pass: offset 1 and 1,000,000, limit 2000, depth 1, limit 50, a name of 300", async () => {
        for (const [call, params] of [
          ["node", { file: "a.ts", offset: 1, limit: 2000 }],
          ["node", { file: "a.ts", offset: 1_000_000 }],
          ["node", { symbol: "x".repeat(300) }],
          ["node", { symbol: "Cart.total", file: "src/a b/c.ts" }],
          ["relations", { relation: "impact", symbol: "x", depth: 1 }],
          ["relations", { relation: "callers", symbol: "x", limit: 50 }],
          ["search", { name: "x", kind: "function", limit: 50 }],
          ["search", { name: "x", kind: null, limit: undefined }],
        ]) {
          const r = await pkg[call](params, fake.ws);
          assert.match(r.text, /^FAKE EXPLORE/, `${call} ${JSON.stringify(params).slice(0, 80)}`);
        }
      });
    });

    describe("the schemas under Pi's own validator", () => {
      test("Pi's validateToolArguments rejects what the CLI would take silently; valid calls pass", async () => {
        const { validateToolArguments } = await import("@earendil-works/pi-ai");
        const s = await allOn();
        const call = (name, args) =>
          validateToolArguments(s.tool(name), { type: "toolCall", id: "1", name, arguments: args });
        for (const [name, args, field] of [
          ["codegraph_relations", { relation: "callers", symbol: "x", limit: "abc" }, "limit"],
          ["codegraph_relations", { relation: "nope", symbol: "x" }, "relation"],
          ["codegraph_relations", { relation: "impact", symbol: "x", depth: 11 }, "depth"],
          ["codegraph_relations", { symbol: "x" }, "relation"],
          ["codegraph_search", { name: "x", kind: "banana" }, "kind"],
          ["codegraph_search", { name: "" }, "name"],
          ["codegraph_node", { file: "a.ts", offset: 0 }, "offset"],
          ["codegraph_node", { file: "a.ts", outline: "maybe" }, "outline"],
        ])
          assert.throws(() => call(name, args), new RegExp(field), `${name} ${JSON.stringify(args)}`);
        assert.deepEqual(call("codegraph_relations", { relation: "impact", symbol: "x", depth: 3 }), {
          relation: "impact",
          symbol: "x",
          depth: 3,
        });
        assert.deepEqual(call("codegraph_search", { name: "Cart", kind: "class", limit: 5 }), {
          name: "Cart",
          kind: "class",
          limit: 5,
        });
        assert.deepEqual(call("codegraph_node", { file: "src/a.ts", outline: true }), {
          file: "src/a.ts",
          outline: true,
        });
        // Pi converts before execute(): "5" and 2.5 reach it as 5 and 2 (lib/contract/arguments.js rejects
        // both from a caller without Pi: the "argument rules" above).
        assert.deepEqual(call("codegraph_search", { name: "x", limit: "5" }), { name: "x", limit: 5 });
        assert.deepEqual(call("codegraph_search", { name: "x", limit: 2.5 }), { name: "x", limit: 2 });
      });
    });
  });
}
