// What the extension tells the user and the model across a session, through a Pi host: readiness
// that follows the workspace (an index made mid-session), Pi started in a subdirectory of an
// indexed project, the status slot, /codegraph, and messages that say what happened; for both
// runners (the lifecycle is the glue's, but what it shows comes from each runner's diagnosis).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { killAndReap, makeWorkspace, root, tempDir, useFakeCli, waitFor, withEnv } from "../helpers/index.mjs";
import { hostWith, piInteractive, plainTheme, recordingUi, renderText } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
let pkg;
const version = require("../../package.json").version;
const fake = useFakeCli();
/** A Pi session in `cwd` with a UI that records the status slot and notifications. */
async function session(cwd) {
  const host = await hostWith(pkg, "session");
  const ui = recordingUi();
  const ctx = { cwd, hasUI: true, ui };
  await host.startSession(ctx);
  const tool = () => host.registry.find((t) => t.name === "codegraph_explore");
  const status = () => ui.statuses.get("codegraph");
  const report = async () => {
    ui.notes.length = 0;
    await host.commands.get("codegraph").handler("doctor", ctx);
    return ui.notes[0].message;
  };
  return { host, ui, ctx, tool, status, report };
}

function indexIn(dir) {
  const copy = makeWorkspace();
  fs.cpSync(path.join(copy, ".codegraph"), path.join(dir, ".codegraph"), { recursive: true });
}

const theme = plainTheme;
const render = (component) => renderText(component, 160);
// Rendering happens in interactive Pi, which has set up its theme and keybindings first.
before(piInteractive);
for (const impl of implementations) {
  describe(impl.name, () => {
    before(() => {
      pkg = impl.module;
    });

    describe("Pi started in a subdirectory of an indexed project", () => {
      test("every surface names the enclosing project's index and recommends starting Pi there", async () => {
        const project = makeWorkspace();
        const sub = path.join(project, "packages", "core");
        fs.mkdirSync(sub, { recursive: true });
        const s = await session(sub);

        const err = await pkg.explore("q", sub).catch((e) => e);
        assert.equal(err.code, "CODEGRAPH_NO_INDEX");
        assert.equal(err.details.ancestorIndex, project);
        // The ancestor comes first; a separate index is only the second option.
        const start = err.remediation.indexOf(`start Pi there (cd ${project} && pi)`);
        const separate = err.remediation.indexOf(
          `run \`/codegraph init\` in Pi here (or \`codegraph init\` in ${sub})`,
        );
        assert.ok(start >= 0 && separate > start, err.remediation);
        // Adding it as a root comes before starting Pi there.
        const add = err.remediation.indexOf(`\`/codegraph projects add ${project}\``);
        assert.ok(add >= 0 && add < start, err.remediation);

        assert.match(s.tool().promptSnippet, new RegExp(`enclosing project ${project} has a CodeGraph index`));
        assert.match(s.tool().promptGuidelines.join(" "), /start Pi there/);
        assert.equal(s.status(), "⬡ codegraph: no index here (parent project has one)");
        const report = await s.report();
        assert.match(report, new RegExp(`enclosing project with an index: ${project}`));
        assert.match(report, /fix: The enclosing project/);
        assert.equal(fs.existsSync(path.join(sub, ".codegraph")), false, "nothing was created");
      });
    });

    describe("readiness follows the workspace during the session", () => {
      test("an index made mid-session: the next turn's prompt advertises the tool and the status slot says ready", async () => {
        const dir = makeWorkspace({ index: false });
        const s = await session(dir);
        assert.match(s.tool().promptGuidelines[0], /^Do not call codegraph_explore/);
        assert.equal(s.status(), "⬡ codegraph: no index");

        indexIn(dir); // the user runs `codegraph init` meanwhile
        await s.host.beforeAgentStart(s.ctx);
        assert.match(s.tool().promptSnippet, /structural questions/);
        assert.ok(!s.tool().promptGuidelines.some((g) => /Do not call/.test(g)));
        assert.equal(s.status(), "⬡ codegraph");
        assert.match(await s.report(), /pi-codegraph: ready/);
      });

      test("an index still being written (`codegraph init` running): not advertised, 'indexing', then ready when it ends", async () => {
        const dir = makeWorkspace({ index: false });
        const s = await session(dir);
        // The user starts `codegraph init`: the database exists, and CodeGraph holds its lock.
        indexIn(dir);
        const writer = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
        try {
          fs.writeFileSync(path.join(dir, ".codegraph", "codegraph.lock"), String(writer.pid));
          await s.host.beforeAgentStart(s.ctx);
          assert.equal(s.status(), "⬡ codegraph: indexing");
          assert.match(s.tool().promptSnippet, /Unavailable while CodeGraph is indexing this workspace/);
          assert.match(s.tool().promptGuidelines[0], /becomes available by itself/);
          const report = await s.report();
          assert.match(report, /not ready \(CODEGRAPH_INDEX_BUSY\)/);
          assert.match(
            report,
            new RegExp(`problem: CodeGraph is writing this workspace's index right now \\(pid ${writer.pid}`),
          );
        } finally {
          await killAndReap(writer);
        }
        // The write finished: CodeGraph removes its lock (a lock left behind is an interrupted write).
        fs.rmSync(path.join(dir, ".codegraph", "codegraph.lock"));
        await s.host.beforeAgentStart(s.ctx);
        assert.equal(s.status(), "⬡ codegraph");
        assert.match(s.tool().promptSnippet, /structural questions/);
      });

      test("a write on a ready index (a sync): 'indexing' in the slot, the tools' words stay as registered", async () => {
        const dir = makeWorkspace();
        const s = await session(dir);
        const registered = s.tool();
        const writer = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
        try {
          fs.writeFileSync(path.join(dir, ".codegraph", "codegraph.lock"), String(writer.pid));
          await s.host.beforeAgentStart(s.ctx);
          assert.equal(s.status(), "⬡ codegraph: indexing");
          assert.equal(s.tool(), registered, "not registered again: the prompt a provider cached stays");
        } finally {
          await killAndReap(writer);
        }
        fs.rmSync(path.join(dir, ".codegraph", "codegraph.lock"));
        await s.host.beforeAgentStart(s.ctx);
        assert.equal(s.status(), "⬡ codegraph");
        assert.equal(s.tool(), registered);
      });

      test("an index removed mid-session: after the failing call the status slot follows, and so does the prompt", async () => {
        const dir = makeWorkspace();
        const s = await session(dir);
        assert.equal(s.status(), "⬡ codegraph");
        fs.rmSync(path.join(dir, ".codegraph"), { recursive: true });
        await assert.rejects(s.tool().execute("c", { request: "q" }, undefined, undefined, s.ctx), {
          code: "CODEGRAPH_NO_INDEX",
        });
        await waitFor(() => s.status() === "⬡ codegraph: no index", { what: "the status slot to follow" });
        await s.host.beforeAgentStart(s.ctx);
        assert.match(s.tool().promptGuidelines[0], /^Do not call codegraph_explore/);
      });

      test("the status slot is sent only when it changes (rpc mode sends every setStatus to the client)", async () => {
        const dir = makeWorkspace();
        const s = await session(dir);
        const sent = [];
        const record = s.ui.setStatus;
        s.ui.setStatus = (key, text) => {
          sent.push(text);
          record(key, text);
        };
        for (let turn = 0; turn < 3; turn++) await s.host.beforeAgentStart(s.ctx);
        await s.report();
        assert.deepEqual(sent, [], "three unchanged turns and /codegraph sent nothing");
        fs.rmSync(path.join(dir, ".codegraph"), { recursive: true });
        await s.host.beforeAgentStart(s.ctx);
        await s.host.beforeAgentStart(s.ctx);
        assert.deepEqual(sent, ["⬡ codegraph: no index"], "one change, one message");
        indexIn(dir);
        await s.host.beforeAgentStart(s.ctx);
        assert.deepEqual(sent, ["⬡ codegraph: no index", "⬡ codegraph"]);
      });

      test("the status slot shows the real state: workspace unusable, not installed", async () => {
        const gone = path.join(tempDir(), "deleted");
        assert.equal((await session(gone)).status(), "⬡ codegraph: workspace unusable");
        const ws = makeWorkspace();
        await withEnv({ PATH: tempDir() }, async () => {
          assert.equal((await session(ws)).status(), "⬡ codegraph: CLI not installed");
        });
      });
    });

    describe("messages that say what happened", () => {
      test("cancelled after output streamed: the message says so and details keep the partial answer", async () => {
        const ac = new AbortController();
        let seen = 0;
        const pending = withEnv({ FAKE_CG_MODE: "drip", FAKE_CG_COUNT: "100", FAKE_CG_INTERVAL: "20" }, () =>
          pkg.explore("q", fake.ws, ac.signal, {
            onProgress: (p) => {
              seen = p.seenBytes;
              if (p.seenLines >= 5) ac.abort();
            },
          }),
        );
        const err = await pending.catch((e) => e);
        assert.equal(err.code, "CODEGRAPH_CANCELLED");
        assert.ok(seen > 0);
        assert.match(err.message, /cancelled after codegraph had printed \d+ bytes/);
        assert.doesNotMatch(err.message, /before codegraph/);
        assert.match(err.details.partialText, /^drip 1\ndrip 2\n/);
        assert.ok(err.details.partialBytes >= Buffer.byteLength(err.details.partialText) - 1);

        const quiet = new AbortController();
        quiet.abort();
        const early = await pkg.explore("q", fake.ws, quiet.signal).catch((e) => e);
        assert.match(early.message, /cancelled before codegraph printed anything/);
      });

      test("timed out after output streamed: details keep the partial answer", async () => {
        const err = await withEnv({ FAKE_CG_MODE: "drip", FAKE_CG_COUNT: "1000", FAKE_CG_INTERVAL: "50" }, () =>
          pkg.explore("q", fake.ws, null, { timeoutMs: 600 }),
        ).catch((e) => e);
        assert.equal(err.code, "CODEGRAPH_TIMEOUT");
        assert.match(err.message, /after printing \d+ bytes of a partial answer/);
        assert.match(err.details.partialText, /^drip 1\n/);
      });

      test("a corrupt index gets the remediation that works: move it away, then init", async () => {
        const dir = makeWorkspace({ index: false });
        fs.mkdirSync(path.join(dir, ".codegraph"));
        fs.writeFileSync(path.join(dir, ".codegraph", "codegraph.db"), "not a database at all, just text\n");
        const err = await pkg.explore("q", dir).catch((e) => e);
        assert.equal(err.code, "CODEGRAPH_NO_INDEX");
        assert.match(
          err.remediation,
          /^Move or delete .*codegraph\.db \(CodeGraph cannot rebuild it in place\), then run `\/codegraph init` in Pi \(or `codegraph init` in /,
        );
        // The same when the CLI itself says it cannot use the file (a SQLite header, garbage after).
        const cliSays = await withEnv({ FAKE_CG_MODE: "noindex" }, () => pkg.explore("q", fake.ws)).catch((e) => e);
        assert.equal(cliSays.code, "CODEGRAPH_NO_INDEX");
        assert.match(cliSays.remediation, /^Move or delete /);
      });

      test("the guidance tells the model what to use where CodeGraph's text names tools Pi lacks", async () => {
        const s = await withEnv({ PI_CODEGRAPH_TOOLS: "none" }, () => session(fake.ws));
        const text = s.tool().promptGuidelines.join("\n");
        assert.match(text, /"the Read tool" or codegraph_node, use read with the file:line/);
      });

      test("/codegraph names the active copy: its path and version", async () => {
        const s = await session(fake.ws);
        assert.match(
          await s.report(),
          new RegExp(`extension: pi-codegraph ${version.replace(/\./g, "\\.")} at ${root}`),
        );
        assert.deepEqual(pkg.extensionInfo(), { name: "pi-codegraph", version, path: root });
      });

      test("/codegraph shows the index size and the parallel limit in force", async () => {
        const saved = process.env.PI_CODEGRAPH_MAX_PARALLEL;
        process.env.PI_CODEGRAPH_MAX_PARALLEL = "2";
        try {
          const s = await session(fake.ws);
          const report = await s.report();
          const bytes = fs.statSync(path.join(fake.ws, ".codegraph", "codegraph.db")).size;
          const mib = (bytes / 1024 / 1024).toFixed(1);
          assert.match(report, new RegExp(`^index: ${fake.ws}/\\.codegraph \\(${mib} MiB\\)$`, "m"));
          assert.match(report, /^parallel: 2 CodeGraph queries at once on this index \(PI_CODEGRAPH_MAX_PARALLEL\)$/m);
        } finally {
          if (saved === undefined) delete process.env.PI_CODEGRAPH_MAX_PARALLEL;
          else process.env.PI_CODEGRAPH_MAX_PARALLEL = saved;
        }
      });
    });

    describe("counts the user sees add up", () => {
      test("a cut answer: preview + 'more lines' = kept lines, shown as kept of total; the whole text within the caps", async () => {
        // Explore alone has the contract's caps (50 KB, 2,000 lines): the lines are the cap here.
        const s = await withEnv({ PI_CODEGRAPH_TOOLS: "none" }, () => session(fake.ws));
        const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "3000" }, () =>
          s.tool().execute("c", { request: "q" }, undefined, undefined, s.ctx),
        );
        const d = result.details;
        const text = result.content[0].text;
        assert.ok(Buffer.byteLength(text) <= 51200);
        assert.ok(text.split("\n").length <= 2000);
        const collapsed = render(s.tool().renderResult(result, { expanded: false, isPartial: false }, theme, {}));
        const more = Number(collapsed.match(/… (\d+) more lines/)[1]);
        assert.equal(8 + more, d.keptLines);
        assert.match(collapsed, new RegExp(`${d.keptLines} of 3000 lines`));
        const expanded = render(s.tool().renderResult(result, { expanded: true, isPartial: false }, theme, {}));
        assert.match(expanded, /\[Output truncated by lines: showing 1998 of 3000 lines/);
        pkg.releaseFullOutputs([d.fullOutputPath]);
      });
    });
  });
}

for (const impl of implementations) {
  describe(`${impl.name}: what the CLI does not inherit`, () => {
    before(() => {
      pkg = impl.module;
    });

    test("/codegraph names the PATH entries the CLI does not get, printable", async () => {
      const ws = makeWorkspace();
      const bin = path.join(ws, "node_modules", ".bin");
      const odd = path.join(ws, "x\u001b]0;title\u0007\nstatus ready");
      fs.mkdirSync(bin, { recursive: true });
      fs.mkdirSync(odd);
      const message = await withEnv({ PATH: `${bin}:${odd}:${fake.bin}` }, async () => (await session(ws)).report());
      const lines = message.split("\n");
      assert.ok(lines.includes(`not passed to codegraph: PATH entry ${bin} (inside the workspace)`), message);
      assert.ok(
        lines.includes(
          `not passed to codegraph: PATH entry ${ws}/x\\u{1b}]0;title\\u{7}\\nstatus ready (inside the workspace)`,
        ),
        message,
      );
      assert.ok(!message.includes("\u001b"));
    });
  });
}
