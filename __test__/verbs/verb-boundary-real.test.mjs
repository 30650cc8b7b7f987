// `/codegraph init` never writes outside the workspace through a link the repository ships, with the
// real pinned CodeGraph 1.6.1 (which follows `.codegraph -> ..` and would put codegraph.db and a
// `.gitignore` of `*` into the parent): run() of init's description through both runners, and
// real Pi in print mode (`pi -p -e <this package> "/codegraph init --yes"`) and rpc mode (no
// confirm dialog is requested before the refusal). The parent directory is byte-identical afterwards.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { REAL_CLI_PATH, root, tempDir, withEnv } from "../helpers/index.mjs";
import { piEnv, piMissing, piScratch, runPi, startPiRpc, writeModelsJson } from "../helpers/pi-harness.mjs";
import { snapshot } from "../helpers/snapshot.mjs";

const require = createRequire(import.meta.url);
const { verbCommand } = require("../../lib/contract/verbs.js");
const realBin = path.join(root, "node_modules", ".bin");
const cliMissing = fs.existsSync(path.join(realBin, "codegraph")) ? false : "the pinned CodeGraph CLI is not installed";
const realPath = REAL_CLI_PATH;

/** `outer/shop` (the fixture, unindexed) with `.codegraph` made by `link(ws)`, and `outer/victim`. */
function shopWith(link) {
  const outer = tempDir("pi-codegraph-vb-real-");
  const ws = path.join(outer, "shop");
  fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
  fs.rmSync(path.join(ws, ".codegraph"), { recursive: true, force: true });
  fs.writeFileSync(path.join(outer, "victim"), "precious\n");
  link(ws);
  return { outer, ws };
}

const LINKS = {
  ".codegraph -> ..": (ws) => fs.symlinkSync("..", path.join(ws, ".codegraph")),
  ".codegraph/.gitignore -> ../../victim": (ws) => {
    fs.mkdirSync(path.join(ws, ".codegraph"));
    fs.symlinkSync("../../victim", path.join(ws, ".codegraph", ".gitignore"));
  },
};

for (const impl of implementations) {
  describe(`${impl.name}: init with the real CodeGraph CLI through a shipped link`, {
    skip: cliMissing,
    timeout: 60000,
  }, () => {
    for (const [name, link] of Object.entries(LINKS)) {
      test(`${name}: refused before CodeGraph starts; the parent is byte-identical`, async () => {
        const { outer, ws } = shopWith(link);
        const before = snapshot(outer);
        const env = { PATH: realPath.join(path.delimiter), DO_NOT_TRACK: "1", PI_CODEGRAPH_BIN: undefined };
        const err = await withEnv(env, () => impl.module.run(verbCommand("init"), ws)).then(
          () => null,
          (e) => e,
        );
        assert.equal(err?.code, "CODEGRAPH_NO_INDEX", String(err?.message ?? "init ran"));
        assert.match(err.message, /not this workspace's own to write/);
        assert.deepEqual(snapshot(outer), before);
      });
    }
  });
}

test("real Pi, print mode: /codegraph init --yes with .codegraph -> .. says the refusal and writes nothing", {
  skip: piMissing || cliMissing,
  timeout: 60000,
}, async () => {
  const { outer, ws } = shopWith(LINKS[".codegraph -> .."]);
  const { home, agentDir } = piScratch("pi-codegraph-vb-pi-");
  writeModelsJson(agentDir, "http://127.0.0.1:9/v1", ["fake-unused"]);
  const before = snapshot(outer);
  const args = ["-p", "--offline", "--no-session", "--no-context-files", "--no-extensions", "-e", root];
  const run = await runPi([...args, "--provider", "fake", "--model", "fake-unused", "/codegraph init --yes"], {
    cwd: ws,
    env: piEnv({ agentDir, home, pathDirs: realPath }),
  });
  const said = `${run.stdout}${run.stderr}`;
  assert.equal(run.code, 0, said);
  assert.match(
    said,
    /\/codegraph init: refused; nothing was run\. The index directory .*shop\/\.codegraph .*outside the workspace/,
  );
  assert.deepEqual(snapshot(outer), before);
});

test("real Pi, rpc mode: /codegraph init with .codegraph -> .. shows no confirm dialog, only the refusal", {
  skip: piMissing || cliMissing,
  timeout: 60000,
}, async () => {
  const { outer, ws } = shopWith(LINKS[".codegraph -> .."]);
  const { home, agentDir } = piScratch("pi-codegraph-vb-rpc-");
  writeModelsJson(agentDir, "http://127.0.0.1:9/v1", ["fake-unused"]);
  const before = snapshot(outer);
  const args = ["--offline", "--no-session", "--no-context-files", "--no-extensions", "-e", root];
  const rpc = startPiRpc([...args, "--provider", "fake", "--model", "fake-unused"], {
    cwd: ws,
    env: piEnv({ agentDir, home, pathDirs: realPath }),
  });
  rpc.send({ id: "i1", type: "prompt", message: "/codegraph init" });
  const isConfirm = (e) => e.type === "extension_ui_request" && e.method === "confirm";
  const first = await rpc.waitForEvent((e) => (e.type === "response" && e.id === "i1") || isConfirm(e), {
    timeoutMs: 30000,
    what: "/codegraph init to finish or ask",
  });
  if (isConfirm(first)) {
    rpc.send({ type: "extension_ui_response", id: first.id, confirmed: false }); // decline, so nothing runs
    await rpc.end();
    assert.fail(`a confirm dialog was shown before the refusal: ${first.title}`);
  }
  assert.equal(first.success, true, JSON.stringify(first));
  const notes = rpc.events.filter((e) => e.type === "extension_ui_request" && e.method === "notify");
  assert.ok(
    notes.some((n) =>
      /^\/codegraph init: refused; nothing was run\. The index directory .* outside the workspace/.test(n.message),
    ),
    JSON.stringify(notes),
  );
  const exit = await rpc.end();
  assert.equal(exit.code, 0, rpc.stderr);
  assert.deepEqual(snapshot(outer), before);
});
