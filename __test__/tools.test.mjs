// The focused tools (codegraph_node, codegraph_relations, codegraph_search) at the public seam:
// the command each call runs (argv as the fake CLI records it), every argument rule through the
// registered tool's execute() and through the exported node()/relations()/search(), the schemas
// under Pi's own validator, `/codegraph tools` (the choice, its sources, the saved file, the
// completion), the words the model reads with tools on and off, and the rendering. Each suite
// runs over the native addon and the Node runner.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "./helpers/impl.mjs";
import { makeWorkspace, readLog, rejectsWith, root, tempDir, useFakeCli, withEnv } from "./helpers/index.mjs";
import { createPiHost, piInteractive, piPeers, plainTheme, recordingUi, renderText } from "./helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
// Where the choice for a project is saved (Pi's agent directory, a file named by the project's path).
const { savedFile } = require("../lib/pi/tools/choice.js");
const FOCUSED = ["codegraph_node", "codegraph_relations", "codegraph_search"];
const CALL = { codegraph_node: "node", codegraph_relations: "relations", codegraph_search: "search" };
// Explore's words as commit 0d259b6 (before the focused tools) had them, captured from that
// commit's own lib by fixtures/capture-explore-words.mjs.
const golden = JSON.parse(fs.readFileSync(path.join(root, "__test__", "fixtures", "explore-words-0d259b6.json")));

const fake = useFakeCli();
// The choice is saved in Pi's agent directory: never the user's own in a test.
const savedEnv = {};
before(() => {
  for (const k of ["PI_CODING_AGENT_DIR", "PI_CODEGRAPH_TOOLS"]) savedEnv[k] = process.env[k];
  process.env.PI_CODING_AGENT_DIR = tempDir("pi-codegraph-agent-");
  delete process.env.PI_CODEGRAPH_TOOLS;
});
after(() => {
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
// Rendering happens in interactive Pi, which has set up its theme and keybindings first.
before(piInteractive);

/** Runs `fn` with the fake CLI logging its argv; returns `{ value, argvs }` (the --version probe is not logged). */
async function logged(fn) {
  const log = path.join(tempDir("pi-codegraph-log-"), "log.jsonl");
  const value = await withEnv({ FAKE_CG_LOG: log }, fn);
  return { value, argvs: readLog(log).map((r) => r.argv) };
}

/** The outcome of a promise: `{ value }` or `{ error }`. */
const settle = (p) =>
  p.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

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

for (const impl of implementations) {
  describe(impl.name, () => {
    const pkg = impl.module;

    /**
     * A Pi session in `cwd` (Pi's host stand-in, a UI that records notifications), with `env`
     * set while it starts; `others` are extensions loaded before ours.
     */
    async function session(cwd, { env = {}, others = [] } = {}) {
      const peers = await piPeers();
      const host = createPiHost();
      for (const [factory, source] of others) host.load(factory, source);
      host.load(
        pkg.createExtension(() => peers),
        "pi-codegraph",
      );
      const ui = recordingUi();
      const ctx = { cwd, hasUI: true, ui };
      await withEnv(env, () => host.startSession(ctx));
      const tool = (name) => host.registry.find((t) => t.name === name);
      const active = () => host.activeTools().map((t) => t.name);
      /** `/codegraph <args>`: what it said (the last notification) and its type. */
      const command = async (args) => {
        ui.notes.length = 0;
        await host.commands.get("codegraph").handler(args, ctx);
        return ui.notes.at(-1);
      };
      const complete = (prefix) => host.commands.get("codegraph").getArgumentCompletions(prefix);
      return { host, ui, ctx, tool, active, command, complete };
    }
    /** A session with every focused tool on (PI_CODEGRAPH_TOOLS=all). */
    const allOn = (cwd = fake.ws) => session(cwd, { env: { PI_CODEGRAPH_TOOLS: "all" } });
    const execute = (tool, params, ctx) => tool.execute("call-1", params, undefined, undefined, ctx);

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
        const { validateToolArguments } = await import("@mariozechner/pi-ai");
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

    describe("/codegraph tools", () => {
      test("the list by default: explore always on, the three off, each with its line and cost; the source", async () => {
        const s = await session(makeWorkspace());
        assert.deepEqual(s.active(), ["codegraph_explore"]);
        const note = await s.command("tools");
        assert.equal(note.type, "info");
        const lines = note.message.split("\n");
        assert.equal(lines[0], "CodeGraph tools (the default: codegraph_explore only):");
        assert.match(lines[1], /^ {2}codegraph_explore +on \(always\) /);
        for (const [i, name] of FOCUSED.entries())
          assert.match(lines[2 + i], new RegExp(`^  ${name} +off +\\S.* · ≈ \\d+ tokens a request when on$`));
        assert.match(note.message, /Change: \/codegraph tools all \| none/);
        assert.equal((await s.command("tools list")).message, note.message);
      });

      test("all, none, on/off with and without names, exact names: Pi's active set follows, the file saves it", async () => {
        const ws = makeWorkspace();
        const s = await session(ws);
        const steps = [
          ["all", FOCUSED],
          ["none", []],
          ["on node", ["codegraph_node"]],
          ["on search codegraph_relations", FOCUSED],
          ["off relations", ["codegraph_node", "codegraph_search"]],
          ["off", []],
          ["on", FOCUSED],
          ["node,search", ["codegraph_node", "codegraph_search"]],
          ["  SEARCH  explore ", ["codegraph_search"]],
          ["NONE", []],
        ];
        for (const [args, on] of steps) {
          const note = await s.command(`tools ${args}`);
          assert.equal(note.type, "info", `${args}: ${note.message}`);
          assert.deepEqual(s.active(), ["codegraph_explore", ...on], args);
          const now = on.length ? `codegraph_explore, ${on.join(", ")}` : "codegraph_explore only";
          assert.match(
            note.message,
            new RegExp(`^CodeGraph tools on from the next request: ${now}\\.\\nSaved for this project \\(`),
          );
          const listed = (await s.command("tools")).message;
          assert.match(listed, /saved for this project by \/codegraph tools/);
          for (const name of FOCUSED)
            assert.match(listed, new RegExp(`  ${name} +${on.includes(name) ? "on " : "off"}`), `${args}: ${name}`);
        }
        // The tools stay registered throughout; only the active set changed.
        assert.deepEqual(
          s.host.registry.map((t) => t.name),
          ["codegraph_explore", ...FOCUSED],
        );
      });

      test("the /codegraph report names the tools on in one line, and is unchanged when none is", async () => {
        const s = await session(makeWorkspace());
        const report = async () => (await s.command("")).message;
        const plain = await report();
        assert.doesNotMatch(plain, /^tools:/m);
        await s.command("tools search node");
        const withTools = await report();
        assert.match(
          withTools,
          /\nparallel: .*\ntools: codegraph_explore, codegraph_node, codegraph_search \(saved for this project by \/codegraph tools\)\n/,
        );
        assert.equal(withTools.replace(/\ntools: .*/, ""), plain, "one line more, nothing else");
        await s.command("tools none");
        assert.equal(await report(), plain);
        const env = await session(makeWorkspace(), { env: { PI_CODEGRAPH_TOOLS: "relations" } });
        assert.match(
          (await env.command("")).message,
          /\ntools: codegraph_explore, codegraph_relations \(set by PI_CODEGRAPH_TOOLS\)\n/,
        );
      });

      test("unknown words are refused and change nothing", async () => {
        const s = await session(makeWorkspace(), { env: { PI_CODEGRAPH_TOOLS: "node" } });
        for (const args of ["tools lots", "tools on nodes", "tools off node banana", "tools all node"]) {
          const note = await s.command(args);
          assert.equal(note.type, "warning", args);
          assert.match(note.message, /^\/codegraph tools: unknown names? /, args);
          assert.deepEqual(s.active(), ["codegraph_explore", "codegraph_node"], args);
        }
        assert.match((await s.command("tools lots")).message, /unknown name "lots"\. Use all, none/);
      });

      test("completion: the choices and names; after on, the names not yet typed; a word typed in full completes to nothing", async () => {
        const s = await session(makeWorkspace());
        const values = (prefix) => s.complete(prefix)?.map((i) => i.value) ?? null;
        assert.deepEqual(values("tools "), [
          "tools all",
          "tools none",
          "tools on",
          "tools off",
          "tools node",
          "tools relations",
          "tools search",
        ]);
        for (const item of s.complete("tools ")) assert.ok(item.description.length > 10, item.value);
        assert.deepEqual(values("tools on n"), ["tools on node"]);
        assert.deepEqual(values("tools o"), ["tools on", "tools off"]);
        assert.deepEqual(values("tools on node "), ["tools on node relations", "tools on node search"]);
        assert.deepEqual(values("tools off r"), ["tools off relations"]);
        assert.equal(values("tools node"), null);
        assert.equal(values("tools all"), null);
        assert.equal(values("tools on node"), null);
        assert.equal(values("tools x"), null);
        assert.equal(values("tools all "), null, "nothing follows all");
      });

      test("the saved choice: a new session in the same project reads it, another project does not", async () => {
        const ws = makeWorkspace();
        const first = await session(ws);
        await first.command("tools relations");
        const files = fs.readdirSync(path.join(process.env.PI_CODING_AGENT_DIR, "pi-codegraph", "tools"));
        assert.ok(files.length >= 1);
        assert.equal(fs.readdirSync(ws).includes(".pi"), false, "the workspace is never written");
        const again = await session(ws);
        assert.deepEqual(again.active(), ["codegraph_explore", "codegraph_relations"]);
        assert.match((await again.command("tools")).message, /^CodeGraph tools \(saved for this project/);
        const other = await session(makeWorkspace());
        assert.deepEqual(other.active(), ["codegraph_explore"]);
        assert.match((await other.command("tools")).message, /^CodeGraph tools \(the default/);
      });

      test("a saved file that is not JSON, or cannot be read: the default, said in the list", async () => {
        for (const spoil of [
          (file) => fs.writeFileSync(file, "{not json"),
          (file) => fs.writeFileSync(file, '{"tools": "all"}'),
          (file) => {
            fs.rmSync(file);
            fs.mkdirSync(file); // a directory where the file should be: EISDIR
          },
        ]) {
          const ws = makeWorkspace();
          const s = await session(ws);
          await s.command("tools all");
          const file = savedFile(process.env.PI_CODING_AGENT_DIR, ws);
          assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).project, ws);
          spoil(file);
          const again = await session(ws);
          assert.deepEqual(again.active(), ["codegraph_explore"]);
          const listed = (await again.command("tools")).message;
          assert.match(listed, /^CodeGraph tools \(the default/);
          assert.match(listed, /\nThe saved choice could not be read \(.+\); the default applies\.\n/);
        }
        // Saving over the directory fails: said, and no temp file is left beside it.
        const ws = makeWorkspace();
        const file = savedFile(process.env.PI_CODING_AGENT_DIR, ws);
        fs.mkdirSync(file, { recursive: true });
        const s = await session(ws);
        const note = await s.command("tools all");
        assert.match(note.message, /\nNot saved \(E\w+\): the choice lasts for this session only\./);
        assert.deepEqual(
          fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith(".tmp")),
          [],
        );
      });

      test("the choice cannot be saved (the agent directory is a file): said, and still applied for the session", async () => {
        const notADir = path.join(tempDir("pi-codegraph-agent-file-"), "agent");
        fs.writeFileSync(notADir, "");
        await withEnv({ PI_CODING_AGENT_DIR: notADir }, async () => {
          const s = await session(makeWorkspace());
          const note = await s.command("tools search");
          assert.equal(note.type, "warning");
          assert.match(note.message, /\nNot saved \(\w+\): the choice lasts for this session only\./);
          assert.doesNotMatch(note.message, /Saved for this project/);
          assert.deepEqual(s.active(), ["codegraph_explore", "codegraph_search"]);
          const listed = (await s.command("tools")).message;
          assert.match(
            listed,
            /^CodeGraph tools \(chosen by \/codegraph tools for this session only: it could not be saved\):/,
          );
          assert.match(listed, / {2}codegraph_search +on /);
          assert.match(
            (await s.command("")).message,
            /\ntools: codegraph_explore, codegraph_search \(chosen by \/codegraph tools for this session only/,
          );
        });
      });

      test("PI_CODEGRAPH_TOOLS: all, none, names short or full; an invalid value is ignored and said; it wins over the saved file", async () => {
        const ws = makeWorkspace();
        await (await session(ws)).command("tools relations"); // saved: relations
        for (const [value, on, source] of [
          ["all", FOCUSED, /set by PI_CODEGRAPH_TOOLS/],
          ["none", [], /set by PI_CODEGRAPH_TOOLS/],
          ["node,search", ["codegraph_node", "codegraph_search"], /set by PI_CODEGRAPH_TOOLS/],
          ["codegraph_node", ["codegraph_node"], /set by PI_CODEGRAPH_TOOLS/],
          [" Node  Relations ", ["codegraph_node", "codegraph_relations"], /set by PI_CODEGRAPH_TOOLS/],
          ["lots", ["codegraph_relations"], /saved for this project/],
          ["", ["codegraph_relations"], /saved for this project/],
        ]) {
          const s = await session(ws, { env: { PI_CODEGRAPH_TOOLS: value } });
          assert.deepEqual(s.active(), ["codegraph_explore", ...on], JSON.stringify(value));
          const listed = (await s.command("tools")).message;
          assert.match(listed, source, value);
          const ignored = `PI_CODEGRAPH_TOOLS=${JSON.stringify(value)} ignored`;
          assert.equal(listed.includes(ignored), on === FOCUSED ? false : value === "lots" || value === "", value);
        }
        // Unset, and in another project: the invalid value names itself against the default too.
        const other = await session(makeWorkspace(), { env: { PI_CODEGRAPH_TOOLS: "lots" } });
        assert.deepEqual(other.active(), ["codegraph_explore"]);
        assert.match(
          (await other.command("tools")).message,
          /PI_CODEGRAPH_TOOLS="lots" ignored: not all, none, or tool names/,
        );
      });

      test("a change while PI_CODEGRAPH_TOOLS is set applies and saves, and says the variable decides at the next start (unless it is ignored)", async () => {
        const ws = makeWorkspace();
        await withEnv({ PI_CODEGRAPH_TOOLS: "all" }, async () => {
          const s = await session(ws);
          const note = await s.command("tools off node");
          assert.deepEqual(s.active(), ["codegraph_explore", "codegraph_relations", "codegraph_search"]);
          assert.match(note.message, /PI_CODEGRAPH_TOOLS is set: it decides again when Pi next starts\./);
        });
        // An ignored value decides nothing: the saved choice does at the next start.
        await withEnv({ PI_CODEGRAPH_TOOLS: "lots" }, async () => {
          const s = await session(ws);
          const note = await s.command("tools node");
          assert.deepEqual(s.active(), ["codegraph_explore", "codegraph_node"]);
          assert.doesNotMatch(note.message, /PI_CODEGRAPH_TOOLS/);
          const next = await session(ws);
          assert.deepEqual(next.active(), ["codegraph_explore", "codegraph_node"]);
        });
      });

      test("a focused tool's name another extension registered first stays theirs: ours is skipped, said in the list", async () => {
        const theirs = (api) =>
          api.registerTool({
            name: "codegraph_node",
            description: "theirs",
            parameters: {},
            execute: async () => ({}),
          });
        const s = await session(makeWorkspace(), {
          others: [[theirs, "other-ext"]],
          env: { PI_CODEGRAPH_TOOLS: "none" },
        });
        assert.equal(s.tool("codegraph_node").source, "other-ext");
        assert.equal(s.tool("codegraph_node").description, "theirs");
        assert.deepEqual(
          s.host.registry.map((t) => `${t.name}@${t.source}`),
          [
            "codegraph_node@other-ext",
            "codegraph_explore@pi-codegraph",
            "codegraph_relations@pi-codegraph",
            "codegraph_search@pi-codegraph",
          ],
        );
        // Ours off does not turn theirs off; ours on does not take it over.
        assert.deepEqual(s.active(), ["codegraph_node", "codegraph_explore"]);
        await s.command("tools all");
        assert.deepEqual(s.active(), [
          "codegraph_node",
          "codegraph_explore",
          "codegraph_relations",
          "codegraph_search",
        ]);
        assert.equal(s.tool("codegraph_node").description, "theirs");
        await s.command("tools none");
        assert.deepEqual(s.active(), ["codegraph_node", "codegraph_explore"]);
        const listed = (await s.command("tools")).message;
        assert.match(listed, /codegraph_node .*\(registered by another extension \(other-ext\): not ours\)/);
        // Explore's guidance does not take their codegraph_node for ours.
        await s.command("tools node");
        assert.match(s.tool("codegraph_explore").promptGuidelines[2], /codegraph_node does not exist here/);
      });

      test("readiness changes re-register the tools with new words, and an inactive tool stays inactive", async () => {
        const ws = makeWorkspace();
        const s = await session(ws, { env: { PI_CODEGRAPH_TOOLS: "node" } });
        const before = s.tool("codegraph_relations");
        assert.deepEqual(before.promptGuidelines.length, 1);
        fs.rmSync(path.join(ws, ".codegraph"), { recursive: true });
        await s.host.beforeAgentStart(s.ctx);
        assert.notEqual(s.tool("codegraph_relations"), before, "registered again");
        for (const name of FOCUSED) {
          assert.match(
            s.tool(name).promptSnippet,
            /^Unavailable in this workspace \(CODEGRAPH_NO_INDEX\), as codegraph_explore is$/,
          );
          assert.deepEqual(s.tool(name).promptGuidelines, []);
        }
        assert.deepEqual(s.active(), ["codegraph_explore", "codegraph_node"], "relations and search stay off");
        fs.cpSync(path.join(makeWorkspace(), ".codegraph"), path.join(ws, ".codegraph"), { recursive: true });
        await s.host.beforeAgentStart(s.ctx);
        assert.equal(s.tool("codegraph_search").promptGuidelines.length, 1);
        assert.deepEqual(s.active(), ["codegraph_explore", "codegraph_node"]);
      });
    });

    describe("what the model reads", () => {
      test("all tools off: explore's description, snippet, guidelines and schema are those of commit 0d259b6", async () => {
        assert.deepEqual(
          Object.fromEntries(Object.keys(golden.limits).map((k) => [k, pkg.limits()[k]])),
          golden.limits,
          "the golden was captured with this backend's limits",
        );
        const ws = makeWorkspace();
        const s = await session(ws);
        const words = (t) => ({
          name: t.name,
          label: t.label,
          description: t.description,
          promptSnippet: t.promptSnippet,
          promptGuidelines: t.promptGuidelines,
          parameters: JSON.parse(JSON.stringify(t.parameters)),
        });
        assert.deepEqual(words(s.tool("codegraph_explore")), golden.cases.ready.tool);
        // Files Pi's own tools edited after the index: the line the old code added.
        fs.utimesSync(path.join(ws, ".codegraph", "codegraph.db"), new Date(1e12), new Date(1e12));
        fs.writeFileSync(path.join(ws, "main.ts"), "export function main() { return 1; }\n");
        await s.host.toolResult({ toolName: "edit", input: { path: "main.ts" } }, s.ctx);
        assert.deepEqual(words(s.tool("codegraph_explore")), golden.cases.readyEdited.tool);
        // Not ready: what the old code said for the same readiness.
        const none = await session(makeWorkspace({ index: false }));
        const tool = words(none.tool("codegraph_explore"));
        const d = golden.cases.noIndex;
        assert.equal(tool.description, d.tool.description);
        assert.deepEqual(tool.parameters, d.tool.parameters);
        assert.match(tool.promptSnippet, /^Unavailable in this workspace \(CODEGRAPH_NO_INDEX\): /);
        assert.equal(none.tool("codegraph_explore").promptGuidelines.length, d.tool.promptGuidelines.length);
        // Turning tools on and off again: byte-identical once more.
        await s.command("tools all");
        await s.command("tools none");
        assert.deepEqual(words(s.tool("codegraph_explore")), golden.cases.readyEdited.tool);
      });

      test("with codegraph_node on, explore's 'does not exist here' line is gone; with only the others on, it stays", async () => {
        const s = await session(makeWorkspace(), { env: { PI_CODEGRAPH_TOOLS: "relations,search" } });
        const g = () => s.tool("codegraph_explore").promptGuidelines;
        assert.deepEqual(g(), golden.cases.ready.tool.promptGuidelines);
        await s.command("tools on node");
        assert.equal(g().length, 3);
        assert.deepEqual(g().slice(0, 2), golden.cases.ready.tool.promptGuidelines.slice(0, 2));
        assert.ok(!g().some((l) => /does not exist here/.test(l)), g()[2]);
        assert.match(g()[2], /where it says codegraph_node, call codegraph_node\.$/);
        assert.equal(s.tool("codegraph_explore").promptSnippet, golden.cases.ready.tool.promptSnippet);
        await s.command("tools off node");
        assert.deepEqual(g(), golden.cases.ready.tool.promptGuidelines);
      });

      test("each focused tool: one snippet and one guideline naming itself, a description with its caps, a schema", async () => {
        const s = await allOn();
        const caps = {
          codegraph_node: "2000 lines or 50KB",
          codegraph_relations: "500 lines or 16KB",
          codegraph_search: "400 lines or 16KB",
        };
        for (const name of FOCUSED) {
          const t = s.tool(name);
          assert.equal(typeof t.promptSnippet, "string");
          assert.ok(t.promptSnippet.length > 20 && !t.promptSnippet.includes("\n"), name);
          assert.equal(t.promptGuidelines.length, 1, name);
          assert.ok(t.promptGuidelines[0].includes(name), name);
          assert.match(
            t.description,
            new RegExp(`Output is truncated to ${caps[name]}; a truncated result names a file`),
          );
          assert.equal(t.parameters.type, "object");
        }
        assert.deepEqual(s.tool("codegraph_relations").parameters.required, ["relation", "symbol"]);
        assert.deepEqual(s.tool("codegraph_relations").parameters.properties.relation.enum, [
          "callers",
          "callees",
          "impact",
        ]);
        assert.deepEqual(s.tool("codegraph_search").parameters.required, ["name"]);
        assert.equal(
          s.tool("codegraph_node").parameters.required,
          undefined,
          "symbol or file: neither alone is required",
        );
      });

      test("peers without pi-ai's StringEnum: the same enum schema (a plain JSON-schema string enum)", async () => {
        const { StringEnum, ...older } = await piPeers();
        const host = createPiHost();
        host.load(
          pkg.createExtension(() => older),
          "older",
        );
        await withEnv({ PI_CODEGRAPH_TOOLS: "all" }, () => host.startSession({ cwd: fake.ws, hasUI: false }));
        const s = await allOn();
        for (const name of ["codegraph_relations", "codegraph_search"]) {
          const mine = host.registry.find((t) => t.name === name);
          assert.ok(mine, `${name} registered`);
          assert.deepEqual(
            JSON.parse(JSON.stringify(mine.parameters)),
            JSON.parse(JSON.stringify(s.tool(name).parameters)),
          );
        }
      });
    });

    describe("rendering", () => {
      test("renderCall shows the subject and the CLI form; an invalid call shows its arguments", async () => {
        const s = await allOn();
        const draw = (name, args) => renderText(s.tool(name).renderCall(args, plainTheme, {}), 160);
        assert.equal(
          draw("codegraph_relations", { relation: "callers", symbol: "charge", limit: 5 }),
          "codegraph_relations callers of charge\n$ codegraph callers --limit=5 -- 'charge'",
        );
        assert.equal(
          draw("codegraph_node", { file: "src/cart.ts", outline: true }),
          "codegraph_node file src/cart.ts\n$ codegraph node --file=src/cart.ts --symbols-only",
        );
        assert.equal(
          draw("codegraph_search", { name: "Cart", kind: "class" }),
          "codegraph_search Cart (class)\n$ codegraph query --kind=class -- 'Cart'",
        );
        assert.equal(
          draw("codegraph_relations", { relation: "impact", symbol: "x", limit: 5 }),
          'codegraph_relations impact of x\narguments: {"relation":"impact","symbol":"x","limit":5}',
        );
      });

      test("the progress row names the command", async () => {
        const s = await allOn();
        const partial = (name, text, details) =>
          renderText(
            s
              .tool(name)
              .renderResult({ content: [{ type: "text", text }], details }, { isPartial: true }, plainTheme, {}),
          );
        const row = partial("codegraph_relations", "a\nb\n", {
          partial: true,
          seenBytes: 4,
          seenLines: 2,
          elapsedMs: 1500,
        });
        assert.match(row, /^Running codegraph relations… 4B, 2 lines, 1\.5s\na\nb$/);
        const search = partial("codegraph_search", "", {});
        assert.equal(search, "Running codegraph search…");
      });
    });
  });
}
