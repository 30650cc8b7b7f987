// The session's start runs after session_start (lib/pi/extension.js), so Pi is ready without
// waiting for it; what needs it waits for it. Through a Pi host: a turn or /codegraph that comes
// first, a start that fails, a session that ends before its start is done.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import { DEFAULT_ACTIVE, makeWorkspace, useFakeCli } from "../helpers/index.mjs";
import { codegraphSaid, createPiHost, piPeers, recordingUi, servingStarted } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
useFakeCli();

/** A host with the package loaded over `getPeers`, and a session context in a fresh indexed workspace. */
async function loaded(getPeers) {
  const peers = await piPeers();
  const host = createPiHost();
  host.load(pkg.createExtension(getPeers ?? (() => peers)), "pi-codegraph");
  return { host, ctx: { cwd: makeWorkspace(), hasUI: true, ui: recordingUi() } };
}

describe("the session's start, after session_start", () => {
  test("session_start registers /codegraph only; the tools come with the start", async () => {
    const { host, ctx } = await loaded();
    await host.sessionStart(ctx);
    assert.deepEqual(host.registry, []);
    assert.deepEqual([...host.commands.keys()], ["codegraph"]);
    await host.startSession(ctx); // the host waits for the serving copy, as a turn does
    assert.equal(host.registry[0]?.name, "codegraph_explore");
  });

  test("a turn that comes first waits for the start, and its prompt options carry the tools", async () => {
    const { host, ctx } = await loaded();
    await host.sessionStart(ctx);
    const options = await host.beforeAgentStart(ctx);
    assert.deepEqual(
      host.activeTools().map((t) => t.name),
      DEFAULT_ACTIVE,
    );
    assert.match(options.toolSnippets.codegraph_explore, /CodeGraph/);
    assert.ok(options.toolGuidelines.codegraph_explore.length > 0);
  });

  test("/codegraph typed first waits for the start, then answers from it", async () => {
    const { host, ctx } = await loaded();
    await host.sessionStart(ctx);
    assert.match(await codegraphSaid(host, ctx, ""), /^pi-codegraph: ready$/m);
  });

  test("a start that fails is said once, at once; a turn goes on without the tools; /codegraph fails with it", async () => {
    const { host, ctx } = await loaded(() => {
      throw new Error("no typebox here");
    });
    await host.sessionStart(ctx);
    await host.startSession(ctx);
    assert.deepEqual(ctx.ui.notes, [
      {
        message:
          "pi-codegraph could not start in this session: no typebox here\nIts tools are not registered; run `pi-codegraph doctor` in the workspace.",
        type: "error",
      },
    ]);
    await host.beforeAgentStart(ctx);
    await host.beforeAgentStart(ctx);
    assert.equal(ctx.ui.notes.length, 1, "said once");
    assert.deepEqual(host.registry, []);
    await assert.rejects(codegraphSaid(host, ctx, "status"), /no typebox here/);
  });

  test("a session that ends before its start is done waits for it: nothing is left running after", async () => {
    const { host, ctx } = await loaded();
    await host.sessionStart(ctx);
    await host.shutdown(ctx);
    assert.equal(host.registry[0]?.name, "codegraph_explore", "the start had finished when shutdown returned");
    assert.equal(await servingStarted(host.events, ctx), false, "the copy no longer answers for the session");
  });
});
