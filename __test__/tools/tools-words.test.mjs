// The focused tools (codegraph_node, codegraph_relations, codegraph_search) at the public seam
// (the session and its helpers: helpers/tools-session.mjs). Each suite runs over the native addon,
// and the Node runner.
// This file: the words the model reads with tools on and off, and the rendering.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, root, withEnv } from "../helpers/index.mjs";
import { createPiHost, piPeers, plainTheme, renderText } from "../helpers/pi-host.mjs";
import { FOCUSED, toolsSessions, useToolsEnv } from "../helpers/tools-session.mjs";

// Explore's words as commit 0d259b6 (before the focused tools) had them, captured from that
// commit's own lib by fixtures/capture-explore-words.mjs.
const golden = JSON.parse(fs.readFileSync(path.join(root, "__test__", "fixtures", "explore-words-0d259b6.json")));

const fake = useToolsEnv();

for (const impl of implementations) {
  describe(impl.name, () => {
    const pkg = impl.module;
    const { session, allOn, execute } = toolsSessions(pkg, fake);
    describe("what the model reads", () => {
      test("all tools off: explore's description, snippet, guidelines and schema are those of commit 0d259b6", async () => {
        assert.deepEqual(
          Object.fromEntries(Object.keys(golden.limits).map((k) => [k, pkg.limits()[k]])),
          golden.limits,
          "the golden was captured with this runner's limits",
        );
        const ws = makeWorkspace();
        const s = await session(ws, { env: { PI_CODEGRAPH_TOOLS: "none" } });
        const words = (t) => ({
          name: t.name,
          label: t.label,
          description: t.description,
          promptSnippet: t.promptSnippet,
          promptGuidelines: t.promptGuidelines,
          parameters: JSON.parse(JSON.stringify(t.parameters)),
        });
        assert.deepEqual(words(s.tool("codegraph_explore")), golden.cases.ready.tool);
        // Files Pi's own tools edited after the index: the old code added a line; nothing the
        // model does changes the words now (the answers about those files say so).
        fs.utimesSync(path.join(ws, ".codegraph", "codegraph.db"), new Date(1e12), new Date(1e12));
        fs.writeFileSync(path.join(ws, "main.ts"), "export function main() { return 1; }\n");
        await s.host.toolResult({ toolName: "edit", input: { path: "main.ts" } }, s.ctx);
        assert.deepEqual(words(s.tool("codegraph_explore")), golden.cases.ready.tool);
        // Not ready: what the old code said for the same readiness.
        const none = await session(makeWorkspace({ index: false }), { env: { PI_CODEGRAPH_TOOLS: "none" } });
        const tool = words(none.tool("codegraph_explore"));
        const d = golden.cases.noIndex;
        assert.equal(tool.description, d.tool.description);
        assert.deepEqual(tool.parameters, d.tool.parameters);
        assert.match(tool.promptSnippet, /^Unavailable in this workspace \(CODEGRAPH_NO_INDEX\): /);
        assert.equal(none.tool("codegraph_explore").promptGuidelines.length, d.tool.promptGuidelines.length);
        // Turning tools on and off again: byte-identical once more.
        await s.command("tools all");
        await s.command("tools none");
        assert.deepEqual(words(s.tool("codegraph_explore")), golden.cases.ready.tool);
      });

      test("with codegraph_node on, explore's 'does not exist here' line is gone; with codegraph_relations on, explore's first line sends what-calls and what-implements to it", async () => {
        const s = await session(makeWorkspace(), { env: { PI_CODEGRAPH_TOOLS: "search" } });
        const g = () => s.tool("codegraph_explore").promptGuidelines;
        const golden3 = golden.cases.ready.tool.promptGuidelines;
        assert.deepEqual(g(), golden3);
        await s.command("tools on node");
        assert.equal(g().length, 3);
        assert.deepEqual(g().slice(0, 2), golden3.slice(0, 2));
        assert.ok(!g().some((l) => /does not exist here/.test(l)), g()[2]);
        assert.match(g()[2], /where it says codegraph_node, call codegraph_node\.$/);
        assert.equal(s.tool("codegraph_explore").promptSnippet, golden.cases.ready.tool.promptSnippet);
        await s.command("tools off node");
        assert.deepEqual(g(), golden3);
        await s.command("tools on relations");
        assert.deepEqual(g().slice(1), golden3.slice(1));
        assert.match(g()[0], /^Use codegraph_explore for architecture questions, naming concrete symbols/);
        assert.match(
          g()[0],
          /for how A reaches B \(a call path\), callers, implementations or a change's impact, codegraph_relations answers/,
        );
        await s.command("tools off relations");
        assert.deepEqual(g(), golden3);
      });

      test("explore's cap follows codegraph_node: 15KB, said and kept, while it is on; 50KB again when it is off", async () => {
        const s = await allOn();
        const answer = async () => {
          const r = await withEnv({ FAKE_CG_MODE: "chars", FAKE_CG_COUNT: "30000", FAKE_CG_CHAR: "a" }, () =>
            execute(s.tool("codegraph_explore"), { request: "q" }, s.ctx),
          );
          return r.content[0].text;
        };
        assert.match(s.tool("codegraph_explore").description, /Output is truncated to 2000 lines or 15KB/);
        const cut = await answer();
        assert.ok(Buffer.byteLength(cut) <= 15 * 1024, `${Buffer.byteLength(cut)} bytes`);
        assert.match(
          cut,
          /\[Output truncated by bytes: showing 1 of 1 lines \(\d+ of 30000 bytes\)\. More output existed: the full output \(30000 bytes\) is in /,
        );
        await s.command("tools off node");
        assert.match(s.tool("codegraph_explore").description, /Output is truncated to 2000 lines or 50KB/);
        assert.equal(await answer(), "a".repeat(30000), "whole under the contract's 50KB");
      });

      test("each focused tool: one snippet and one guideline naming itself, a description with its caps, a schema", async () => {
        const s = await allOn();
        const caps = {
          codegraph_node: "50KB or 2000 lines",
          codegraph_relations: "16KB or 500 lines",
          codegraph_search: "16KB or 400 lines",
        };
        for (const name of FOCUSED) {
          const t = s.tool(name);
          assert.equal(typeof t.promptSnippet, "string");
          assert.ok(t.promptSnippet.length > 20 && !t.promptSnippet.includes("\n"), name);
          assert.equal(t.promptGuidelines.length, 1, name);
          assert.ok(t.promptGuidelines[0].includes(name), name);
          assert.match(t.description, new RegExp(`Cut at ${caps[name]}; the rest is saved to a file\\.$`));
          assert.equal(t.parameters.type, "object");
        }
        assert.deepEqual(s.tool("codegraph_relations").parameters.required, ["relation"]); // symbol, or from and to for path
        assert.deepEqual(s.tool("codegraph_relations").parameters.properties.relation.enum, [
          "callers",
          "callees",
          "impact",
          "path",
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
          // TypeBox's own markers ("~optional") are its bookkeeping, not the schema's words.
          const plain = (schema) => JSON.parse(JSON.stringify(schema, (k, v) => (k.startsWith("~") ? undefined : v)));
          assert.deepEqual(plain(mine.parameters), plain(s.tool(name).parameters));
        }
      });
    });

    describe("rendering", () => {
      test("the call row is its subject; the CLI form and its directory head an answer only, never an error", async () => {
        const s = await allOn();
        const draw = (name, args) => renderText(s.tool(name).renderCall(args, plainTheme, {}), 160);
        assert.equal(
          draw("codegraph_relations", { relation: "callers", symbol: "charge", limit: 5 }),
          "codegraph_relations callers of charge",
        );
        assert.equal(draw("codegraph_node", { file: "src/cart.ts", outline: true }), "codegraph_node file src/cart.ts");
        const answered = (name, args, result = {}) =>
          renderText(
            s
              .tool(name)
              .renderResult(
                { content: [{ type: "text", text: "answer\n" }], details: { keptBytes: 7, ...result } },
                { expanded: false },
                plainTheme,
                { args, cwd: "/w/shop" },
              ),
            160,
          ).split("\n")[0];
        assert.equal(
          answered("codegraph_relations", { relation: "callers", symbol: "charge", limit: 5 }),
          "$ codegraph callers --limit=5 -- 'charge' · in /w/shop",
        );
        assert.equal(
          answered("codegraph_search", { name: "Cart", kind: "class", project: "api" }, { project: { dir: "/w/api" } }),
          "$ codegraph query --kind=class -- 'Cart' · in /w/api",
          "in the project's directory, where it ran",
        );
        // A call refused before any command ran (here: an argument the runner refuses).
        const refused = renderText(
          s
            .tool("codegraph_relations")
            .renderResult(
              { content: [{ type: "text", text: "CODEGRAPH_INVALID_REQUEST: limit" }] },
              { expanded: false },
              plainTheme,
              { args: { relation: "callers", symbol: "x", limit: 0 }, cwd: "/w/shop", isError: true },
            ),
        );
        assert.doesNotMatch(refused, /\$ codegraph/);
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
