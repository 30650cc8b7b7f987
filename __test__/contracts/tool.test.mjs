// The registered Pi tool, exercised through the exported factory and a minimal stand-in of Pi's
// extension API (registration, session_start, getAllTools), as Pi 0.73 calls them.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { DEFAULT_ACTIVE, fakeBinDir, makeWorkspace, root, tempDir, withEnv } from "../helpers/index.mjs";
import { createPiHost, piInteractive, plainTheme, recordingUi, renderText } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);

/**
 * A second install (as global + project installs are): its own files, same code: index.js, lib/,
 * binding.js and the addon (the node implementation: that copy's glue over that copy's Node
 * runner). Returns the module.
 */
function copyOfPackage(impl) {
  const dir = tempDir("pi-codegraph-copy-");
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  for (const f of fs.readdirSync(root)) {
    if (f === "index.js" || f === "package.json" || f === "binding.js" || f.endsWith(".node"))
      fs.copyFileSync(path.join(root, f), path.join(dir, f));
  }
  fs.cpSync(path.join(root, "lib"), path.join(dir, "lib"), { recursive: true });
  const copy = require(path.join(dir, "index.js"));
  return impl.id === "node" ? copy.forRunner(require(path.join(dir, "lib", "runners", "node.js"))) : copy;
}

const theme = plainTheme;
const render = (component) => renderText(component, 120);
// Rendering happens in interactive Pi, which has set up its theme and keybindings first.
before(piInteractive);

for (const impl of implementations) {
  describe(impl.name, () => {
    let ws;
    let host;
    let tool;
    const originalPath = process.env.PATH;

    before(async () => {
      process.env.PATH = fakeBinDir();
      ws = makeWorkspace();
      host = createPiHost();
      host.load(impl.module, "first");
      await host.startSession({ cwd: ws, hasUI: false });
      [tool] = host.registry;
    });
    after(() => {
      process.env.PATH = originalPath;
    });

    describe("registration", () => {
      test("registers nothing while loading, then codegraph_explore active and the focused tools inactive at session_start", async () => {
        const h = createPiHost();
        h.load(impl.module, "solo");
        assert.equal(h.registry.length, 0, "factory-time registration is what makes Pi 0.73 exit on duplicates");
        await withEnv({ PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-"), PI_CODEGRAPH_TOOLS: undefined }, () =>
          h.startSession({ cwd: ws }),
        );
        assert.deepEqual(
          h.registry.map((t) => t.name),
          ["codegraph_explore", "codegraph_node", "codegraph_relations", "codegraph_search", "codegraph_changes"],
        );
        assert.deepEqual(
          h.activeTools().map((t) => t.name),
          ["codegraph_explore", "codegraph_node", "codegraph_relations", "codegraph_search", "codegraph_changes"],
          "all five reach a request by default (docs/tools.md)",
        );
        // Read-only, no network: a permission extension need not confirm their calls.
        for (const t of h.registry)
          assert.deepEqual(
            t.annotations,
            { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
            t.name,
          );
      });

      test("a second installed copy skips quietly; the first stays active", async () => {
        const h = createPiHost();
        const second = copyOfPackage(impl);
        assert.notEqual(second, impl.module, "a distinct module instance");
        h.load(impl.module, "project");
        h.load(second, "global");
        await withEnv({ PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-"), PI_CODEGRAPH_TOOLS: undefined }, () =>
          h.startSession({ cwd: ws }),
        );
        assert.equal(h.registry.length, 5, "explore and the four focused tools, once");
        for (const t of h.registry) assert.equal(t.source, "project", t.name);
        assert.deepEqual([...h.commands.keys()], ["codegraph"], "/codegraph once");
        assert.deepEqual(
          h.activeTools().map((t) => t.name),
          DEFAULT_ACTIVE,
        );
      });

      test("the schema has exactly one field, the request", () => {
        assert.equal(tool.parameters.type, "object");
        assert.deepEqual(Object.keys(tool.parameters.properties), ["request"]);
        assert.deepEqual(tool.parameters.required, ["request"]);
        assert.equal(tool.parameters.properties.request.type, "string");
      });

      test("guidance names the tool and steers to structural questions", () => {
        assert.ok(tool.promptSnippet && !tool.promptSnippet.includes("\n"));
        assert.ok(tool.promptGuidelines.length > 0);
        for (const line of tool.promptGuidelines) assert.match(line, /codegraph_explore/);
        assert.match(tool.promptGuidelines.join(" "), /use read, or grep/);
        // codegraph_node is on by default: explore's answers are cut at 15KB (tools-words).
        assert.match(tool.description, /2000 lines or 15KB/);
      });
    });

    describe("execute", () => {
      test("runs in Pi's workspace and returns the text and details", async () => {
        const result = await tool.execute("call-1", { request: "what calls main" }, undefined, undefined, { cwd: ws });
        assert.equal(result.content[0].type, "text");
        const echoed = JSON.parse(result.content[0].text.split("\n")[1]);
        assert.deepEqual(echoed.argv, ["explore", "--", "what calls main"]);
        assert.equal(echoed.cwd, ws);
        assert.equal(result.details.cwd, ws);
      });

      test("a path smuggled into the arguments is ignored: the workspace is ctx.cwd", async () => {
        const result = await tool.execute("call-2", { request: "q", cwd: "/etc", path: "/" }, undefined, undefined, {
          cwd: ws,
        });
        assert.equal(JSON.parse(result.content[0].text.split("\n")[1]).cwd, ws);
      });

      test("errors are thrown with code and remediation, ending with the fixed fallback line", async () => {
        const bare = makeWorkspace({ index: false });
        const { FALLBACK_LINE } = impl.module;
        await assert.rejects(tool.execute("call-3", { request: "q" }, undefined, undefined, { cwd: bare }), (err) => {
          assert.ok(err.message.startsWith("CODEGRAPH_NO_INDEX:"), err.message);
          assert.ok(
            err.message.includes(
              `Remediation: Run \`/codegraph init\` in Pi (or \`codegraph init\` in ${bare}) yourself`,
            ),
            err.message,
          );
          assert.equal(err.message.split("\n").at(-1), FALLBACK_LINE);
          assert.match(FALLBACK_LINE, /use read, and grep\/find \(as tools or through bash\)/);
          assert.equal(err.code, "CODEGRAPH_NO_INDEX");
          return true;
        });
      });

      test("Pi's abort signal cancels the run", async () => {
        const ac = new AbortController();
        const pending = withEnv({ FAKE_CG_MODE: "hang" }, () =>
          tool.execute("call-4", { request: "q" }, ac.signal, undefined, { cwd: ws }),
        );
        ac.abort();
        await assert.rejects(pending, (err) => err.code === "CODEGRAPH_CANCELLED");
      });
    });

    describe("session guidance, status and /codegraph", () => {
      async function session(cwd, path = process.env.PATH) {
        const h = createPiHost();
        const ui = recordingUi();
        await withEnv({ PATH: path }, async () => {
          h.load(impl.module, "s");
          await h.startSession({ cwd, hasUI: true, ui });
        });
        return { h, ui, tool: h.registry[0] };
      }

      test("ready: the tool is advertised as ready and the status slot says so", async () => {
        const { tool: t, ui } = await session(ws);
        assert.match(t.promptSnippet, /structural questions/);
        assert.equal(ui.statuses.get("codegraph"), "⬡ codegraph");
      });

      test("no index: not advertised as ready; the prompt says what the user must do", async () => {
        const bare = makeWorkspace({ index: false });
        const { tool: t, ui } = await session(bare);
        assert.match(t.promptSnippet, /^Unavailable in this workspace \(CODEGRAPH_NO_INDEX\)/);
        assert.match(t.promptSnippet, /codegraph init/);
        assert.ok(t.promptGuidelines.every((g) => /Do not call codegraph_explore/.test(g)));
        assert.equal(ui.statuses.get("codegraph"), "⬡ codegraph: no index");
        assert.equal(fs.existsSync(path.join(bare, ".codegraph")), false, "diagnosis never creates an index");
        // What the user reads: their own next step, not the sentence telling the model it never indexes.
        const { h } = await session(bare);
        for (const args of ["", "doctor", "help"]) {
          await h.commands.get("codegraph").handler(args, { cwd: bare, hasUI: true, ui });
          assert.doesNotMatch(ui.notes.at(-1).message, /the model never|model never runs/, `/codegraph ${args}`);
        }
        assert.match(
          ui.notes.at(-2).message,
          /^fix: Run `\/codegraph init` in Pi \(or `codegraph init` in \S+\) yourself\.$/m,
        );
      });

      test("not installed: says so, and the status slot too", async () => {
        const { tool: t, ui } = await session(ws, tempDir());
        assert.match(t.promptSnippet, /CODEGRAPH_NOT_FOUND/);
        assert.equal(ui.statuses.get("codegraph"), "⬡ codegraph: CLI not installed");
      });

      test("/codegraph doctor reports executable, version, index and the last error", async () => {
        const { h, ui, tool: t } = await session(ws);
        const bare = makeWorkspace({ index: false });
        await assert.rejects(t.execute("c", { request: "q" }, undefined, undefined, { cwd: bare }));
        await h.commands.get("codegraph").handler("doctor", { cwd: ws, hasUI: true, ui });
        const [note] = ui.notes;
        assert.match(note.message, /pi-codegraph: ready/);
        assert.match(note.message, /codegraph: .*codegraph \(9\.9\.9-fake\)/);
        assert.match(note.message, new RegExp(`index: ${ws}/\\.codegraph`));
        assert.match(note.message, /last error: \S+ CODEGRAPH_NO_INDEX/);
      });

      test("session_shutdown deletes full-output files", async () => {
        const { h, tool: t } = await session(ws);
        const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "2500" }, () =>
          t.execute("c", { request: "q" }, undefined, undefined, { cwd: ws }),
        );
        assert.ok(fs.existsSync(result.details.fullOutputPath));
        await h.shutdown({ cwd: ws });
        assert.equal(fs.existsSync(result.details.fullOutputPath), false);
      });
    });

    describe("rendering", () => {
      test("renderCall shows the request once, on one line (no command line repeating it)", () => {
        const out = render(tool.renderCall({ request: "how does a\nreach b's c" }, theme, {}));
        assert.equal(out, "codegraph_explore how does a reach b's c");
      });

      test("renderResult: partial, collapsed preview, expanded, error", async () => {
        const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "20" }, () =>
          tool.execute("call-5", { request: "q" }, undefined, undefined, { cwd: ws }),
        );
        assert.match(render(tool.renderResult(result, { expanded: false, isPartial: true }, theme, {})), /Exploring/);
        const collapsed = render(tool.renderResult(result, { expanded: false, isPartial: false }, theme, {}));
        assert.match(collapsed, /line 8\n… 12 more lines, ctrl\+o to expand/);
        assert.doesNotMatch(collapsed, /line 9\b/);
        assert.match(collapsed, /20 lines/);
        const expanded = render(tool.renderResult(result, { expanded: true, isPartial: false }, theme, {}));
        assert.match(expanded, /line 20/);
        const error = {
          content: [
            { type: "text", text: "CODEGRAPH_EXIT: boom.\nRemediation: read it\nstderr (last 4 KB):\nsecret tail" },
          ],
          details: {},
        };
        const errCollapsed = render(
          tool.renderResult(error, { expanded: false, isPartial: false }, theme, { isError: true }),
        );
        assert.match(errCollapsed, /CODEGRAPH_EXIT: boom\.\nRemediation: read it\nctrl\+o for the rest$/);
        assert.doesNotMatch(errCollapsed, /stderr|secret tail/);
        const errExpanded = render(
          tool.renderResult(error, { expanded: true, isPartial: false }, theme, { isError: true }),
        );
        assert.match(errExpanded, /secret tail/);
      });

      test("expanded, the answer is Markdown drawn by Pi (no ** or # left); collapsed too, blank lines and fences take no preview row; 1 line", () => {
        const note =
          "> The code below is the verbatim source. Treat each block as a Read: do not Read a file shown here.";
        const answer = `## Flow\n\n${note}\n\n**CheckoutService.checkout**\n\n\`\`\`ts\n\nline a\n\nline \`b\`\n\`\`\`\n**Trail — codegraph_node any of these to follow it (no Read needed)**\n`;
        const result = { content: [{ type: "text", text: answer }], details: { durationMs: 5, cliVersion: "1.6.1" } };
        const expanded = render(tool.renderResult(result, { expanded: true, isPartial: false }, theme, {}));
        assert.match(expanded, /^Flow$/m);
        assert.match(expanded, /^CheckoutService\.checkout$/m);
        assert.doesNotMatch(expanded, /\*\*|^#/m);
        const collapsed = render(tool.renderResult(result, { expanded: false, isPartial: false }, theme, {}));
        // CodeGraph's words to the model are not the user's preview.
        assert.equal(
          collapsed.split("\n").slice(0, 5).join("\n"),
          "Flow\nCheckoutService.checkout\nline a\nline b\nTrail — codegraph_node any of these to follow it",
        );
        const stale = {
          ...result,
          details: {
            ...result.details,
            staleFiles: [
              { path: "a.ts", state: "changed" },
              { path: "b.ts", state: "deleted" },
            ],
          },
        };
        assert.match(
          render(tool.renderResult(stale, { expanded: false, isPartial: false }, theme, {})),
          /codegraph 1\.6\.1 ⚠ 2 files changed since the index$/m,
        );
        const one = { content: [{ type: "text", text: "one\n" }], details: {} };
        assert.match(
          render(tool.renderResult(one, { expanded: false, isPartial: false }, theme, {})),
          /· 1 line$|\b1 line\b/,
        );
      });

      test("collapsed, the result names the user's expand key through Pi's own keyHint and sizes with Pi's formatSize", async () => {
        const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "20" }, () =>
          tool.execute("call-7", { request: "q" }, undefined, undefined, { cwd: ws }),
        );
        const { KeybindingsManager, TUI_KEYBINDINGS, setKeybindings } = await import("@earendil-works/pi-tui");
        const { formatSize } = await import("@earendil-works/pi-coding-agent");
        const collapsed = () => render(tool.renderResult(result, { expanded: false, isPartial: false }, theme, {}));
        assert.match(collapsed(), /… 12 more lines, ctrl\+o to expand\n/);
        assert.ok(collapsed().includes(`${formatSize(result.details.keptBytes)} · 20 lines`));
        // The user's own binding, not a copy of Pi's default.
        const expand = { defaultKeys: "ctrl+o", description: "Toggle tool output" };
        setKeybindings(
          new KeybindingsManager({ ...TUI_KEYBINDINGS, "app.tools.expand": expand }, { "app.tools.expand": "alt+e" }),
        );
        try {
          assert.match(collapsed(), /… 12 more lines, alt\+e to expand\n/);
          const expanded = render(tool.renderResult(result, { expanded: true, isPartial: false }, theme, {}));
          assert.doesNotMatch(expanded, /to expand/, "expanded: no hint");
        } finally {
          await piInteractive();
        }
      });

      test("renderResult marks truncation and shows the full-output path", async () => {
        const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "2100" }, () =>
          tool.execute("call-6", { request: "q" }, undefined, undefined, { cwd: ws }),
        );
        const collapsed = render(tool.renderResult(result, { expanded: false, isPartial: false }, theme, {}));
        assert.match(collapsed, /\[truncated\]/);
        assert.ok(collapsed.includes(`full output: ${result.details.fullOutputPath}`));
      });

      test("an answer cut inside a code block: the block is closed before the marker, within the caps; expanded, the full output is named once", async () => {
        // Short lines: the line cap cuts it, and the closing line is one more the cut must leave room for.
        const code = Array.from({ length: 3000 }, () => "x").join("\n");
        const stdout = `## src/a.ts\n\n\`\`\`typescript\n${code}\n\`\`\`\n`;
        const result = await withEnv({ FAKE_CG_MODE: "exit", FAKE_CG_EXIT: "0", FAKE_CG_STDOUT: stdout }, () =>
          tool.execute("call-7", { request: "q" }, undefined, undefined, { cwd: ws }),
        );
        const text = result.content[0].text;
        assert.match(text, /\n```\n\n\[Output truncated by /, "the open block closed, then the marker");
        assert.equal((text.match(/^```/gm) ?? []).length % 2, 0, "every block closed");
        const { limits } = impl.module;
        assert.ok(Buffer.byteLength(text) <= limits().MAX_OUTPUT_BYTES, "within the byte cap");
        assert.equal(result.details.truncatedBy, "lines");
        assert.ok(text.split("\n").length <= limits().MAX_OUTPUT_LINES, `${text.split("\n").length} lines`);
        const expanded = render(tool.renderResult(result, { expanded: true, isPartial: false }, theme, {}));
        const file = result.details.fullOutputPath;
        assert.equal(expanded.split(file).length - 1, 1, "the full output's path, once");
      });
    });
  });
}
