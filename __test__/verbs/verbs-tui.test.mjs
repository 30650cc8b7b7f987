// A `/codegraph` verb as a person sees it: real interactive Pi 0.73.1 in a tmux terminal, the
// package installed (`pi install <dir>`), the fake CLI on PATH with its gate (helpers/
// fake-codegraph.js) holding `codegraph index` mid-write. Asserts on the screen: Pi's confirm
// dialog, the BorderedLoader with the phase, the file counts and the elapsed time, and that Esc
// stops the CLI's whole process tree and says so.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { fakeBinDir, isAlive, makeWorkspace, readJsonFile, tempDir, waitFor } from "../helpers/index.mjs";
import { piMissing } from "../helpers/pi-harness.mjs";
import { startTuiPi, tmuxMissing } from "../helpers/tmux-pi.mjs";

let pi;
const screen = () => pi.screen();

let scratch;
let gate;
let ws;
const strays = [];

before(async () => {
  if (piMissing || tmuxMissing) return;
  scratch = tempDir("pi-codegraph-verbs-tui-");
  gate = path.join(scratch, "gate");
  fs.mkdirSync(gate);
  ws = makeWorkspace();
  const bin = fakeBinDir();
  const pathDirs = [bin, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);
  const name = `pi-codegraph-verbs-tui-${process.pid}`;
  // The model is never called: commands only.
  const baseUrl = "http://127.0.0.1:9";
  pi = await startTuiPi({ name, scratch, cwd: ws, baseUrl, pathDirs, env: { FAKE_CG_GATE: gate } });
});

after(() => {
  pi?.stop();
  for (const pid of strays) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  if (ws) fs.rmSync(ws, { recursive: true, force: true });
});

test("interactive Pi: /codegraph rebuild asks, shows a loader with file counts and time, and Esc stops the CLI's tree", {
  skip: piMissing || tmuxMissing,
  timeout: 60000,
}, async (t) => {
  await waitFor(() => screen().includes("⬡ codegraph"), { timeoutMs: 20000, what: "Pi's status bar" });
  pi.type("/codegraph rebuild");
  // Typed in full, the verb has no completion left: wait for the list to close, then Enter runs it.
  await waitFor(
    () => screen().includes("/codegraph rebuild") && !screen().includes("Recreate the index from scratch"),
    {
      what: "the typed command without a completion list",
    },
  );
  pi.keys("Enter");
  await waitFor(() => screen().includes("Rebuild the CodeGraph index?"), { what: "Pi's confirm dialog" }).catch((e) => {
    throw new Error(`${e.message}; screen:\n${screen()}`);
  });
  assert.match(screen(), /stops a running CodeGraph MCP daemon for this project/);
  pi.keys("Enter"); // "Yes" is the first choice
  const pids = await waitFor(() => readJsonFile(path.join(gate, "started.json")), { what: "the fake at its gate" });
  strays.push(pids.self, pids.grandchild);
  const shown = await waitFor(
    () =>
      /codegraph rebuild: step 2 of 4, parsing 3\/7 files · ▰▰▰▰▱▱▱▱▱▱ 36% · [1-9]\d* s/.test(screen())
        ? screen()
        : null,
    { timeoutMs: 15000, what: "the loader with file counts and a second elapsed" },
  );
  assert.match(shown, /cancel/, "the loader names its cancel key");
  const loaderLines = shown.split("\n").filter((l) => /codegraph rebuild:|cancel/.test(l));
  t.diagnostic(`loader: ${loaderLines.map((l) => l.trim()).join(" / ")}`);
  pi.keys("Escape");
  await waitFor(() => /\/codegraph rebuild: cancelled after \d+\.\d s/.test(screen()), {
    timeoutMs: 15000,
    what: "the cancel to be reported",
  });
  await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), {
    timeoutMs: 5000,
    what: "the CLI and its grandchild to be gone",
  });
});
