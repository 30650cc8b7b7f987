// The long-lived CodeGraph (crates/core/src/warm.rs) with the real pinned CodeGraph 1.6.1's
// `serve --mcp`: its answers to explore and node are the process's byte for byte; a `sync` beside
// it is answered from at once by the same server; `/codegraph rebuild` (which CodeGraph refuses
// while its server holds the index) runs, the server stopped first; stopWarm() leaves no process
// and no `writer.pid`. The guarantees over the fake CLI: contracts/warm.test.mjs.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { isAlive, root, tempDir } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const { verbCommand } = require("../../lib/contract/verbs.js");
const cliBin = path.join(root, "node_modules", ".bin");
const cliMissing = fs.existsSync(path.join(cliBin, "codegraph")) ? false : "the pinned CodeGraph CLI is not installed";
const native = pkg.runnerInfo().name === "native addon" ? false : "the native addon only";
const warm = { warm: true };

describe("the long-lived CodeGraph, real CLI", { skip: cliMissing || native, timeout: 180000 }, () => {
  let ws;
  const saved = {};
  before(() => {
    for (const k of ["PATH", "DO_NOT_TRACK", "PI_CODEGRAPH_BIN"]) saved[k] = process.env[k];
    process.env.PATH = [cliBin, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);
    process.env.DO_NOT_TRACK = "1";
    delete process.env.PI_CODEGRAPH_BIN;
    ws = tempDir("pi-codegraph-warm-real-");
    fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
    execFileSync(path.join(cliBin, "codegraph"), ["init", "-y", "."], { cwd: ws, stdio: "ignore" });
  });
  after(async () => {
    await pkg.stopWarm();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  test("its answers are the process's; a sync beside it is answered from; a rebuild runs; stopped, nothing is left", async () => {
    const asked = [
      (o) => pkg.explore("how is a checkout charged", ws, null, o),
      (o) => pkg.explore("calculateTotal", ws, null, o),
      (o) => pkg.node({ symbol: "calculateTotal" }, ws, null, o),
      (o) => pkg.node({ symbol: "charge", file: "src/stripe.ts" }, ws, null, o),
    ];
    for (const ask of asked) {
      const served = await ask(warm);
      const alone = await ask(undefined);
      assert.equal(served.details.warm, true);
      assert.equal(alone.details.warm, undefined);
      assert.equal(served.text, alone.text);
    }
    const [server] = pkg.warmServers();
    assert.ok(server && isAlive(server.pid), "one server, running");

    fs.writeFileSync(path.join(ws, "src", "audit.ts"), "export function refundAuditTrail(id: string) { return id; }\n");
    await pkg.run(verbCommand("sync"), ws);
    const found = await pkg.node({ symbol: "refundAuditTrail" }, ws, null, warm);
    assert.match(found.text, /refundAuditTrail[\s\S]*src\/audit\.ts/);
    assert.deepEqual(
      pkg.warmServers().map((s) => s.pid),
      [server.pid],
      "the same server answered from the sync",
    );

    await pkg.run(verbCommand("rebuild"), ws);
    assert.equal(isAlive(server.pid), false, "stopped before CodeGraph's rebuild");
    const rebuilt = await pkg.node({ symbol: "refundAuditTrail" }, ws, null, warm);
    assert.match(rebuilt.text, /src\/audit\.ts/);
    const [next] = pkg.warmServers();
    assert.notEqual(next.pid, server.pid);

    assert.equal(await pkg.stopWarm(), 1);
    assert.equal(isAlive(next.pid), false);
    assert.equal(fs.existsSync(path.join(ws, ".codegraph", "writer.pid")), false, "CodeGraph released its writer file");
  });
});
