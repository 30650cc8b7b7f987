// The registered Pi tool, exercised through the exported factory and a minimal stand-in of Pi's
// extension API (registration, session_start, getAllTools), as Pi 0.73 calls them.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fakeBinDir, makeWorkspace, root, tempDir, withEnv } from "./helpers/index.mjs";
import { createPiHost } from "./helpers/pi-host.mjs";

const require = createRequire(import.meta.url);

/** A second install of the package (as global + project installs are): its own files, same code. */
function copyOfPackage() {
  const dir = tempDir("pi-codegraph-copy-");
  for (const f of fs.readdirSync(root)) {
    if (f === "index.js" || f === "binding.js" || f.endsWith(".node"))
      fs.copyFileSync(path.join(root, f), path.join(dir, f));
  }
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

const theme = { fg: (_c, t) => t, bold: (t) => t };
const render = (component) =>
  component
    .render(120)
    .map((l) => l.trimEnd())
    .join("\n");

let ws;
let host;
let tool;
const originalPath = process.env.PATH;

before(async () => {
  process.env.PATH = fakeBinDir();
  ws = makeWorkspace();
  host = createPiHost();
  host.load(require("../index.js"), "first");
  await host.startSession({ cwd: ws, hasUI: false });
  [tool] = host.registry;
});
after(() => {
  process.env.PATH = originalPath;
});

describe("registration", () => {
  test("registers nothing while loading, then exactly one codegraph_explore at session_start", async () => {
    const h = createPiHost();
    h.load(require("../index.js"), "solo");
    assert.equal(h.registry.length, 0, "factory-time registration is what makes Pi 0.73 exit on duplicates");
    await h.startSession({ cwd: ws });
    assert.deepEqual(
      h.registry.map((t) => t.name),
      ["codegraph_explore"],
    );
  });

  test("a second installed copy skips quietly; the first stays active", async () => {
    const h = createPiHost();
    const copy = copyOfPackage();
    const second = require(path.join(copy, "index.js"));
    assert.notEqual(second, require("../index.js"), "a distinct module instance");
    h.load(require("../index.js"), "project");
    h.load(second, "global");
    await h.startSession({ cwd: ws });
    assert.equal(h.registry.length, 1);
    assert.equal(h.registry[0].source, "project");
  });

  test("the schema has exactly one field, the request", () => {
    assert.equal(tool.parameters.type, "object");
    assert.deepEqual(Object.keys(tool.parameters.properties), ["request"]);
    assert.deepEqual(tool.parameters.required, ["request"]);
    assert.equal(tool.parameters.properties.request.type, "string");
  });

  test("guidance names the tool and steers to structural questions", () => {
    assert.ok(tool.promptSnippet && !tool.promptSnippet.includes("\n"));
    assert.ok(tool.promptGuidelines.length > 0);
    for (const line of tool.promptGuidelines) assert.match(line, /codegraph_explore/);
    assert.match(tool.promptGuidelines.join(" "), /read or grep/);
    assert.match(tool.description, /2000 lines or 50KB/);
  });
});

describe("execute", () => {
  test("runs in Pi's workspace and returns the text and details", async () => {
    const result = await tool.execute("call-1", { request: "what calls main" }, undefined, undefined, { cwd: ws });
    assert.equal(result.content[0].type, "text");
    const echoed = JSON.parse(result.content[0].text.split("\n")[1]);
    assert.deepEqual(echoed.argv, ["explore", "--", "what calls main"]);
    assert.equal(echoed.cwd, ws);
    assert.equal(result.details.cwd, ws);
  });

  test("a path smuggled into the arguments is ignored: the workspace is ctx.cwd", async () => {
    const result = await tool.execute("call-2", { request: "q", cwd: "/etc", path: "/" }, undefined, undefined, {
      cwd: ws,
    });
    assert.equal(JSON.parse(result.content[0].text.split("\n")[1]).cwd, ws);
  });

  test("errors are thrown with code and remediation in the message", async () => {
    const bare = makeWorkspace({ index: false });
    await assert.rejects(
      tool.execute("call-3", { request: "q" }, undefined, undefined, { cwd: bare }),
      (err) =>
        err.message.startsWith("CODEGRAPH_NO_INDEX:") && err.message.includes("Remediation: Run `codegraph init`"),
    );
  });

  test("Pi's abort signal cancels the run", async () => {
    const ac = new AbortController();
    const pending = withEnv({ FAKE_CG_MODE: "hang" }, () =>
      tool.execute("call-4", { request: "q" }, ac.signal, undefined, { cwd: ws }),
    );
    ac.abort();
    await assert.rejects(pending, (err) => err.code === "CODEGRAPH_CANCELLED");
  });
});

describe("rendering", () => {
  test("renderCall shows the tool and the request on one line", () => {
    const out = render(tool.renderCall({ request: "how does a\nreach b" }, theme, {}));
    assert.match(out, /codegraph_explore how does a reach b/);
  });

  test("renderResult: partial, collapsed preview, expanded, error", async () => {
    const result = await withEnv({ FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "20" }, () =>
      tool.execute("call-5", { request: "q" }, undefined, undefined, { cwd: ws }),
    );
    assert.match(render(tool.renderResult(result, { expanded: false, isPartial: true }, theme, {})), /Exploring/);
    const collapsed = render(tool.renderResult(result, { expanded: false, isPartial: false }, theme, {}));
    assert.match(collapsed, /line 8\n… 12 more lines/);
    assert.doesNotMatch(collapsed, /line 9\b/);
    assert.match(collapsed, /20 lines/);
    const expanded = render(tool.renderResult(result, { expanded: true, isPartial: false }, theme, {}));
    assert.match(expanded, /line 20/);
    const error = { content: [{ type: "text", text: "CODEGRAPH_NO_INDEX: nope" }], details: {} };
    assert.match(
      render(tool.renderResult(error, { expanded: false, isPartial: false }, theme, { isError: true })),
      /CODEGRAPH_NO_INDEX/,
    );
  });
});
