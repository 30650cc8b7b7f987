// Rows that survive /reload and resume, as a person sees them: real interactive Pi in tmux with
// its session kept, a loopback model that calls codegraph_explore, then codegraph_node. After
// `/reload` and after `pi -c` (the session resumed by a new Pi), both rows are drawn by the
// package's renderers as before (the request or the symbol on one line, the collapsed answer
// with its footer), never by Pi's default (the arguments as JSON, the whole answer); and a
// bare `/codegraph` typed before them is drawn again as its card (a report kept in the transcript).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { root, tempDir, waitFor } from "../helpers/index.mjs";
import { piMissing } from "../helpers/pi-harness.mjs";
import { startTuiPi, tmuxMissing } from "../helpers/tmux-pi.mjs";

const REQUEST = "how does CheckoutService.checkout call charge";
const SYMBOL = "applyDiscount";

let scratch;
let server;
let pi;
const screen = () => pi.screen();

before(async () => {
  if (piMissing || tmuxMissing) return;
  scratch = tempDir("pi-codegraph-history-");
  const ws = path.join(scratch, "ws");
  fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
  const pathDirs = [path.join(root, "node_modules", ".bin"), path.dirname(process.execPath), "/usr/bin", "/bin"].join(
    path.delimiter,
  );
  execFileSync(path.join(root, "node_modules", ".bin", "codegraph"), ["init", "-y", "."], {
    cwd: ws,
    env: { ...process.env, DO_NOT_TRACK: "1", PATH: pathDirs },
    stdio: "ignore",
  });
  // The first question is answered with an explore call, the second with a node call.
  const plan = (body) => {
    if (body?.messages?.at(-1)?.role !== "user") return [];
    const asked = body.messages.filter((m) => m.role === "user").length;
    return asked === 1
      ? [{ id: "call_explore_1", name: "codegraph_explore", arguments: { request: REQUEST } }]
      : [{ id: "call_node_1", name: "codegraph_node", arguments: { symbol: SYMBOL } }];
  };
  server = await startFakeOpenAI({ plan });
  pi = await startTuiPi({
    name: `pi-codegraph-history-${process.pid}`,
    scratch,
    cwd: ws,
    baseUrl: server.baseUrl,
    pathDirs,
    session: true,
    rows: 90, // the whole transcript on screen: Pi redraws it at /reload, with no scrollback
  });
});

after(async () => {
  pi?.stop();
  await server?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** Both rows drawn by the package's renderers: each call on one line, each answer collapsed with its footer. */
function assertRowsDrawn(shown, when) {
  assert.match(shown, new RegExp(`codegraph_explore ${REQUEST}`), `${when}: the explore row's request`);
  assert.match(shown, new RegExp(`codegraph_node ${SYMBOL}`), `${when}: the node row's symbol`);
  assert.doesNotMatch(shown, /"request"|"symbol"/, `${when}: no arguments as JSON`);
  // Under the node answer (not its call row), the command it ran and where.
  assert.match(
    shown,
    new RegExp(`codegraph_node ${SYMBOL} *\\n *\\$ codegraph node -- '${SYMBOL}' · in \\S+/ws`),
    when,
  );
  assert.equal(shown.match(/· codegraph 1\.6\.1/g)?.length, 2, `${when}: two collapsed answers with their footers`);
  assert.match(shown, REPORT_CARD, `${when}: the report's card`);
}

/** Bare /codegraph's card: its title alone on a line, then the report (Pi draws a custom entry only through its renderer). */
const REPORT_CARD = /^ *\/codegraph *\n *pi-codegraph: ready *\n/m;

const bothRows = (shown) =>
  shown.includes(`codegraph_node ${SYMBOL}`) && (shown.match(/· codegraph 1\.6\.1/g)?.length ?? 0) >= 2;

test("an explore row and a node row are drawn as before after /reload and after pi -c", {
  skip: piMissing || tmuxMissing,
  timeout: 120000,
}, async () => {
  await waitFor(() => screen().includes("⬡ codegraph"), { timeoutMs: 20000, what: "Pi's status bar" });
  pi.keys("/codegraph", "Enter");
  await waitFor(() => REPORT_CARD.test(screen()), { timeoutMs: 10000, what: "the report's card" });
  pi.keys("How does checkout reach charge?", "Enter");
  await waitFor(() => /· codegraph 1\.6\.1/.test(screen()), { timeoutMs: 30000, what: "the explore row" });
  pi.keys("Where is applyDiscount?", "Enter");
  assertRowsDrawn(
    await waitFor(() => (bothRows(screen()) ? screen() : null), { timeoutMs: 30000, what: "the node row" }),
    "drawn",
  );

  const seen = (what) =>
    waitFor(() => (bothRows(screen()) ? screen() : null), { timeoutMs: 30000, what }).catch((e) => {
      throw new Error(`${e.message}; screen:\n${screen()}`);
    });
  // The second turn over (the model's closing text after the node row): Pi refuses /reload while
  // a response runs ("Wait for the current response to finish before reloading").
  await waitFor(() => screen().split("FAKE_MODEL_DONE").length > 2, { timeoutMs: 30000, what: "the turn's end" });
  pi.tmux("clear-history", "-t", `pi-codegraph-history-${process.pid}`);
  const reloaded = () => screen().includes("Reloaded keybindings");
  const refusals = () => screen().split("before reloading").length;
  // Enter once the editor shows the command (keys typed ahead of it may be read before it). Pi's
  // completion list may take that Enter (it completes the command), and a response still ending
  // refuses it: then it is typed again, a few times at most.
  for (let attempt = 0; attempt < 3 && !reloaded(); attempt += 1) {
    const before = refusals();
    pi.type("/reload");
    await waitFor(() => screen().includes("/reload"), { what: "the typed /reload" });
    pi.keys("Enter");
    await waitFor(() => reloaded() || refusals() > before, { timeoutMs: 10000, what: "the reload" }).catch(() => {});
    if (!reloaded()) pi.keys("C-u"); // the editor emptied for the next attempt
  }
  await waitFor(reloaded, { timeoutMs: 30000, what: "the reload" }).catch((e) => {
    throw new Error(`${e.message}; screen:\n${screen()}`);
  });
  assertRowsDrawn(await seen("the rows after /reload"), "after /reload");

  pi.relaunch("-c");
  // The new Pi's screen: its status bar, and none of the reloaded one's lines.
  const fresh = () => screen().includes("⬡ codegraph") && !screen().includes("Reloaded keybindings");
  await waitFor(fresh, { timeoutMs: 20000, what: "the resumed Pi's screen" });
  assertRowsDrawn(await seen("the rows after pi -c"), "after pi -c");
});
