// The focused tools (codegraph_node, codegraph_relations, codegraph_search) at the public seam
// (the session and its helpers: helpers/tools-session.mjs). Each suite runs over the native addon,
// and the Node runner.
// This file: `/codegraph tools` (the choice, its sources, the saved file, the completion).
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { DEFAULT_ACTIVE, makeWorkspace, tempDir, withEnv } from "../helpers/index.mjs";
import { ALL, FOCUSED, toolsSessions, useToolsEnv } from "../helpers/tools-session.mjs";

const require = createRequire(import.meta.url);
// Where the choice for a project is saved (Pi's agent directory, a file named by the project's path).
const { savedFile } = require("../../lib/pi/tools/choice.js");

const fake = useToolsEnv();

for (const impl of implementations) {
  describe(impl.name, () => {
    const pkg = impl.module;
    const { session } = toolsSessions(pkg, fake);
    describe("/codegraph tools", () => {
      test("the list by default: every tool on (explore always), each with its line and cost; the source", async () => {
        const s = await session(makeWorkspace());
        assert.deepEqual(s.active(), DEFAULT_ACTIVE);
        const note = await s.command("tools");
        assert.equal(note.type, "info");
        const lines = note.message.split("\n");
        assert.equal(lines[0], "CodeGraph tools (the default: explore, node, relations, search and changes):");
        assert.match(lines[1], /^ {2}codegraph_explore +on \(always\) /);
        for (const [i, name] of DEFAULT_ACTIVE.slice(1).entries()) {
          assert.match(lines[2 + i], new RegExp(`^  ${name} +on +≈ \\d+ tokens +\\S`));
          assert.ok(lines[2 + i].length <= 160, `fits 160 columns: ${lines[2 + i]}`);
        }
        assert.match(note.message, /Change: \/codegraph tools all \| none/);
        assert.equal((await s.command("tools list")).message, note.message);
      });

      test("all, none, on/off with and without names, exact names: Pi's active set follows, the file saves it", async () => {
        const ws = makeWorkspace();
        const s = await session(ws);
        const steps = [
          ["all", ALL],
          ["none", []],
          ["on node", ["codegraph_node"]],
          ["on search codegraph_relations", FOCUSED],
          ["off relations", ["codegraph_node", "codegraph_search"]],
          ["off", []],
          ["on", ALL],
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
            new RegExp(
              `^CodeGraph tools on from the next request: ${now}\\.\\nSaved for this project \\(${ws}\\) in your Pi settings, not in the repository\\.`,
            ),
          );
          const listed = (await s.command("tools")).message;
          assert.match(listed, /saved for this project by \/codegraph tools/);
          for (const name of ALL)
            assert.match(listed, new RegExp(`  ${name} +${on.includes(name) ? "on " : "off"}`), `${args}: ${name}`);
        }
        // The tools stay registered throughout; only the active set changed.
        assert.deepEqual(
          s.host.registry.map((t) => t.name),
          ["codegraph_explore", ...ALL],
        );
      });

      test("the /codegraph report names the tools on in one line once someone chose them; the default adds none", async () => {
        const s = await session(makeWorkspace());
        const report = async () => (await s.command("doctor")).message;
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
        const none = await report();
        assert.match(none, /\ntools: codegraph_explore only \(saved for this project by \/codegraph tools\)\n/);
        assert.equal(none.replace(/\ntools: .*/, ""), plain);
        const env = await session(makeWorkspace(), { env: { PI_CODEGRAPH_TOOLS: "relations" } });
        assert.match(
          (await env.command("doctor")).message,
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
          "tools changes",
        ]);
        for (const item of s.complete("tools ")) assert.ok(item.description.length > 10, item.value);
        assert.deepEqual(values("tools on n"), ["tools on node"]);
        assert.deepEqual(values("tools o"), ["tools on", "tools off"]);
        assert.deepEqual(values("tools on node "), [
          "tools on node relations",
          "tools on node search",
          "tools on node changes",
        ]);
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
        assert.deepEqual(other.active(), DEFAULT_ACTIVE);
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
          await s.command("tools none");
          const file = savedFile(process.env.PI_CODING_AGENT_DIR, ws);
          assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).project, ws);
          spoil(file);
          const again = await session(ws);
          assert.deepEqual(again.active(), DEFAULT_ACTIVE);
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
            (await s.command("doctor")).message,
            /\ntools: codegraph_explore, codegraph_search \(chosen by \/codegraph tools for this session only/,
          );
        });
      });

      test("PI_CODEGRAPH_TOOLS: all, none, names short or full; an invalid value is ignored and said; it wins over the saved file", async () => {
        const ws = makeWorkspace();
        await (await session(ws)).command("tools relations"); // saved: relations
        for (const [value, on, source] of [
          ["all", ALL, /set by PI_CODEGRAPH_TOOLS/],
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
          assert.equal(listed.includes(ignored), on === ALL ? false : value === "lots" || value === "", value);
        }
        // Unset, and in another project: the invalid value names itself against the default too.
        const other = await session(makeWorkspace(), { env: { PI_CODEGRAPH_TOOLS: "lots" } });
        assert.deepEqual(other.active(), DEFAULT_ACTIVE);
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
          assert.deepEqual(s.active(), [
            "codegraph_explore",
            "codegraph_relations",
            "codegraph_search",
            "codegraph_changes",
          ]);
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
            "codegraph_changes@pi-codegraph",
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
          "codegraph_changes",
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
  });
}
