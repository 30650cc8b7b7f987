// Staleness, told without touching the index: an explore answer that cites files changed or
// deleted after the index was last written ends with one line naming them (and details.staleFiles);
// the files Pi's own edit/write tools changed since show in the status slot, the prompt and
// /codegraph until an index written later drops them. The fake CLI prints given answers in a temp
// workspace whose fake index has a set mtime; both runners, through the public seams.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { fakeCli, makeWorkspace, root, tempDir, useFakeCli, withEnv } from "../helpers/index.mjs";
import { hostWith } from "../helpers/pi-host.mjs";
import { runNode } from "../helpers/processes.mjs";

const { codegraphCommand } = createRequire(import.meta.url)("../../lib/contract/commands.js");
const systemPath = process.env.PATH; // before useFakeCli narrows PATH to the fake
useFakeCli(); // diagnose finds a codegraph on PATH; answers come from PI_CODEGRAPH_BIN

/** A workspace whose index was written at `T` (s); `files` maps a relative path to "old" or "new" (written before or after it). */
function workspace(files) {
  const ws = makeWorkspace();
  const T = Math.floor(Date.now() / 1000) - 1000;
  fs.utimesSync(path.join(ws, ".codegraph", "codegraph.db"), T, T);
  fs.utimesSync(path.join(ws, "main.ts"), T - 100, T - 100);
  for (const [rel, when] of Object.entries(files)) {
    const file = path.join(ws, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `// ${rel}\n`);
    const at = when === "new" ? T + 100 : T - 100;
    fs.utimesSync(file, at, at);
  }
  return { ws, T };
}

/** explore() of `pkg` in `ws`, the fake CLI answering `answer`. */
function answerWith(pkg, ws, answer) {
  const cli = fakeCli([["stdout", answer]]);
  return withEnv({ PI_CODEGRAPH_BIN: cli.file }, () => pkg.explore("q", ws));
}

for (const impl of implementations) {
  describe(`${impl.name}: stale files named in an answer`, () => {
    let pkg;
    before(() => {
      pkg = impl.module;
    });

    test("a changed and a deleted cited file: one line names both, details.staleFiles lists them", async () => {
      const { ws } = workspace({ "src/text.ts": "new", "src/index.ts": "old", "src/util.ts": "old" });
      fs.rmSync(path.join(ws, "src/index.ts"));
      const answer = [
        "1. render (src/text.ts:7)",
        "- `main` (main.ts:1) — 1 caller (src/index.ts:3); also `src/util.ts`",
        "",
      ].join("\n");
      const r = await answerWith(pkg, ws, answer);
      assert.equal(
        r.text,
        `${answer}⚠ 2 files named above changed after the CodeGraph index was last written (src/text.ts; src/index.ts — deleted). Results for them may be stale; the user can run /codegraph sync.\n`,
      );
      assert.deepEqual(r.details.staleFiles, [
        { path: "src/text.ts", state: "changed" },
        { path: "src/index.ts", state: "deleted" },
      ]);
      assert.equal(fs.statSync(path.join(ws, ".codegraph", "codegraph.db")).size, 4096, "the index is untouched");
    });

    test("deleted only for a file CodeGraph printed as indexed (a blast radius's files, a location at the root); trimmed-files labels and tails are the paths they stand for", async () => {
      const { ws } = workspace({
        "src/runtime/task/mod.rs": "old",
        "tokio/src/runtime/scheduler/current_thread/mod.rs": "new",
        "docs/notes.md": "new",
        "src/gone.rs": "old",
        "src/blast.rs": "old",
        "lib/old/api.rs": "old",
        "spawn_test.rs": "old",
        "entry.rs": "old",
      });
      for (const gone of ["src/gone.rs", "src/blast.rs", "spawn_test.rs", "entry.rs"]) fs.rmSync(path.join(ws, gone));
      // As CodeGraph 1.6.1 ends a long explore answer on an index of 500 files or more: the
      // labels are the shortest suffixes unique among the answer's paths, none of them a path of
      // the workspace as written. A blast-radius row names its callers' files whole.
      const answer = [
        "- `spawn` (src/runtime/task/mod.rs:2) — 3 callers in `src/blast.rs`, `lib/old/api.rs` +1 more; tests: `spawn_test.rs`",
        "1. main (entry.rs:4)",
        "**`src/runtime/task/mod.rs`** — spawn(function)",
        "**`tokio/src/runtime/scheduler/current_thread/mod.rs`** — block_on(function)",
        "**`src/gone.rs`** — gone(function)",
        "See path/to/example.rs and docs/notes.md; the scheduler lives in current_thread/mod.rs.",
        "> **Verbatim source for 3 files is included above — treat it as already Read.** Trimmed for size: `task/mod.rs`, `current_thread/mod.rs`, `gone.rs` +2 more; gap markers and file headers name what was elided.",
        "",
      ].join("\n");
      const r = await answerWith(pkg, ws, answer);
      assert.deepEqual(r.details.staleFiles, [
        { path: "src/blast.rs", state: "deleted" },
        { path: "spawn_test.rs", state: "deleted" },
        { path: "entry.rs", state: "deleted" },
        { path: "tokio/src/runtime/scheduler/current_thread/mod.rs", state: "changed" },
        { path: "src/gone.rs", state: "deleted" },
        { path: "docs/notes.md", state: "changed" },
      ]);
      assert.equal(
        r.text.slice(answer.length),
        "⚠ 6 files named above changed after the CodeGraph index was last written (src/blast.rs — deleted; spawn_test.rs — deleted; entry.rs — deleted; tokio/src/runtime/scheduler/current_thread/mod.rs; src/gone.rs — deleted; docs/notes.md). Results for them may be stale; the user can run /codegraph sync.\n",
      );
    });

    test("unchanged cited files, code in fenced blocks and bare dotted names: nothing appended", async () => {
      const { ws } = workspace({ "src/a.ts": "old" });
      const answer = [
        "**`src/a.ts`** — a(function)",
        "```typescript",
        "1\timport { x } from 'gone/thing.ts';",
        "2\tconst changed = require('src/a.ts:2');",
        "```",
        "Uses receipt.id and JSON.stringify; see main.ts:1 and src/a.ts:1.",
        "",
      ].join("\n");
      const r = await answerWith(pkg, ws, answer);
      assert.equal(r.text, answer);
      assert.equal(r.details.staleFiles, undefined);
    });

    test("an empty codegraph.db-wal is no write (CodeGraph opened the index, as `unlock` does); a -wal with frames is", async () => {
      const { ws, T } = workspace({ "src/a.ts": "new" });
      const wal = path.join(ws, ".codegraph", "codegraph.db-wal");
      fs.writeFileSync(wal, "");
      fs.utimesSync(wal, T + 200, T + 200);
      const answer = "1. a (src/a.ts:1)\n";
      const opened = await answerWith(pkg, ws, answer);
      assert.deepEqual(opened.details.staleFiles, [{ path: "src/a.ts", state: "changed" }]);
      fs.writeFileSync(wal, Buffer.alloc(4096, 1));
      fs.utimesSync(wal, T + 200, T + 200);
      const written = await answerWith(pkg, ws, answer);
      assert.equal(written.details.staleFiles, undefined);
    });

    test("a file's own symbol in CodeGraph's per-file list (`compiler.py:1` after its path) is not a root-level file", async () => {
      const { ws } = workspace({ "django/db/models/sql/compiler.py": "old" });
      // As CodeGraph 1.6.1 lists a file's symbols on Django: the file node is `<name>:1`.
      const answer =
        "- django/db/models/sql/compiler.py: _get_field_choices:1173, compiler.py:1, as_sql:1906, setup.py:3\n";
      const r = await answerWith(pkg, ws, answer);
      assert.equal(r.text, answer);
      assert.equal(r.details.staleFiles, undefined);
    });

    test("a file CodeGraph already flags (⚠) is not repeated, yet counts for the row's tag; another changed file still is", async () => {
      const { ws } = workspace({ "src/cart.ts": "new", "src/other.ts": "new" });
      const flaggedOnly = [
        "**`src/cart.ts`** — total(function) · ⚠ changed since last index sync — source below is current",
        "> ⚠ Changed on disk after the last index sync: src/cart.ts. Line numbers may be shifted.",
        "",
      ].join("\n");
      const quiet = await answerWith(pkg, ws, flaggedOnly);
      assert.equal(quiet.text, flaggedOnly);
      assert.deepEqual(quiet.details.staleFiles, [{ path: "src/cart.ts", state: "changed" }], "the tag counts it");
      const both = await answerWith(pkg, ws, `- \`total\` (src/cart.ts:3), called from src/other.ts:9\n${flaggedOnly}`);
      assert.match(both.text, /⚠ 1 file named above changed after .* \(src\/other\.ts\)\. Results/);
      assert.deepEqual(both.details.staleFiles, [
        { path: "src/other.ts", state: "changed" },
        { path: "src/cart.ts", state: "changed" },
      ]);
    });

    test("paths that leave the workspace (absolute, .., a symlink to outside) are never checked", async () => {
      const { ws } = workspace({});
      const outside = tempDir("pi-codegraph-outside-");
      fs.writeFileSync(path.join(outside, "out.ts"), "x\n"); // written now: newer than the index
      fs.symlinkSync(outside, path.join(ws, "linked"));
      fs.symlinkSync(path.join(outside, "out.ts"), path.join(ws, "esc.ts"));
      const rel = path.relative(ws, path.join(outside, "out.ts"));
      const answer = `a (${path.join(outside, "out.ts")}:1) b (${rel}:1) c (linked/out.ts:1) d (esc.ts:1) e (linked/gone.ts:1) f (.codegraph/codegraph.db:1)\n`;
      const r = await answerWith(pkg, ws, answer);
      assert.equal(r.text, answer);
      assert.equal(r.details.staleFiles, undefined);
    });

    test("a symlink that stays inside the workspace is followed", async () => {
      const { ws } = workspace({ "real/in.ts": "new" });
      fs.symlinkSync(path.join(ws, "real"), path.join(ws, "alias"));
      const r = await answerWith(pkg, ws, "x (alias/in.ts:1)\n");
      assert.deepEqual(r.details.staleFiles, [{ path: "alias/in.ts", state: "changed" }]);
    });

    test("more than 50 cited paths: 50 checked, 8 named, the rest counted", async () => {
      const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`src/f${i}.ts`, "new"]));
      const { ws } = workspace(files);
      const answer = `${Object.keys(files)
        .map((f) => `- ${f}:1`)
        .join("\n")}\n`;
      const r = await answerWith(pkg, ws, answer);
      assert.equal(r.details.staleFiles.length, 50);
      assert.deepEqual(r.details.staleFiles.at(-1), { path: "src/f49.ts", state: "changed" });
      const line = r.text.slice(answer.length);
      assert.equal(
        line,
        `⚠ 50 files named above changed after the CodeGraph index was last written (${Array.from({ length: 8 }, (_, i) => `src/f${i}.ts`).join("; ")}; and 42 more). Results for them may be stale; the user can run /codegraph sync.\n`,
      );
    });

    test("a line that would pass the command's caps is left out; details.staleFiles still names the files", async () => {
      const { ws } = workspace({ "src/text.ts": "new" });
      const answer = `1. render (src/text.ts:7)\n${Array.from({ length: 9 }, (_, i) => `${i + 2}. more`).join("\n")}\n`;
      const cli = fakeCli([["stdout", answer]]);
      const command = codegraphCommand("explore", { positional: "q", maxLines: 10 });
      const r = await withEnv({ PI_CODEGRAPH_BIN: cli.file }, () => pkg.run(command, ws));
      assert.equal(r.text, answer);
      assert.deepEqual(r.details.staleFiles, [{ path: "src/text.ts", state: "changed" }]);
      const roomy = codegraphCommand("explore", { positional: "q", maxLines: 11 });
      const r4 = await withEnv({ PI_CODEGRAPH_BIN: cli.file }, () => pkg.run(roomy, ws));
      assert.match(
        r4.text,
        /\n⚠ 1 file named above changed after the CodeGraph index was last written \(src\/text\.ts\)/,
      );
    });

    test("filesystem checks that do not answer (a stalled thread pool): the answer still arrives, unmarked", async () => {
      // One libuv pool thread, held by a blocking open of a FIFO with no writer: every stat
      // queued behind it stalls, as on a hung mount. The staleness check gives up at its deadline.
      const { ws } = workspace({ "src/text.ts": "new" });
      const fifo = path.join(tempDir(), "stall");
      execFileSync("mkfifo", [fifo], { env: { PATH: systemPath } });
      const cli = fakeCli([["stdout", "1. render (src/text.ts:7)\n"]]);
      const load =
        impl.id === "node"
          ? `require(${JSON.stringify(path.join(root, "index.js"))}).forRunner(require(${JSON.stringify(impl.entry)}))`
          : `require(${JSON.stringify(impl.entry)})`;
      const script = `const fs = require("node:fs");
const pkg = ${load};
fs.promises.open(${JSON.stringify(fifo)}, "r").catch(() => {});
const started = Date.now();
setImmediate(() => pkg.explore("q", ${JSON.stringify(ws)}, null, { timeoutMs: 1500 }).then(
(r) => ({ text: r.text, stale: r.details.staleFiles }), (e) => ({ code: e.code, message: e.message })).then((out) => {
process.stdout.write(JSON.stringify({ ...out, ms: Date.now() - started }));
fs.closeSync(fs.openSync(${JSON.stringify(fifo)}, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); // release the pool
}));`;
      const r = await runNode(["-e", script], {
        env: { ...process.env, PI_CODEGRAPH_BIN: cli.file, UV_THREADPOOL_SIZE: "1" },
        timeoutMs: 15000,
      });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.ok(out.ms < 2500, `settled after ${out.ms} ms`);
      if (impl.id === "node" && out.code) {
        // The Node runner's own checks share the stalled pool: its deadline is the answer there.
        assert.equal(out.code, "CODEGRAPH_TIMEOUT", out.message);
      } else {
        assert.equal(out.text, "1. render (src/text.ts:7)\n", out.message);
        assert.equal(out.stale, undefined);
      }
    });
  });

  describe(`${impl.name}: files edited in this session after the index`, () => {
    /** A Pi session in `ws` with a recording UI; `edit(input, extra)` dispatches a tool_result. */
    async function session(ws) {
      const host = await hostWith(impl.module, "stale");
      const statuses = [];
      const notes = [];
      const ui = { setStatus: (_k, t) => statuses.push(t), notify: (m) => notes.push(m) };
      const ctx = { cwd: ws, hasUI: true, ui };
      await host.startSession(ctx);
      const tool = () => host.registry.find((t) => t.name === "codegraph_explore");
      const edit = async (input, extra = {}) => {
        const returned = await host.toolResult({ toolName: "edit", input, ...extra }, ctx);
        assert.deepEqual(returned, [undefined], "the result is never modified");
      };
      const report = async () => {
        notes.length = 0;
        await host.commands.get("codegraph").handler("", ctx);
        return notes[0].split("\n")[0];
      };
      return { host, ctx, statuses, tool, edit, report, status: () => statuses.at(-1) };
    }

    test("an edit: the slot counts it, /codegraph says so, the tools stay as registered; a later index drops it", async () => {
      const { ws } = workspace({ "src/a.ts": "old" });
      const s = await session(ws);
      assert.equal(s.status(), "⬡ codegraph");
      const registered = s.tool();

      await s.edit({ path: "src/a.ts", oldText: "a", newText: "b" });
      assert.equal(s.status(), "⬡ codegraph · 1 file changed since the index");
      await s.edit({ path: path.join(ws, "src", "b.ts") }, { toolName: "write" });
      await s.edit({ path: "@src/a.ts" }); // the same file again
      await s.edit({ path: "./src/c.ts" });
      await s.host.beforeAgentStart(s.ctx);
      assert.equal(s.status(), "⬡ codegraph · 3 files changed since the index");
      // What the model did never changes what it is given (a provider's cached prompt stays):
      // the answers about the edited files say they changed.
      assert.equal(s.tool(), registered, "not registered again");
      assert.equal(
        await s.report(),
        "pi-codegraph: ready, 3 files changed since the index: src/a.ts, src/b.ts, src/c.ts",
      );

      // Something outside pi-codegraph writes the index (the user's sync): its mtime passes the edits.
      const later = Date.now() / 1000 + 60;
      fs.utimesSync(path.join(ws, ".codegraph", "codegraph.db"), later, later);
      await s.host.beforeAgentStart(s.ctx);
      assert.equal(s.status(), "⬡ codegraph");
      assert.equal(s.tool(), registered);
      assert.equal(await s.report(), "pi-codegraph: ready");
    });

    test("error results, other tools and paths outside the workspace (or in .codegraph/, .git/) are not counted", async () => {
      const { ws } = workspace({});
      const s = await session(ws);
      const outside = tempDir("pi-codegraph-outside-");
      await s.edit({ path: "src/a.ts" }, { isError: true });
      await s.edit({ path: "src/a.ts" }, { toolName: "read" });
      await s.edit({ path: "src/a.ts" }, { toolName: "bash", input: { command: "touch src/a.ts" } });
      await s.edit({ path: path.join(outside, "x.ts") });
      await s.edit({ path: "../x.ts" });
      await s.edit({ path: "~/x.ts" });
      await s.edit({ path: ".codegraph/codegraph.db" });
      await s.edit({ path: ".git/config" });
      await s.edit({});
      assert.equal(s.status(), "⬡ codegraph");
      assert.equal(await s.report(), "pi-codegraph: ready");
      await s.edit({ path: "src/a.ts" });
      assert.equal(s.status(), "⬡ codegraph · 1 file changed since the index", "the same session counts a real edit");
    });
  });
}
