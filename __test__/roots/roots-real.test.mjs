// Several roots on the real, pinned CodeGraph CLI: a monorepo built at test time (helpers/monorepo.mjs:
// a package.json at the root, `packages/shop` and `packages/other` each indexed on its own, no
// index at the root), through the registered tools (all of them on) and `/codegraph status
// <label>`, on each runner. Each label answers from its own index and only from it; an answer
// begins with the line saying how its paths become the workspace's, and every `path:line` it cites,
// prefixed so, is that line of a file in the workspace (what Pi's `read` opens); the stale-files
// line follows the root's own index. The CLI runs behind a recording wrapper on PATH.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { recordingCli, rejectsWith, root, tempDir, withEnv } from "../helpers/index.mjs";
import { buildMonorepo, citations, OTHER_SYMBOLS, SHOP_SYMBOLS } from "../helpers/monorepo.mjs";
import { hostWith, recordingUi, runCommand } from "../helpers/pi-host.mjs";

const realCli = path.join(root, "node_modules", ".bin", "codegraph");
const cliMissing = fs.existsSync(realCli) ? false : "the pinned CodeGraph CLI is not installed";
const LABELS = ["packages/shop", "packages/other"];
/** The line an answer from `label` (a root inside the workspace) begins with. */
const pathLine = (label) =>
  `Project ${label} (${label}/): its paths are relative to that directory; for read, prefix them with ${label}/.`;
const TOOLS = ["codegraph_changes", "codegraph_explore", "codegraph_node", "codegraph_relations", "codegraph_search"];

let scratch;
let wrapperDir;
let log;

before(() => {
  if (cliMissing) return;
  scratch = tempDir("pi-codegraph-roots-real-");
  fs.mkdirSync(path.join(scratch, "home"));
  wrapperDir = path.join(scratch, "bin");
  log = path.join(scratch, "starts.log");
  recordingCli(wrapperDir, log, realCli);
});
after(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** Every start of the CLI, as the argument line the wrapper logged. */
const starts = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : []);

/** The environment of every call: the wrapper first, a temp agent dir and HOME, every tool on. */
const env = (fn) =>
  withEnv(
    {
      PATH: [wrapperDir, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
      DO_NOT_TRACK: "1",
      PI_CODEGRAPH_BIN: undefined,
      PI_CODEGRAPH_TOOLS: "all",
      PI_CODING_AGENT_DIR: path.join(scratch, "agent"),
      HOME: path.join(scratch, "home"),
    },
    fn,
  );

/**
 * Asserts `text` (an answer from `label`) begins with its path line and that every `path:line` it
 * cites is, under that prefix, a line of a file in the workspace `ws`; returns the citations.
 */
function assertReadable(text, label, ws) {
  const [first] = text.split("\n");
  assert.equal(first, pathLine(label));
  const prefix = /prefix them with (\S+)\.$/.exec(first)[1];
  const cited = citations(text);
  for (const { file, line } of cited) {
    const full = path.join(ws, prefix + file);
    assert.ok(fs.existsSync(full), `${prefix}${file} (cited as ${file}:${line}) is a file in the workspace`);
    const lines = fs.readFileSync(full, "utf8").split("\n").length;
    assert.ok(line >= 1 && line <= lines, `${file}:${line} is within its ${lines} lines`);
  }
  return cited;
}

/** The line `line` (1-based) of `file` in the root `label` of `ws`. */
const lineOf = (ws, label, file, line) => fs.readFileSync(path.join(ws, label, file), "utf8").split("\n")[line - 1];

for (const impl of implementations) {
  describe(`${impl.name}: two indexed projects below the workspace, on the real CodeGraph CLI`, {
    skip: cliMissing,
    timeout: 180000,
  }, () => {
    let ws;
    let host;
    let ctx;
    let tools;
    async function call(name, params) {
      const tool = tools.find((t) => t.name === name);
      assert.ok(tool, `${name} is active`);
      const r = await env(() => tool.execute("call-1", params, undefined, undefined, ctx));
      return { text: r.content.map((c) => c.text).join(""), details: r.details };
    }

    before(async () => {
      ({ ws } = buildMonorepo(path.join(scratch, `mono-${impl.id}`)));
      assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false, "no index at the workspace's root");
      await env(async () => {
        host = await hostWith(impl.module);
        ctx = { cwd: ws, hasUI: true, ui: recordingUi() };
        await host.startSession(ctx);
        await host.beforeAgentStart(ctx);
        tools = host.activeTools();
      });
    });

    test("every tool takes `project`: exactly the two labels, required (the workspace has no index of its own)", () => {
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
      for (const t of tools) {
        const project = t.parameters.properties.project;
        assert.ok(project, `${t.name} has project`);
        assert.equal(project.type, "string", t.name);
        assert.deepEqual([...project.enum].sort(), [...LABELS].sort(), t.name);
        assert.ok(t.parameters.required.includes("project"), `${t.name}: project is required`);
      }
      assert.equal(ctx.ui.statuses.get("codegraph"), "⬡ codegraph · 2 projects");
    });

    test("a call without project is refused before any process starts", async () => {
      const n = starts().length;
      const err = await rejectsWith(
        env(() =>
          tools
            .find((t) => t.name === "codegraph_explore")
            .execute("call-1", { request: "how does checkout reach charge" }, undefined, undefined, ctx),
        ),
        "CODEGRAPH_INVALID_REQUEST",
      );
      assert.equal(err.details.argument, "project");
      assert.equal(starts().length, n, "no CodeGraph process");
    });

    test("explore: each label answers from its own index, after its path line", async () => {
      const shop = await call("codegraph_explore", {
        project: "packages/shop",
        request: "how does checkout reach charge",
      });
      assert.ok(shop.text.startsWith(`${pathLine("packages/shop")}\n`), shop.text.slice(0, 300));
      assert.match(shop.text, /CheckoutService/);
      assert.match(shop.text, /src\/checkout\.ts/);
      for (const s of OTHER_SYMBOLS)
        assert.doesNotMatch(shop.text, new RegExp(`\\b${s}\\b`), `no ${s} in the shop's answer`);
      assert.deepEqual(shop.details.project, { label: "packages/shop", dir: path.join(ws, "packages", "shop") });
      const shopCited = assertReadable(shop.text, "packages/shop", ws);
      assert.ok(shopCited.length > 0, "the shop's answer cites file:line");

      const other = await call("codegraph_explore", {
        project: "packages/other",
        request: "how does reconcileAccounts reach balanceOf",
      });
      assert.ok(other.text.startsWith(`${pathLine("packages/other")}\n`), other.text.slice(0, 300));
      assert.match(other.text, /reconcileAccounts/);
      assert.match(other.text, /`balanceOf` \(src\/ledger\.ts:13\)/);
      for (const s of SHOP_SYMBOLS)
        assert.doesNotMatch(other.text, new RegExp(`\\b${s}\\b`), `no ${s} in the other's answer`);
      assert.deepEqual(other.details.project, { label: "packages/other", dir: path.join(ws, "packages", "other") });
      assertReadable(other.text, "packages/other", ws);

      // The same question of the other project finds none of the shop's code.
      const crossed = await call("codegraph_explore", {
        project: "packages/other",
        request: "how does checkout reach charge",
      });
      assert.ok(crossed.text.startsWith(`${pathLine("packages/other")}\n`));
      for (const s of SHOP_SYMBOLS) assert.doesNotMatch(crossed.text, new RegExp(`\\b${s}\\b`), `no ${s}`);
      assertReadable(crossed.text, "packages/other", ws);
    });

    test("search: a name is found in its own project only", async () => {
      const inShop = await call("codegraph_search", { project: "packages/shop", name: "calculateTotal" });
      assert.match(inShop.text, /calculateTotal\n\s+src\/cart\.ts:\d+/);
      assertReadable(inShop.text, "packages/shop", ws);
      const notInOther = await call("codegraph_search", { project: "packages/other", name: "calculateTotal" });
      assert.ok(notInOther.text.startsWith(`${pathLine("packages/other")}\n`));
      assert.match(notInOther.text, /No results found for "calculateTotal"/);

      const inOther = await call("codegraph_search", { project: "packages/other", name: "settleInvoice" });
      const [hit] = assertReadable(inOther.text, "packages/other", ws);
      assert.deepEqual(hit, { file: "src/checkout.ts", line: 3 });
      assert.match(lineOf(ws, "packages/other", hit.file, hit.line), /function settleInvoice/);
      const notInShop = await call("codegraph_search", { project: "packages/shop", name: "settleInvoice" });
      assert.match(notInShop.text, /No results found for "settleInvoice"/);
    });

    test("relations: callers per label; each cited line is the caller's line in that project", async () => {
      const other = await call("codegraph_relations", {
        project: "packages/other",
        relation: "callers",
        symbol: "balanceOf",
      });
      assert.match(other.text, /reconcileAccounts/);
      assert.match(other.text, /settleInvoice/);
      const cited = assertReadable(other.text, "packages/other", ws);
      for (const c of cited.filter((c) => c.file !== "src/ledger.ts"))
        assert.match(lineOf(ws, "packages/other", c.file, c.line), /balanceOf|function/, `${c.file}:${c.line}`);
      const shop = await call("codegraph_relations", {
        project: "packages/shop",
        relation: "callers",
        symbol: "balanceOf",
      });
      assert.ok(shop.text.startsWith(`${pathLine("packages/shop")}\n`));
      assert.match(shop.text, /"balanceOf" not found/);

      const charge = await call("codegraph_relations", {
        project: "packages/shop",
        relation: "callers",
        symbol: "charge",
        file: "src/types.ts",
      });
      assert.match(charge.text, /checkout\n\s+src\/checkout\.ts:7/);
      assertReadable(charge.text, "packages/shop", ws);
      assert.match(lineOf(ws, "packages/shop", "src/checkout.ts", 7), /checkout\(items/);
    });

    test("node: the same relative path is each project's own file", async () => {
      const shop = await call("codegraph_node", { project: "packages/shop", file: "src/checkout.ts", outline: true });
      assert.match(shop.text, /`CheckoutService` \(class\)/);
      assert.doesNotMatch(shop.text, /settleInvoice/);
      assertReadable(shop.text, "packages/shop", ws);
      const other = await call("codegraph_node", { project: "packages/other", file: "src/checkout.ts", outline: true });
      assert.match(other.text, /`settleInvoice` \(function\)/);
      assert.doesNotMatch(other.text, /CheckoutService/);
      assertReadable(other.text, "packages/other", ws);
      const symbol = await call("codegraph_node", { project: "packages/other", symbol: "postEntry" });
      assert.match(symbol.text, /\*\*Location:\*\* src\/ledger\.ts:9/);
      assertReadable(symbol.text, "packages/other", ws);
      assert.match(lineOf(ws, "packages/other", "src/ledger.ts", 9), /postEntry\(entry: Entry\)/);
    });

    test("/codegraph status packages/other: that index's report, headed by its project", async () => {
      const before = ctx.ui.notes.length;
      await env(() => runCommand(host, ctx, "codegraph", "status packages/other"));
      const notes = ctx.ui.notes.slice(before);
      assert.equal(notes.length, 1, JSON.stringify(notes));
      const [head, title, ...rest] = notes[0].message.split("\n");
      const other = path.join(ws, "packages", "other");
      assert.equal(head, `Project packages/other (${other}):`);
      assert.equal(title, `CodeGraph index of ${other}`);
      const report = rest.join("\n");
      assert.match(report, /^size: 3 files, \d+ nodes, \d+ edges; database /m, "the other's 3 files, not the shop's 7");
      assert.match(report, /pending changes: none/);
      assert.ok(starts().includes("status --json"), "CodeGraph's status ran");
    });

    // Last: it edits the shop after its index was written, and syncs it.
    test("the stale-files line and `/codegraph sync <label>` follow each root's own index", async () => {
      const params = (project) => ({ project, file: "src/checkout.ts", outline: true });
      const fresh = await call("codegraph_node", params("packages/shop"));
      assert.doesNotMatch(fresh.text, /changed after the CodeGraph index/);
      const file = path.join(ws, "packages", "shop", "src", "checkout.ts");
      // Edited after the index, as a user edits (no date set: a modification time in the future
      // is no later write, and the change time is the clock's).
      fs.appendFileSync(file, "\n// edited later\n");
      const staleLine = /⚠ 1 file named above changed after the CodeGraph index was last written \(src\/checkout\.ts\)/;

      const shop = await call("codegraph_node", params("packages/shop"));
      assert.ok(shop.text.startsWith(`${pathLine("packages/shop")}\n`));
      assert.match(shop.text, staleLine);
      assert.deepEqual(shop.details.staleFiles, [{ path: "src/checkout.ts", state: "changed" }]);
      // Explore's answer: CodeGraph flags the file itself (then our line does not repeat it).
      const explore = await call("codegraph_explore", {
        project: "packages/shop",
        request: "how does checkout reach charge",
      });
      assert.match(explore.text, /⚠ Changed on disk after the last index sync: src\/checkout\.ts\./);

      // The other project's src/checkout.ts is its own file, unchanged since its own index.
      const other = await call("codegraph_node", params("packages/other"));
      assert.match(other.text, /src\/checkout\.ts/);
      assert.doesNotMatch(other.text, /changed after the CodeGraph index/);
      assert.equal(other.details.staleFiles, undefined);
      const otherExplore = await call("codegraph_explore", {
        project: "packages/other",
        request: "how does settleInvoice reach balanceOf",
      });
      assert.match(otherExplore.text, /src\/checkout\.ts/);
      assert.doesNotMatch(otherExplore.text, /⚠/);

      // `/codegraph sync packages/shop` writes that index and leaves the other's alone.
      const report = async (label) => {
        const n = ctx.ui.notes.length;
        await env(() => runCommand(host, ctx, "codegraph", `status ${label}`));
        return ctx.ui.notes
          .slice(n)
          .map((x) => x.message)
          .join("\n");
      };
      assert.match(
        await report("packages/shop"),
        /pending changes: 0 added, 1 modified, 0 removed since the last write: src\/checkout\.ts; run \/codegraph sync/,
      );
      const otherDb = path.join(ws, "packages", "other", ".codegraph", "codegraph.db");
      const otherBefore = fs.statSync(otherDb).mtimeMs;
      const n = ctx.ui.notes.length;
      await env(() => runCommand(host, ctx, "codegraph", "sync packages/shop"));
      const said = ctx.ui.notes.slice(n);
      assert.equal(ctx.ui.confirms.length, 0, "sync asks nothing");
      assert.equal(said.length, 1, JSON.stringify(said));
      assert.ok(
        said[0].message.startsWith(`Project packages/shop (${path.join(ws, "packages", "shop")}):\n`),
        said[0].message,
      );
      assert.ok(starts().includes("sync"), "CodeGraph's sync ran");
      assert.match(await report("packages/shop"), /pending changes: none/);
      assert.equal(fs.statSync(otherDb).mtimeMs, otherBefore, "the other's index is untouched");
    });
  });
}
