// The tool as a person sees it: real interactive Pi in a tmux terminal, with the package
// installed (`pi install <dir>`), a loopback fake model, and the real CodeGraph CLI on the
// indexed example fixture. Asserts on the screen: the status slot, the call row (the request
// once), the collapsed result with its footer, the expanded result drawn by Pi's Markdown, and
// /codegraph: the short report, doctor, did-you-mean and help; then a file changed by the user's
// own `!` command: the status bar's count, /codegraph naming it and the sync, and the next row's
// stale tag.
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

let scratch;
let ws;
let server;
let pi;
const screen = () => pi.screen();

before(async () => {
  if (piMissing || tmuxMissing) return;
  scratch = tempDir("pi-codegraph-tui-");
  ws = path.join(scratch, "ws");
  fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), ws, { recursive: true });
  const nodeDir = path.dirname(process.execPath);
  const pathDirs = [path.join(root, "node_modules", ".bin"), nodeDir, "/usr/bin", "/bin"].join(path.delimiter);
  execFileSync(path.join(root, "node_modules", ".bin", "codegraph"), ["init", "-y", "."], {
    cwd: ws,
    env: { ...process.env, DO_NOT_TRACK: "1", PATH: pathDirs },
    stdio: "ignore",
  });
  // Every question the user asks is answered with one explore call.
  let calls = 0;
  const plan = (body) =>
    body?.messages?.at(-1)?.role === "user" ? [{ id: `call_cg_${++calls}`, request: REQUEST }] : [];
  server = await startFakeOpenAI({ request: REQUEST, plan });
  const name = `pi-codegraph-tui-${process.pid}`;
  pi = await startTuiPi({ name, scratch, cwd: ws, baseUrl: server.baseUrl, pathDirs });
});

after(async () => {
  pi?.stop();
  await server?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test("interactive Pi shows the status, the call, the collapsed and expanded result, and /codegraph", {
  skip: piMissing || tmuxMissing,
  timeout: 60000,
}, async () => {
  await waitFor(() => screen().includes("⬡ codegraph"), { timeoutMs: 20000, what: "Pi's status bar" });
  // Pi lists the extension by its package alone (its entry is extensions/index.js), not by
  // package and file ("…tgz:extension.js").
  assert.match(screen(), /^\s*pi-codegraph@file:\S+\.tgz\s*$/m, "Pi's [Extensions] list");
  pi.keys("How does checkout reach charge?", "Enter");
  const collapsed = await waitFor(() => (/codegraph 1\.6\.1/.test(screen()) ? screen() : null), {
    timeoutMs: 30000,
    what: "the tool result",
  });
  assert.match(collapsed, new RegExp(`codegraph_explore ${REQUEST}`));
  assert.doesNotMatch(collapsed, /\$ codegraph explore/, "the request is shown once");
  // The preview drawn as the expanded view is, in brief: no Markdown markers.
  assert.match(collapsed, /^\s*Flow \(call path/m);
  assert.doesNotMatch(collapsed, /\*\*Flow|```/);
  // Pi's own expand hint, naming the key Pi binds (its keyHint, as its read and bash tools show it).
  assert.match(collapsed, /… \d+ more lines, ctrl\+o to expand/);
  assert.match(collapsed, /\d+\.\dKB · \d+ lines · \d+\.\d\ds · codegraph 1\.6\.1/);
  assert.doesNotMatch(
    collapsed,
    /\*\*Source Code\*\*|function applyDiscount\(amountCents/,
    "collapsed: a preview only",
  );

  pi.keys("C-o");
  // Expanded, the whole answer (drawn by Pi's Markdown component): its last file's source (the
  // answer's head scrolls off a 50-line screen).
  const expanded = await waitFor(
    () => (screen().includes("function applyDiscount(amountCents: number") ? screen() : null),
    { timeoutMs: 10000, what: "the expanded result" },
  );
  // Rendered, not raw: a file's header without the answer's own `**` and backticks (Pi's
  // Markdown keeps a code block's fence lines, styled, as it draws its own).
  assert.match(expanded, /^ src\/cart\.ts — calculateTotal\(function\)/m, "headers drawn");
  assert.doesNotMatch(expanded, /\*\*`src\/[^`]+`\*\*/, "headers drawn, not starred");

  // Bare /codegraph: the state and where the rest is, in at most three lines.
  pi.keys("/codegraph", "Enter");
  const brief = await waitFor(() => (screen().includes("/codegraph doctor shows the details") ? screen() : null), {
    timeoutMs: 10000,
    what: "the short /codegraph report",
  });
  assert.match(brief, /pi-codegraph: ready *\n.*\/codegraph doctor shows the details, \/codegraph help the verbs\./);
  assert.doesNotMatch(brief, /last error:|runner:/, "the diagnostic is /codegraph doctor's");

  /** Types `command`, waits until Pi's completion list no longer shows `listed`, then runs it. */
  const submit = async (command, listed) => {
    pi.type(command);
    await waitFor(() => screen().includes(command) && !screen().includes(listed), {
      what: `${command} typed, without a completion list`,
    });
    pi.keys("Enter");
  };
  await submit("/codegraph doctor", "Everything pi-codegraph knows here");
  const report = await waitFor(() => (screen().includes("last error: none") ? screen() : null), {
    timeoutMs: 10000,
    what: "the /codegraph doctor report",
  });
  assert.match(report, /index: .*\/ws\/\.codegraph/);
  assert.match(report, /runner: /);

  await submit("/codegraph snyc", "Bring the index up to date");
  await waitFor(() => screen().includes('unknown verb "snyc". Did you mean /codegraph sync?'), {
    timeoutMs: 10000,
    what: "did you mean",
  });
  // Reports are kept in the transcript, each a card titled by what was typed: the notice after
  // them (Pi draws one dim and replaces it with the next) left both on screen.
  const kept = screen();
  assert.match(kept, /^ *\/codegraph doctor *$/m, "the doctor report's card");
  assert.match(kept, /last error: none/, "the doctor report, still on screen");
  assert.match(kept, /\/codegraph doctor shows the details/, "the short report, still on screen");
  await submit("/codegraph help", "The verbs, a line each");
  const help = await waitFor(() => (/\/codegraph help +The verbs, a line each/.test(screen()) ? screen() : null), {
    timeoutMs: 10000,
    what: "the help",
  });
  for (const verb of [
    "status",
    "init",
    "sync",
    "rebuild",
    "uninit",
    "unlock",
    "cancel",
    "tools",
    "projects",
    "doctor",
  ]) {
    assert.match(help, new RegExp(`/codegraph ${verb} +\\S`), verb);
  }

  // A file changed by the user's own shell command, which no Pi tool reports.
  pi.type("!printf 'export const late = 1;\\n' >> src/stripe.ts");
  pi.keys("Enter");
  await waitFor(() => fs.readFileSync(path.join(ws, "src", "stripe.ts"), "utf8").includes("late"), {
    what: "the user's command to write the file",
  });
  pi.keys("/codegraph", "Enter");
  const stale = await waitFor(() => (screen().includes("Next: /codegraph sync") ? screen() : null), {
    timeoutMs: 10000,
    what: "/codegraph naming the changed file",
  }).catch((e) => {
    throw new Error(`${e.message}; screen:\n${screen()}`);
  });
  assert.match(stale, /pi-codegraph: ready, 1 file changed since the index: src\/stripe\.ts/);
  assert.match(stale, /⬡ codegraph · 1 file changed since the index/, "the status bar counts it");
  pi.keys("How does checkout reach charge now?", "Enter");
  await waitFor(() => /⚠ 1 file changed since the index/.test(screen()), {
    timeoutMs: 30000,
    what: "the stale tag on the next explore row",
  }).catch((e) => {
    throw new Error(`${e.message}; screen:\n${screen()}`);
  });
});
