// The single-file example (example/codegraph-explore.js) as its user has it: a file short enough to
// read, which registers codegraph_explore and leaves running CodeGraph to this package's public API
// (`require("pi-codegraph")`, which in this checkout is the checkout itself, through package.json's
// "exports"). Real Pi loads it (`pi -e`, and copied into an agent's extensions directory beside an
// installed package) and answers a loopback model's call with the pinned CodeGraph CLI's answer on
// an indexed copy of example/workspace; Pi's extension host (helpers/pi-host.mjs) shows its
// guidance, its failures and its rendering, collapsed and expanded. The package's own contract
// (caps, timeouts, cancel, codes, both runners) is proven by the other suites, not here.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { stripVTControlCharacters } from "node:util";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { fakeBinDir, makeWorkspace, REAL_CLI_PATH, root, tempDir, withEnv } from "../helpers/index.mjs";
import {
  contentText,
  indexShop,
  oneToolCall,
  piEnv,
  piMissing,
  piScratch,
  runPi,
  tearDownPiSuite,
  toolNames,
  writeModelsJson,
} from "../helpers/pi-harness.mjs";
import {
  codegraphSaid,
  createPiHost,
  piInteractive,
  piPeers,
  plainTheme,
  recordingUi,
  renderText,
} from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const EXAMPLE = path.join(root, "example", "codegraph-explore.js");
const TOOL = "codegraph_explore";
const REQUEST = "how does NoteService.addNote reach MemoryStorage.save";
const realPath = REAL_CLI_PATH;
const WIDE = 100000; // render without wrapping: lines are compared as the answer has them

/** A copy of the shipped example workspace (its sources, not an index), indexed by the pinned CLI. */
function indexedExample(dir) {
  const notIndex = (src) => path.basename(src) !== ".codegraph";
  fs.cpSync(path.join(root, "example", "workspace"), dir, { recursive: true, filter: notIndex });
  return indexShop(dir, { copy: false });
}

/** A footer line with its numbers replaced (times differ run to run). */
const footerShape = (line) => line.replace(/\d+\.\d\ds/, "T").replace(/^\d+ lines/, "N lines");

describe("the file", () => {
  test("one file a user reads in minutes: at most 300 lines", () => {
    const lines = fs.readFileSync(EXAMPLE, "utf8").replace(/\n$/, "").split("\n").length;
    assert.ok(lines <= 300, `example/codegraph-explore.js has ${lines} lines`);
  });

  test("it runs CodeGraph through the package: require('pi-codegraph') (this checkout) and Pi's peers, nothing else", () => {
    const source = fs.readFileSync(EXAMPLE, "utf8").replace(/^\s*\/\/.*$/gm, ""); // the code, not its comments
    const required = [...source.matchAll(/require\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]).sort();
    assert.deepEqual(required, ["@earendil-works/pi-tui", "pi-codegraph", "typebox"]);
    assert.doesNotMatch(source, /\bimport\s*\(/, "no dynamic import either");
    assert.equal(createRequire(EXAMPLE).resolve("pi-codegraph"), path.join(root, "index.js"));
  });
});

describe("in Pi's extension host", () => {
  let ws;
  let example;
  let peers;
  const withPath = (dirs, fn) => withEnv({ PATH: dirs.join(path.delimiter), PI_CODEGRAPH_BIN: undefined }, fn);

  /** A host with the example (and, with `pkg`, the package before or after it), its session started in `cwd`. */
  async function session(cwd, { dirs = realPath, pkg } = {}) {
    const host = createPiHost();
    const pkgFactory = require(path.join(root, "index.js")).createExtension(() => peers);
    if (pkg === "first") host.load(pkgFactory, "package");
    host.load(example, "example");
    if (pkg === "after") host.load(pkgFactory, "package");
    assert.equal(host.registry.length, 0, "nothing registered while loading");
    const agent = { PI_CODING_AGENT_DIR: tempDir("pi-codegraph-agent-"), PI_CODEGRAPH_TOOLS: undefined };
    await withEnv(agent, () => withPath(dirs, () => host.startSession({ cwd, hasUI: false })));
    return { host, tool: host.registry.find((t) => t.name === TOOL) };
  }
  const call = (tool, cwd, { request = REQUEST, signal, onUpdate, dirs = realPath } = {}) =>
    withPath(dirs, () => tool.execute("call-1", { request }, signal, onUpdate, { cwd }));
  const render = (tool, result, options, context = {}) =>
    renderText(tool.renderResult(result, { expanded: false, isPartial: false, ...options }, plainTheme, context), WIDE);

  before(async () => {
    await piInteractive();
    peers = await piPeers();
    example = require(EXAMPLE);
    ws = indexedExample(tempDir("pi-codegraph-example-"));
  });

  test("session_start registers codegraph_explore: one `request` field, and guidance for a ready index", async () => {
    const { host, tool } = await session(ws);
    assert.deepEqual(
      host.registry.map((t) => [t.name, t.source]),
      [[TOOL, "example"]],
    );
    const { limits } = require(path.join(root, "index.js"));
    assert.deepEqual(Object.keys(tool.parameters.properties), ["request"]);
    assert.deepEqual(tool.parameters.required, ["request"]);
    assert.equal(tool.parameters.properties.request.maxLength, limits().MAX_REQUEST_CHARS);
    assert.match(tool.description, /2000 lines or 50KB/, "the runner's caps, as the package has them");
    assert.doesNotMatch(tool.promptSnippet, /\n|Not available/);
    assert.ok(tool.promptGuidelines.length > 0);
    for (const g of tool.promptGuidelines) assert.match(g, /codegraph_explore/, "Pi appends guidelines flat");
  });

  test("an answer: CodeGraph's own text; collapsed, its first 8 lines and the facts; expanded, all of it", async () => {
    const { tool } = await session(ws);
    const result = await call(tool, ws);
    const text = result.content[0].text;
    assert.match(text, /addNote/);
    assert.match(text, /MemoryStorage/);
    assert.equal(result.details.cwd, ws, "ran in Pi's workspace");
    assert.equal(result.details.cliVersion, "1.6.1");
    // As pi-tui's Text draws it: a tab as three spaces, trailing blanks trimmed.
    const answer = text
      .replace(/\n$/, "")
      .split("\n")
      .map((l) => l.replaceAll("\t", "   ").trimEnd());
    assert.ok(answer.length > 8, "long enough to collapse");

    const collapsed = render(tool, result, {}).split("\n");
    assert.deepEqual(collapsed.slice(0, 8), answer.slice(0, 8));
    assert.equal(collapsed[8], `… ${answer.length - 8} more lines (expand to see them)`);
    assert.equal(footerShape(collapsed[9]), "N lines · T · codegraph 1.6.1");
    assert.equal(collapsed.length, 10);

    const expanded = render(tool, result, { expanded: true }).split("\n");
    assert.deepEqual(expanded.slice(0, -1), answer);
    assert.equal(expanded.at(-1), collapsed[9]);
    assert.equal(expanded.at(-1).split(" ")[0], String(answer.length));
  });

  test("the call row: the tool and the request on one line, control characters dropped", async () => {
    const { tool } = await session(ws);
    const row = renderText(tool.renderCall({ request: "how does\tA\nreach \x1b[31mB\x07" }, plainTheme, {}), WIDE);
    assert.equal(row, "codegraph_explore how does A reach [31mB");
  });

  test("no index: the guidance says what the user must do; the call fails with the code, the remediation and where to turn instead", async () => {
    const bare = makeWorkspace({ index: false });
    const { tool } = await session(bare);
    assert.match(tool.promptSnippet, /^Not available in this workspace \(CODEGRAPH_NO_INDEX\): .*codegraph init/);
    assert.ok(tool.promptGuidelines.every((g) => /^Do not call codegraph_explore/.test(g)));

    const { FALLBACK_LINE } = require(path.join(root, "index.js"));
    const err = await call(tool, bare).then(
      () => assert.fail("the call should fail"),
      (e) => e,
    );
    const lines = err.message.split("\n");
    assert.match(lines[0], /^CODEGRAPH_NO_INDEX: /);
    assert.ok(
      lines.some((l) => l.startsWith("Remediation: ")),
      err.message,
    );
    assert.equal(lines.at(-1), FALLBACK_LINE);
    assert.equal(err.cause.code, "CODEGRAPH_NO_INDEX");
    assert.equal(fs.existsSync(path.join(bare, ".codegraph")), false, "no index was made");

    // As Pi shows a failed call: its content is the message.
    const failed = { content: [{ type: "text", text: err.message }], details: {} };
    assert.equal(render(tool, failed, {}, { isError: true }), `${lines[0]}\n… ${lines.length - 1} more lines`);
    assert.equal(render(tool, failed, { expanded: true }, { isError: true }), err.message);
  });

  test("Esc: a cancelled call fails with CODEGRAPH_CANCELLED and no advice to the model", async () => {
    const { tool } = await session(ws);
    const err = await call(tool, ws, { signal: AbortSignal.abort() }).then(
      () => assert.fail("the call should fail"),
      (e) => e,
    );
    assert.equal(err.code, "CODEGRAPH_CANCELLED");
    assert.doesNotMatch(err.message, /unavailable for this request/);
  });

  test("while the CLI prints: partial results through onUpdate, rendered as progress with the latest line", async () => {
    const fake = [fakeBinDir()];
    const fakeWs = makeWorkspace();
    const { tool } = await session(fakeWs, { dirs: fake });
    const updates = [];
    const drip = { FAKE_CG_MODE: "drip", FAKE_CG_COUNT: "6", FAKE_CG_INTERVAL: "100" };
    const result = await withEnv(drip, () => call(tool, fakeWs, { dirs: fake, onUpdate: (u) => updates.push(u) }));
    assert.equal(result.content[0].text, "drip 1\ndrip 2\ndrip 3\ndrip 4\ndrip 5\ndrip 6\n");
    assert.ok(updates.length >= 1, "at least one partial result");
    const last = updates.at(-1);
    assert.ok(result.content[0].text.startsWith(last.content[0].text));
    const shown = render(tool, last, { isPartial: true }).split("\n");
    assert.match(shown[0], /^Exploring the CodeGraph index… \d+ lines, \d+\.\ds$/);
    assert.equal(shown[1], last.content[0].text.replace(/\n$/, "").split("\n").at(-1));
  });

  test("a cut answer names its full-output file, shown expanded; the session's end removes it", async () => {
    const fake = [fakeBinDir()];
    const fakeWs = makeWorkspace();
    const { host, tool } = await session(fakeWs, { dirs: fake });
    const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "3000" }, () =>
      call(tool, fakeWs, { dirs: fake }),
    );
    const file = result.details.fullOutputPath;
    assert.equal(result.details.truncated, true);
    assert.ok(file && fs.existsSync(file), "the full output is kept while the session runs");
    const expanded = render(tool, result, { expanded: true }).split("\n");
    assert.match(expanded.at(-2), /^\d+ lines · \d+\.\d\ds · codegraph 9\.9\.9-fake \[truncated\]$/);
    assert.equal(expanded.at(-1), `full output: ${file}`);
    await host.shutdown({ cwd: fakeWs });
    assert.equal(fs.existsSync(file), false, "removed at session_shutdown");
  });

  test("with the pi-codegraph package loaded too: the first to register codegraph_explore serves, the other skips", async () => {
    // The package's tools are registered after session_start (lib/pi/extension.js), so the example,
    // registering in its own session_start, is first either way; the package's /codegraph says so.
    const packageFirst = await session(ws, { pkg: "first" });
    assert.equal(packageFirst.tool.source, "example");
    assert.deepEqual(
      packageFirst.host.registry.map((t) => t.name),
      [TOOL],
      "the package registered none of its tools",
    );
    const ctx = { cwd: ws, hasUI: true, ui: recordingUi() };
    assert.match(
      await codegraphSaid(packageFirst.host, ctx, "status"),
      /^codegraph_explore is registered by another extension \(example\), so this copy of pi-codegraph .* serves nothing in this session\.\n.*\/reload\.$/,
    );
    const exampleFirst = await session(ws, { pkg: "after" });
    assert.equal(exampleFirst.tool.source, "example");
    assert.deepEqual(
      exampleFirst.host.registry.map((t) => t.name),
      [TOOL],
      "the package skipped all its tools",
    );
  });
});

describe("in the real Pi CLI, over the real CodeGraph CLI", { skip: piMissing, timeout: 60000 }, () => {
  const PROMPT = "How does addNote reach save?";
  let scratch;
  let home;
  let ws;
  let server;
  const dirs = [];
  const jsonArgs = (model) => [
    ...["--mode", "json", "--offline", "--no-session", "--no-context-files"],
    ...["--provider", "fake", "--model", model, PROMPT],
  ];
  const explain = (run) => `exit ${run.code}; stderr:\n${run.stderr.slice(-3000)}`;

  before(async () => {
    ({ scratch, home } = piScratch("pi-codegraph-example-pi-"));
    ws = indexedExample(path.join(scratch, "ws"));
    server = await startFakeOpenAI({ request: REQUEST });
  });
  after(() => tearDownPiSuite({ strayPids: [], server, dirs: [scratch, ...dirs] }));

  test("pi -e example/codegraph-explore.js: the model's call gets CodeGraph's answer; the prompt carries the example's guidance", async () => {
    const agentDir = path.join(scratch, "agent-e");
    writeModelsJson(agentDir, server.baseUrl, ["fake-example"]);
    const env = piEnv({ agentDir, home, pathDirs: realPath });
    const run = await runPi(["-e", EXAMPLE, ...jsonArgs("fake-example")], { cwd: ws, env });
    assert.equal(run.code, 0, explain(run));

    const bodies = server.bodiesFor("fake-example");
    assert.equal(bodies.length, 2, "one tool-call turn, one final turn");
    const { sent, end } = oneToolCall(run, bodies, { isError: false });
    assert.match(sent, /addNote \(src\/notes\.ts:\d+\)/);
    assert.match(sent, /MemoryStorage/);
    assert.equal(end.result.details.cliVersion, "1.6.1");
    assert.equal(end.result.details.cwd, ws);

    const host = createPiHost();
    host.load(require(EXAMPLE), "example");
    await withEnv({ PATH: realPath.join(path.delimiter) }, () => host.startSession({ cwd: ws, hasUI: false }));
    const [declared] = host.registry;
    const [tool] = bodies[0].tools.filter((t) => t.function?.name === TOOL);
    assert.equal(tool.function.description, declared.description, "the example's tool, not the package's");
    assert.deepEqual(Object.keys(tool.function.parameters.properties), ["request"]);
    const system = contentText(bodies[0].messages.find((m) => m.role === "system" || m.role === "developer"));
    assert.ok(system.includes(`- ${TOOL}: ${declared.promptSnippet}`), "the snippet under Available tools");
    for (const g of declared.promptGuidelines) assert.ok(system.includes(`- ${g}`), `guideline: ${g}`);
  });

  test("copied into the agent's extensions directory beside an installed package, with the package loaded too: one codegraph_explore, answered", async () => {
    const agentDir = path.join(scratch, "agent-copy");
    writeModelsJson(agentDir, server.baseUrl, ["fake-copy"]);
    // What its top comment tells a user: a directory with the file as index.js and pi-codegraph
    // installed beside it (here, this checkout).
    const copy = path.join(agentDir, "extensions", "codegraph-explore");
    fs.mkdirSync(path.join(copy, "node_modules"), { recursive: true });
    fs.writeFileSync(path.join(copy, "package.json"), '{ "dependencies": { "pi-codegraph": "^0.1.0" } }\n');
    fs.copyFileSync(EXAMPLE, path.join(copy, "index.js"));
    fs.symlinkSync(root, path.join(copy, "node_modules", "pi-codegraph"));
    const env = piEnv({ agentDir, home, pathDirs: realPath, extra: { JITI_DEBUG: "1" } });
    const run = await runPi(["-e", root, ...jsonArgs("fake-copy")], { cwd: ws, env });
    assert.equal(run.code, 0, explain(run));
    assert.doesNotMatch(run.stderr, /conflicts with/);
    const jiti = stripVTControlCharacters(run.stderr).split("\n");
    const loaded = (file) => jiti.some((l) => l.startsWith("[jiti]") && l.includes(file));
    assert.ok(loaded(path.join(copy, "index.js")), "the copy was loaded");
    assert.ok(loaded(path.join(root, "extensions", "index.js")), "the package was loaded");

    const bodies = server.bodiesFor("fake-copy");
    for (const body of bodies) assert.equal(toolNames(body).filter((n) => n === TOOL).length, 1);
    const { sent } = oneToolCall(run, bodies, { isError: false });
    assert.match(sent, /MemoryStorage/);
  });
});
