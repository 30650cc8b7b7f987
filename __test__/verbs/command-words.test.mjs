// `/codegraph` as Pi lists and answers it before any verb runs: a description as short as Pi's own,
// bare /codegraph in at most three lines with the next step, the whole report under `doctor`,
// `help` (and --help, -h, ?), and "did you mean" for a mistyped verb; none of them runs the CLI.
// The same on screen in the real TUI: __test__/real-pi/pi-tui.test.mjs.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { makeWorkspace, readLog, tempDir, useAgentDirEnv, withEnv } from "../helpers/index.mjs";
import { hostWith, recordingUi, runCommand } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const pkg = require("../../index.js");
const { COMMAND_DESCRIPTION, VERB_LINES } = require("../../lib/words/command.js");
const { closestWord } = require("../../lib/pi/commands/did-you-mean.js");
useAgentDirEnv();

/** A session in `cwd`: `cg(args)` runs `/codegraph <args>` and gives `{ text, type, argvs }`, what it said and ran. */
async function session(cwd) {
  const host = await hostWith(pkg, "command-words");
  const ui = recordingUi();
  const ctx = { cwd, hasUI: true, ui };
  await host.startSession(ctx);
  const cg = async (args) => {
    const log = path.join(tempDir("pi-codegraph-words-log-"), "log.jsonl");
    const from = ui.notes.length;
    await withEnv({ FAKE_CG_LOG: log }, () => runCommand(host, ctx, "codegraph", args));
    const said = ui.notes.slice(from);
    assert.equal(said.length, 1, `one notification for /codegraph ${args}`);
    const argvs = fs.existsSync(log) ? readLog(log).map((r) => r.argv) : [];
    return { text: said[0].message, type: said[0].type, argvs };
  };
  return { host, ctx, ui, cg, command: host.commands.get("codegraph") };
}

test("Pi lists /codegraph with a description of at most 8 words, and completes doctor and help", async () => {
  assert.ok(COMMAND_DESCRIPTION.split(/\s+/).length <= 8, COMMAND_DESCRIPTION);
  const s = await session(makeWorkspace());
  assert.equal(s.command.description, COMMAND_DESCRIPTION);
  const offered = (await s.command.getArgumentCompletions("d")).map((i) => i.value);
  assert.deepEqual(offered, ["doctor"]);
  assert.deepEqual(
    (await s.command.getArgumentCompletions("he")).map((i) => i.value),
    ["help"],
  );
});

test("bare /codegraph: the state and where the rest is; when not ready, the next step; the CLI's status is not run", async () => {
  const ready = await session(makeWorkspace());
  const said = await ready.cg("");
  assert.deepEqual(said.text.split("\n"), [
    "pi-codegraph: ready",
    "/codegraph doctor shows the details, /codegraph help the verbs.",
  ]);
  assert.equal(said.type, "info");
  assert.deepEqual(
    said.argvs.filter((a) => a[0] !== "--version"),
    [],
  );

  const bare = await session(makeWorkspace({ index: false }));
  const lines = (await bare.cg("")).text.split("\n");
  assert.equal(lines.length, 3, lines.join("\n"));
  assert.match(lines[0], /^pi-codegraph: not ready \(CODEGRAPH_NO_INDEX\): /);
  assert.equal(lines[1], "Next: /codegraph init indexes this workspace.");

  // Below a project with an index: the step is the choice /codegraph init offers.
  const project = makeWorkspace();
  const sub = path.join(project, "packages", "core");
  fs.mkdirSync(sub, { recursive: true });
  const below = (await (await session(sub)).cg("")).text.split("\n");
  assert.equal(below.length, 3, below.join("\n"));
  assert.equal(below[1], `Next: /codegraph init offers the enclosing project's index (${project}) or a new one here.`);
});

test("bare /codegraph after an edit names the files and /codegraph sync as the next step", async () => {
  const ws = makeWorkspace();
  const s = await session(ws);
  const file = path.join(ws, "src", "late.ts");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "export const late = 1;\n");
  await s.host.toolResult({ toolName: "write", input: { path: file } }, s.ctx);
  const lines = (await s.cg("")).text.split("\n");
  assert.deepEqual(lines.slice(1), [
    "Next: /codegraph sync brings the index up to date.",
    "/codegraph doctor shows the details, /codegraph help the verbs.",
  ]);
  assert.match(lines[0], /^pi-codegraph: ready, 1 file changed since the index: src\/late\.ts$/);
});

test("/codegraph doctor: the whole report (runner, CLI, index, parallel limit, last error)", async () => {
  const s = await session(makeWorkspace());
  const { text } = await s.cg("doctor");
  for (const line of [
    /^pi-codegraph: ready$/m,
    /^runner: /m,
    /^codegraph: /m,
    /^index: /m,
    /^parallel: /m,
    /^last error: none$/m,
  ]) {
    assert.match(text, line);
  }
});

test("/codegraph help, --help, -h and ? list every verb on a line of its own and run nothing", async () => {
  const s = await session(makeWorkspace());
  const help = await s.cg("help");
  assert.equal(help.type, "info");
  const lines = help.text.split("\n");
  for (const verb of Object.keys(VERB_LINES)) {
    assert.equal(lines.filter((l) => l.startsWith(`/codegraph ${verb} `)).length, 1, verb);
  }
  for (const alias of ["--help", "-h", "?", "HELP"]) assert.equal((await s.cg(alias)).text, help.text, alias);
  assert.deepEqual(help.argvs, []);
});

test("a mistyped verb gets the verb it most likely meant, and nothing runs", async () => {
  const s = await session(makeWorkspace());
  for (const [typed, meant] of [
    ["snyc", "sync"],
    ["rebuld", "rebuild"],
    ["stauts", "status"],
    ["unint", "uninit"],
    ["canel", "cancel"],
    ["tool", "tools"],
    ["doctr", "doctor"],
    ["snyc web", "sync"],
  ]) {
    const said = await s.cg(typed);
    assert.equal(said.text, `/codegraph: unknown verb ${JSON.stringify(typed)}. Did you mean /codegraph ${meant}?`);
    assert.equal(said.type, "warning");
    assert.deepEqual(said.argvs, [], typed);
  }
  // Nothing close, or two verbs as close: the list of verbs instead of a guess.
  for (const typed of ["frobnicate", "x", "s", "sync --force"]) {
    assert.match(
      (await s.cg(typed)).text,
      /\. Verbs: status, init, sync, .*\/codegraph help says what each does/,
      typed,
    );
  }
});

test("closestWord: one clear guess or none", () => {
  const verbs = Object.keys(VERB_LINES);
  assert.equal(closestWord("SYNC", verbs), "sync");
  assert.equal(closestWord("ini", verbs), "init");
  assert.equal(closestWord("u", verbs), undefined, "uninit and unlock both start with u");
  assert.equal(closestWord("stus", verbs), undefined, "two edits in a short word");
  assert.equal(closestWord("", verbs), undefined);
});

test("the status slot is coloured from Pi's theme in the terminal: warning for a step to take, error for what is missing, none when current", async () => {
  const theme = { fg: (colour, text) => `<${colour}>${text}</${colour}>`, bold: (t) => t };
  const slotIn = async (cwd, env = {}, mode = "tui") => {
    const host = await hostWith(pkg, "command-words");
    const ui = { ...recordingUi(), theme };
    await withEnv(env, () => host.startSession({ cwd, hasUI: true, ui, mode }));
    return ui.statuses.get("codegraph");
  };
  assert.equal(await slotIn(makeWorkspace()), "⬡ codegraph");
  assert.equal(await slotIn(makeWorkspace({ index: false })), "<warning>⬡ codegraph: no index</warning>");
  assert.equal(
    await slotIn(makeWorkspace(), { PATH: "/nonexistent" }),
    "<error>⬡ codegraph: CLI not installed</error>",
  );
  const ws = makeWorkspace();
  const host = await hostWith(pkg, "command-words");
  const ui = { ...recordingUi(), theme };
  const ctx = { cwd: ws, hasUI: true, ui, mode: "tui" };
  await host.startSession(ctx);
  fs.writeFileSync(path.join(ws, "late.ts"), "export const late = 1;\n");
  await host.toolResult({ toolName: "write", input: { path: path.join(ws, "late.ts") } }, ctx);
  assert.equal(ui.statuses.get("codegraph"), "<warning>⬡ codegraph · 1 file changed since the index</warning>");
  // rpc: the client gets the words alone.
  assert.equal(await slotIn(makeWorkspace({ index: false }), {}, "rpc"), "⬡ codegraph: no index");
});

test("a write's progress: one bar for the whole write that never goes back as CodeGraph moves through its phases", () => {
  const { progressText } = require("../../lib/words/verbs.js");
  const steps = [];
  for (const phase of ["scanning", "parsing", "resolving", "linking"])
    for (const percent of [0, 50, 100]) steps.push({ phase, done: percent, total: 100, percent });
  const shown = steps.map((p) => progressText("init", p, 4000, false));
  const bars = shown.map((t) => Number(/▰*▱* (\d+)%/.exec(t)[1]));
  assert.deepEqual(
    bars.map((b, i) => i === 0 || b >= bars[i - 1]),
    bars.map(() => true),
    shown.join("\n"),
  );
  assert.equal(bars.at(-1), 100);
  assert.match(shown[4], /^codegraph init: step 2 of 4, parsing 50\/100 files · ▰▰▰▰▱▱▱▱▱▱ 42% · 4 s$/);
  // Each count with what it counts.
  assert.match(shown[7], /step 3 of 4, resolving 50\/100 references · /);
  assert.match(shown[10], /step 4 of 4, linking 50\/100 passes · /);
});
