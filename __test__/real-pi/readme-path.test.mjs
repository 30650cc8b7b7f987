// A newcomer's path from the README into Pi, on a fresh clone (CI's `quickstart` step runs this
// file in the clone it built, PI_CODEGRAPH_README_CHECKOUT): the README's "Into Pi" commands as
// written, in a scratch HOME where `~/your-project` is a copy of the shop fixture and
// `~/path/to/pi-codegraph` the clone; `pi` is the clone's pinned Pi (the README's global install)
// and no `codegraph` is on PATH (the clone's pinned CLI, beside pi-codegraph, runs), the default
// model a loopback fake (Pi's own settings.json).
// Step 1 is the quick start's first command, which the step has just run; step 2 runs verbatim in
// tmux; steps 3 and 4 are typed: `/codegraph init` (Pi's confirm, then done) and a question,
// whose codegraph_explore row is checked on the screen, then `/codegraph`. With
// PI_CODEGRAPH_SCREENSHOTS (a directory), the README's pictures are drawn from what tmux shows
// (docs/images: `tool-row.svg`, `codegraph-report.svg`).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import Anser from "anser";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { tempDir, waitFor } from "../helpers/index.mjs";
import { writeModelsJson } from "../helpers/pi-harness.mjs";
import { screenSvg } from "../helpers/screenshot.mjs";

const checkout = process.env.PI_CODEGRAPH_README_CHECKOUT;
const tmuxMissing = spawnSync("tmux", ["-V"]).status === 0 ? false : "tmux is not installed";
const skip = !checkout ? "run by CI's quickstart step (PI_CODEGRAPH_README_CHECKOUT: a built clone)" : tmuxMissing;
const REQUEST = "how does CheckoutService.checkout call charge";

/** The commands of the first code block under `heading`, without their trailing comments. */
function readmeCommands(readme, heading) {
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  const block = section.match(/```sh\n([\s\S]*?)```/)?.[1] ?? "";
  return block
    .split("\n")
    .map((l) => l.replace(/\s+# .*$/, "").trim())
    .filter(Boolean);
}

let scratch;
let server;
let tmux;
const name = `pi-codegraph-readme-${process.pid}`;
const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", name);
/** The screen's lines with their escape sequences (colours), and as text. */
const coloured = () => {
  const lines = tmux("capture-pane", "-p", "-e", "-J", "-S", "-200", "-t", name).split("\n");
  return { lines, text: lines.map((l) => Anser.ansiToText(l).trimEnd()) };
};
/** Writes the picture of the rows `from` (inclusive) to `to` (inclusive) of `shot` as `file` in PI_CODEGRAPH_SCREENSHOTS. */
function picture(shot, from, to, file, title) {
  const dir = process.env.PI_CODEGRAPH_SCREENSHOTS;
  if (!dir || from < 0 || to < from) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, file), screenSvg(shot.lines.slice(from, to + 1), { title }));
}

before(async () => {
  if (skip) return;
  scratch = tempDir("pi-codegraph-readme-");
  const home = path.join(scratch, "home");
  fs.cpSync(path.join(checkout, "__test__", "fixtures", "shop"), path.join(home, "your-project"), { recursive: true });
  fs.mkdirSync(path.join(home, "path", "to"), { recursive: true });
  fs.symlinkSync(checkout, path.join(home, "path", "to", "pi-codegraph"));
  // `pi` as the README's global install puts it on PATH. No global CodeGraph: the checkout's
  // pinned CLI, installed beside pi-codegraph by step 1, is the one that runs.
  const bin = path.join(scratch, "bin");
  fs.mkdirSync(bin);
  const piDir = path.join(checkout, "node_modules", "@earendil-works", "pi-coding-agent");
  const piCli = path.join(piDir, JSON.parse(fs.readFileSync(path.join(piDir, "package.json"), "utf8")).bin.pi);
  fs.writeFileSync(path.join(bin, "pi"), `#!/bin/sh\nexec "${process.execPath}" "${piCli}" "$@"\n`, { mode: 0o755 });
  server = await startFakeOpenAI({ request: REQUEST });
  const agentDir = path.join(home, ".pi", "agent");
  writeModelsJson(agentDir, server.baseUrl, ["readme-model"]);
  fs.writeFileSync(
    path.join(agentDir, "settings.json"),
    `${JSON.stringify({ defaultProvider: "fake", defaultModel: "readme-model" })}\n`,
  );
  const env = {
    HOME: home,
    PATH: [bin, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
    PI_OFFLINE: "1",
    TERM: "xterm-256color",
    COLORTERM: "truecolor", // Pi's theme in its own colours (the pictures show them)
  };
  tmux = (...args) => execFileSync("tmux", ["-L", name, ...args], { encoding: "utf8" });
  const [, step2] = readmeCommands(
    fs.readFileSync(path.join(checkout, "README.md"), "utf8"),
    "## Into Pi, from a checkout",
  );
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", home, "env", ...envArgs, "bash", "-c", step2);
});

after(async () => {
  try {
    tmux?.("kill-server");
  } catch {}
  await server?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test("the README's steps into Pi: step 1 is the quick start's, step 2 as written, /codegraph init, then an answer", {
  skip,
  timeout: 120000,
}, async (t) => {
  const readme = fs.readFileSync(path.join(checkout, "README.md"), "utf8");
  const [step1, step2] = readmeCommands(readme, "## Into Pi, from a checkout");
  const [quick] = readmeCommands(readme, "## Quick start");
  assert.ok(quick.startsWith(`${step1} && `), `the quick start (${quick}) runs step 1 (${step1})`);
  t.diagnostic(`step 2: ${step2}`);

  const seen = (text, what, timeoutMs = 20000) =>
    waitFor(() => (screen().includes(text) ? screen() : null), { timeoutMs, what }).catch((e) => {
      throw new Error(`${e.message}; screen:\n${screen()}`);
    });
  await seen("⬡ codegraph: no index", "Pi started in the project, with the extension's status");
  const typed = async (command, listed) => {
    tmux("send-keys", "-t", name, "-l", command);
    await waitFor(() => screen().includes(command) && !screen().includes(listed), { what: `${command} typed` });
    tmux("send-keys", "-t", name, "Enter");
  };
  await typed("/codegraph init", "Create this workspace's CodeGraph index");
  await seen("Create the CodeGraph index?", "Pi's confirm dialog");
  tmux("send-keys", "-t", name, "Enter");
  await seen("/codegraph init: done in", "the index written", 60000);
  tmux("send-keys", "-t", name, "-l", "How does checkout reach charge?");
  tmux("send-keys", "-t", name, "Enter");
  const answered = await seen("codegraph 1.6.1", "the tool's row with its footer", 30000);
  assert.match(answered, new RegExp(`codegraph_explore ${REQUEST}`));
  assert.match(answered, /CheckoutService/);
  assert.match(answered, /⬡ codegraph\b(?!:)/, "the status bar says ready");
  // The tool's row, collapsed, from its call line to its footer: the README's picture.
  const shot = coloured();
  const first = shot.text.findLastIndex((l) => l.includes(`codegraph_explore ${REQUEST}`));
  const last = shot.text.findIndex((l, i) => i > first && l.includes("codegraph 1.6.1"));
  assert.ok(first >= 0 && last > first, shot.text.join("\n"));
  picture(shot, first, last, "tool-row.svg", "A codegraph_explore call in Pi, collapsed");
  t.diagnostic(shot.text.slice(first, last + 1).join("\n"));

  // `/codegraph`: ready, in a line or two, with the status bar.
  tmux("send-keys", "-t", name, "-l", "/codegraph");
  tmux("send-keys", "-t", name, "Enter");
  await seen("/codegraph doctor shows the details", "the short /codegraph report");
  const report = coloured();
  const head = report.text.findLastIndex((l) => l.includes("pi-codegraph: ready"));
  assert.ok(head >= 0, report.text.join("\n"));
  const end = report.text.findLastIndex((l) => l.includes("⬡ codegraph"));
  picture(report, head, end, "codegraph-report.svg", "/codegraph in Pi: ready, and the status bar");
});
