// `/codegraph init` as a person uses it: real interactive Pi in a tmux terminal, the package
// installed, the real pinned CodeGraph CLI, and an UNINDEXED copy of the shop fixture inside a
// project that has an index. The status bar says "no index here (parent project has one)"; the
// user types `/codegraph init`, picks "a new index here" in Pi's select (the other choice is the
// enclosing project's index), and the very next question is answered by codegraph_explore from
// the new index. (The README's path, readme-path.test.mjs, goes through Pi's confirm instead.)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { root, tempDir, waitFor } from "../helpers/index.mjs";
import { piMissing } from "../helpers/pi-harness.mjs";
import { writeIndex } from "../helpers/roots.mjs";
import { startTuiPi, tmuxMissing } from "../helpers/tmux-pi.mjs";

const REQUEST = "how does CheckoutService.checkout call charge";

let scratch;
let server;
let ws;
let pi;
const screen = () => pi.screen();

before(async () => {
  if (piMissing || tmuxMissing) return;
  scratch = tempDir("pi-codegraph-tui-init-");
  writeIndex(path.join(scratch, "project")); // the enclosing project's index
  ws = path.join(scratch, "project", "ws");
  fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
  fs.rmSync(path.join(ws, ".codegraph"), { recursive: true, force: true });
  const nodeDir = path.dirname(process.execPath);
  const pathDirs = [path.join(root, "node_modules", ".bin"), nodeDir, "/usr/bin", "/bin"].join(path.delimiter);
  server = await startFakeOpenAI({ request: REQUEST });
  const name = `pi-codegraph-tui-init-${process.pid}`;
  pi = await startTuiPi({ name, scratch, cwd: ws, baseUrl: server.baseUrl, pathDirs });
});

after(async () => {
  pi?.stop();
  await server?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test("interactive Pi: /codegraph init below an indexed project, a new index picked in Pi's select, and the next question is answered", {
  skip: piMissing || tmuxMissing,
  timeout: 90000,
}, async () => {
  await waitFor(() => screen().includes("⬡ codegraph: no index here (parent project has one)"), {
    timeoutMs: 20000,
    what: "the no-index status",
  });
  assert.ok(!fs.existsSync(path.join(ws, ".codegraph")), "nothing indexed before the user asks");
  pi.type("/codegraph init");
  await waitFor(() => screen().includes("/codegraph init") && !screen().includes("Create this workspace's"), {
    what: "the typed command without a completion list",
  });
  pi.keys("Enter");
  await waitFor(() => screen().includes("has a CodeGraph index. Which should the tools use here?"), {
    what: "Pi's select",
  }).catch((e) => {
    throw new Error(`${e.message}; screen:\n${screen()}`);
  });
  assert.match(screen(), /Its index \(adds .*\/project as a project; nothing is indexed\)/);
  assert.match(screen(), /A new index of .*\/project\/ws only \(codegraph init\)/);
  pi.keys("Down", "Enter"); // the second choice: a new index here
  const done = await waitFor(() => (/\/codegraph init: done in \d+\.\d s/.test(screen()) ? screen() : null), {
    timeoutMs: 60000,
    what: "init to finish",
  }).catch((e) => {
    throw new Error(`${e.message}; screen:\n${screen()}`);
  });
  assert.match(done, /Indexed 7 files/);
  assert.ok(fs.existsSync(path.join(ws, ".codegraph", "codegraph.db")), "the user's init made the index");
  await waitFor(() => !screen().includes("⬡ codegraph: no index"), { what: "the status bar to follow" });

  pi.keys("How does checkout reach charge?", "Enter");
  const answered = await waitFor(() => (/codegraph 1\.6\.1/.test(screen()) ? screen() : null), {
    timeoutMs: 30000,
    what: "the explore result",
  });
  assert.match(answered, new RegExp(`codegraph_explore ${REQUEST}`));
  assert.match(answered, /^\s*Flow \(call path/m);
  assert.doesNotMatch(answered, /CODEGRAPH_NO_INDEX/);
});
