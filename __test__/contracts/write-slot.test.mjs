// A `/codegraph` write is not a reader: it takes none of the index's parallel slots
// (lib/api/admission.js) and waits for none. With one slot (PI_CODEGRAPH_MAX_PARALLEL=1, as on one
// core or a large index), the model's call during a running write meets the runner's writer rule
// (CodeGraph's lock: a 10 s wait, then CODEGRAPH_INDEX_BUSY, README's error table) instead of
// queueing behind the write for four budgets (2 minutes) and failing "too many queries". Through
// a Pi host over the fake CLI (its writes hold `.codegraph/codegraph.lock` at FAKE_CG_GATE until
// `go`), on both runners.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { makeWorkspace, tempDir, useFakeCli, waitFor, withEnv } from "../helpers/index.mjs";
import { codegraphSaid, hostWith, recordingUi } from "../helpers/pi-host.mjs";
import { makeMonorepo } from "../helpers/roots.mjs";

useFakeCli();

/** The runner's wait for a writer (README: "still was after a 10 s wait"), and room for a loaded machine. */
const WRITER_WAIT_MS = 10000;
const LOOSE_MS = WRITER_WAIT_MS + 8000;

/** The outcome of a promise: `{ value }` or `{ error }`. */
const settle = (p) =>
  p.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

for (const impl of implementations) {
  describe(impl.name, () => {
    /** A Pi session in `cwd` (rpc-like: no custom UI), after its first turn began (the roots' scan awaited). */
    async function session(cwd) {
      const host = await hostWith(impl.module, "write-slot");
      const ui = recordingUi({ custom: "none" });
      const ctx = { cwd, hasUI: true, ui };
      await host.startSession(ctx);
      await host.beforeAgentStart(ctx);
      const explore = (params) =>
        settle(
          host.registry.find((t) => t.name === "codegraph_explore").execute("c", params, undefined, undefined, ctx),
        );
      const cg = (args) => codegraphSaid(host, ctx, args);
      return { explore, cg };
    }

    /** The model's call during a write: CODEGRAPH_INDEX_BUSY from the runner's wait, never from a queue. */
    async function busy(call) {
      const started = performance.now();
      const { error, value } = await call;
      const ms = performance.now() - started;
      assert.ok(error, `answered during a write: ${value?.content?.[0]?.text}`);
      assert.equal(error.code, "CODEGRAPH_INDEX_BUSY", error.message);
      assert.equal(error.details.queueMs, 0, "it waited in no queue: the write holds no slot");
      assert.ok(ms < LOOSE_MS, `took ${Math.round(ms)} ms`);
      assert.ok(
        error.details.lockWaitMs >= WRITER_WAIT_MS - 1000,
        `waited ${error.details.lockWaitMs} ms for the writer`,
      );
    }

    test("one slot, a write running: the model's call in the same session, in another session of this process and in another root gets CODEGRAPH_INDEX_BUSY after the writer wait", {
      timeout: 60000,
    }, async () => {
      const gate = tempDir("pi-codegraph-gate-");
      const own = makeWorkspace();
      const shared = makeWorkspace();
      const mono = makeMonorepo();
      const lock = (dir) => path.join(dir, ".codegraph", "codegraph.lock");
      await withEnv({ PI_CODEGRAPH_MAX_PARALLEL: "1", FAKE_CG_GATE: gate, PI_CODEGRAPH_TOOLS: undefined }, async () => {
        const one = await session(own);
        const writer = await session(shared);
        const other = await session(shared); // a second session in this process, same workspace
        const roots = await session(mono);
        const writes = [one.cg("rebuild --yes"), writer.cg("sync --yes"), roots.cg("sync packages/web --yes")];
        try {
          for (const dir of [own, shared, path.join(mono, "packages/web")])
            await waitFor(() => fs.existsSync(lock(dir)), { what: `the write in ${dir} to hold its lock` });
          await Promise.all([
            busy(one.explore({ request: "q" })),
            busy(other.explore({ request: "q" })),
            busy(roots.explore({ request: "q", project: "packages/web" })),
          ]);
          // The other root's slot was never taken either: its reader answers at once.
          const api = await roots.explore({ request: "q", project: "packages/api" });
          assert.ok(api.value, api.error?.message);
        } finally {
          fs.writeFileSync(path.join(gate, "go"), "");
          const said = await Promise.all(writes);
          for (const s of said) assert.match(s, /: done in \d+\.\d s/);
        }
      });
    });

    test("a sync started while the model's call holds the only slot starts at once: it waits for no reader", {
      timeout: 30000,
    }, async () => {
      const reads = tempDir("pi-codegraph-reads-");
      const ws = makeWorkspace();
      await withEnv({ PI_CODEGRAPH_MAX_PARALLEL: "1", FAKE_CG_READ_GATE: reads }, async () => {
        const s = await session(ws);
        const reading = s.explore({ request: "held" });
        try {
          await waitFor(() => fs.existsSync(path.join(reads, "started")), { what: "the model's call to run" });
          const said = await s.cg("sync --yes");
          assert.match(said, /^\/codegraph sync: done in \d+\.\d s/);
          assert.equal(fs.existsSync(path.join(reads, "go")), false, "the reader still held its slot");
        } finally {
          fs.writeFileSync(path.join(reads, "go"), "");
        }
        const read = await reading;
        assert.ok(read.value, read.error?.message);
        assert.equal(read.value.details.queueMs, 0);
        // The slot is free again for the next reader.
        const next = await s.explore({ request: "next" });
        assert.ok(next.value, next.error?.message);
      });
    });
  });
}
