// A call in another root is still made on behalf of Pi's workspace (issue 24): code inside the
// workspace must not run through the child's environment, whichever root the CLI runs in. The
// runner keeps code inside its cwd from the child (PATH entries, the executable found on PATH,
// NODE_OPTIONS loading a file); a call in `packages/api` runs with cwd = packages/api, so without
// Pi's workspace named as well, `<monorepo>/node_modules/.bin` on PATH would choose the CLI. Each
// case plants code in the workspace that leaves a marker file when it runs, and checks that the
// fake CLI on PATH after it answered instead. Over the native addon and the Node runner.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { parseEcho, tempDir, useFakeCli, withEnv } from "../helpers/index.mjs";
import { codegraphSaid, hostWith, recordingUi } from "../helpers/pi-host.mjs";
import { makeMonorepo, makeProject } from "../helpers/roots.mjs";

const fake = useFakeCli();

/**
 * A `codegraph` planted in `<ws>/node_modules/.bin` that leaves `marker` and answers "PLANTED",
 * and a NODE_OPTIONS module in the workspace that leaves `marker` when Node loads it. Returns
 * the environment that puts both in front of the real (fake) CLI.
 */
function plant(ws, marker) {
  const bin = path.join(ws, "node_modules", ".bin");
  fs.mkdirSync(bin, { recursive: true });
  const planted = path.join(bin, "codegraph");
  fs.writeFileSync(
    planted,
    `#!/bin/sh\necho codegraph "$@" "$PWD" "$PPID" > ${JSON.stringify(marker)}\necho PLANTED\n`,
  );
  fs.chmodSync(planted, 0o755);
  const hook = path.join(ws, "hook.cjs");
  fs.writeFileSync(hook, `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "node-options");\n`);
  return {
    PATH: `${bin}${path.delimiter}${fake.bin}`,
    NODE_OPTIONS: `--require ${hook}`,
    PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-"),
    PI_CODEGRAPH_TOOLS: "all",
  };
}

/** A Pi session in `cwd` after its first turn began (the roots are known), with `env` set throughout. */
async function session(pkg, cwd) {
  const host = await hostWith(pkg, "boundary");
  const ui = recordingUi();
  const ctx = { cwd, hasUI: true, ui };
  await host.startSession(ctx);
  await host.beforeAgentStart(ctx);
  const tool = (name) => host.registry.find((t) => t.name === name);
  const cg = (args) => codegraphSaid(host, ctx, args);
  // Every refresh this session started has finished (they run one at a time, in order): nothing
  // of it runs later under another test's environment.
  const quiet = () => host.beforeAgentStart(ctx);
  return { ctx, tool, cg, quiet };
}

const CALLS = {
  codegraph_explore: { request: "Cart" },
  codegraph_node: { symbol: "Cart" },
  codegraph_relations: { relation: "callers", symbol: "Cart" },
  codegraph_search: { name: "Cart" },
};

for (const impl of implementations) {
  describe(impl.name, () => {
    const pkg = impl.module;

    test("a monorepo root: the CLI on PATH inside the workspace and a NODE_OPTIONS file there stay out of every tool's call", async () => {
      const ws = makeMonorepo();
      const marker = path.join(tempDir("pi-codegraph-marker-"), "ran");
      await withEnv(plant(ws, marker), async () => {
        const s = await session(pkg, ws);
        for (const [name, params] of Object.entries(CALLS)) {
          const result = await s
            .tool(name)
            .execute("c", { ...params, project: "packages/api" }, undefined, undefined, s.ctx);
          const [, ...rest] = result.content[0].text.split("\n");
          const echo = parseEcho(rest.join("\n"));
          assert.equal(echo.cwd, path.join(ws, "packages", "api"), name);
          assert.equal(
            fs.existsSync(marker),
            false,
            `${name}: code inside the workspace ran (${fs.existsSync(marker) && fs.readFileSync(marker, "utf8")})`,
          );
        }
        await s.quiet();
        assert.equal(fs.existsSync(marker), false, "a refresh after the calls ran code inside the workspace");
      });
    });

    test("a root's call without Pi's workspace (no ctx, or no cwd in it) runs nowhere: CODEGRAPH_WORKSPACE", async () => {
      const ws = makeMonorepo();
      const marker = path.join(tempDir("pi-codegraph-marker-"), "ran");
      await withEnv(plant(ws, marker), async () => {
        const s = await session(pkg, ws);
        for (const ctx of [undefined, {}, { cwd: 7 }]) {
          const err = await s
            .tool("codegraph_explore")
            .execute("c", { request: "Cart", project: "packages/api" }, undefined, undefined, ctx)
            .catch((e) => e);
          assert.equal(err.code, "CODEGRAPH_WORKSPACE", err.message);
          assert.doesNotMatch(err.message, /^Project /);
        }
        await s.quiet();
        assert.equal(fs.existsSync(marker), false, "code inside the workspace ran");
      });
    });

    test("the verbs in a root: /codegraph status packages/api runs the CLI from outside the workspace", async () => {
      const ws = makeMonorepo();
      const marker = path.join(tempDir("pi-codegraph-marker-"), "ran");
      await withEnv(plant(ws, marker), async () => {
        const s = await session(pkg, ws);
        const said = await s.cg("status packages/api");
        assert.match(said, /^Project packages\/api /, said);
        await s.quiet();
        assert.equal(
          fs.existsSync(marker),
          false,
          `code inside the workspace ran: ${fs.existsSync(marker) && fs.readFileSync(marker, "utf8")}`,
        );
      });
    });

    test("a root added outside the workspace (a sibling): code inside the workspace still stays out", async () => {
      const ws = makeProject(path.join(tempDir("pi-codegraph-side-"), "app"), { index: false });
      const sibling = makeProject(path.join(path.dirname(ws), "lib"));
      const marker = path.join(tempDir("pi-codegraph-marker-"), "ran");
      await withEnv(plant(ws, marker), async () => {
        const s = await session(pkg, ws);
        assert.match(await s.cg("roots add ../lib"), /^Added \.\.\/lib /);
        const result = await s.tool("codegraph_explore").execute("c", { request: "Cart" }, undefined, undefined, s.ctx);
        const [first, ...rest] = result.content[0].text.split("\n");
        assert.match(first, /^Project \.\.\/lib /);
        assert.equal(parseEcho(rest.join("\n")).cwd, sibling);
        await s.quiet();
        assert.equal(
          fs.existsSync(marker),
          false,
          `code inside the workspace ran: ${fs.existsSync(marker) && fs.readFileSync(marker, "utf8")}`,
        );
      });
    });

    test("explore() directly: cwd alone is the boundary, and options.workspace adds Pi's", async () => {
      const ws = makeMonorepo();
      const api = path.join(ws, "packages", "api");
      const marker = path.join(tempDir("pi-codegraph-marker-"), "ran");
      await withEnv(plant(ws, marker), async () => {
        const kept = await pkg.explore("Cart", api, undefined, { workspace: ws });
        assert.equal(parseEcho(kept.text).cwd, api);
        assert.equal(
          fs.existsSync(marker),
          false,
          `with options.workspace, code inside it ran: ${fs.existsSync(marker) && fs.readFileSync(marker, "utf8")}`,
        );
        const diagnosis = await pkg.diagnose(api, ws);
        const dropped = diagnosis.envDropped.map((d) => `${d.variable} ${d.entry}`);
        assert.ok(dropped.includes(`PATH ${path.join(ws, "node_modules", ".bin")}`), dropped.join("; "));
        // Without it the runner knows only packages/api: the workspace's PATH entry is the user's.
        const bare = await pkg.explore("Cart", api);
        assert.equal(bare.text.trim(), "PLANTED");
      });
    });

    test("options.workspace must be an absolute path: anything else is CODEGRAPH_INVALID_OPTIONS and nothing runs", async () => {
      const ws = makeMonorepo();
      const api = path.join(ws, "packages", "api");
      for (const workspace of ["relative/dir", 7, "/with\0nul"]) {
        const err = await pkg.explore("Cart", api, undefined, { workspace }).catch((e) => e);
        assert.equal(err.code, "CODEGRAPH_INVALID_OPTIONS", String(workspace));
        assert.match(err.message, /workspace/);
      }
    });
  });
}
