// Prompt cost of the focused tools: what each request to the model carries, built as the pinned Pi
// builds it. The extension is loaded into the Pi host stand-in (__test__/helpers/pi-host.mjs)
// over Pi's own peers beside Pi's four default tools (their real definitions), its session
// started in an indexed copy of the shop fixture (ready guidance); the active tools then give
// the system prompt (Pi's own buildSystemPrompt over their promptSnippet and promptGuidelines,
// normalised as AgentSession does) and the tools array (each tool's name, description and
// parameter schema as pi-ai's Anthropic provider sends them). Explore alone is the extension of
// commit 0d259b6 (before the focused tools), loaded the same way from a `git archive` of it.

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createPiHost, piPeers } from "../../__test__/helpers/pi-host.mjs";
import { indexShop, root, unpackCommit } from "../lib/setup.mjs";

const require = createRequire(import.meta.url);
const BEFORE = "0d259b6";
const PI_DIST = path.join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist");
const PI_VERSION = JSON.parse(fs.readFileSync(path.join(PI_DIST, "..", "package.json"), "utf8")).version;
/** Pi's default active tools (read, bash, edit, write), in Pi's order. */
const PI_DEFAULTS = ["Read", "Bash", "Edit", "Write"];
const TOKEN_TARGET = 1000;
const CONFIGS = [
  { label: "all focused tools off", env: "none" },
  { label: "codegraph_node on", env: "node" },
  { label: "codegraph_relations on", env: "relations" },
  { label: "codegraph_search on", env: "search" },
  { label: "codegraph_changes on", env: "changes" },
  { label: "node, relations and search on (the default before issue 45)", env: "node,relations,search" },
  { label: "all four on (the default)", env: "all" },
];

const bytes = (s) => Buffer.byteLength(s);
/** No tokenizer ships in node_modules: an estimate of characters / 4, rounded up. */
const tokens = (chars) => Math.ceil(chars / 4);
const chars = (s) => [...s].length;
const signed = (n) => `${n > 0 ? "+" : ""}${n.toLocaleString("en")}`;

/** The extension of commit BEFORE, unpacked beside the measured addon, over the same node_modules. */
function extensionBefore(tmp, addonFile) {
  return require(path.join(unpackCommit(BEFORE, tmp, addonFile), "index.js"));
}

/**
 * What one request carries with `pkg`'s extension loaded after Pi's default tools: the system
 * prompt and the tools array (JSON), plus the active tools themselves.
 */
export async function requestWith(pkg, peers, piModule, buildSystemPrompt, cwd) {
  const host = createPiHost();
  host.load((pi) => {
    for (const make of PI_DEFAULTS) pi.registerTool(piModule[`create${make}ToolDefinition`](cwd));
  }, "builtin");
  host.load(
    pkg.createExtension(() => peers),
    "pi-codegraph",
  );
  await host.startSession({ cwd, hasUI: false });
  // Pi's order: the names as setActiveTools got them.
  const active = [...host.active].map((name) => host.registry.find((t) => t.name === name));
  const oneLine = (t) =>
    t
      ? t
          .replace(/[\r\n]+/g, " ")
          .replace(/\s+/g, " ")
          .trim()
      : "";
  const toolSnippets = {};
  const promptGuidelines = [];
  for (const t of active) {
    if (oneLine(t.promptSnippet)) toolSnippets[t.name] = oneLine(t.promptSnippet);
    promptGuidelines.push(...new Set((t.promptGuidelines ?? []).map((g) => g.trim()).filter(Boolean)));
  }
  const systemPrompt = buildSystemPrompt({
    cwd,
    selectedTools: active.map((t) => t.name),
    toolSnippets,
    promptGuidelines,
    contextFiles: [],
    skills: [],
  });
  // pi-ai's Anthropic convertTools (name, description, input_schema; no cache_control, no eager
  // streaming, no placeholder tool: what the tools themselves weigh); OpenAI-style
  // providers send the whole TypeBox schema as `parameters` instead.
  const anthropic = active.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: "object", properties: t.parameters.properties ?? {}, required: t.parameters.required ?? [] },
  }));
  const openai = active.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters, strict: false },
  }));
  return {
    names: active.map((t) => t.name),
    active,
    systemPrompt,
    tools: JSON.stringify(anthropic),
    openaiTools: JSON.stringify(openai),
  };
}

/** Pi's parts a request is built from: the peers, Pi's module (its default tools) and its system prompt. */
export async function piParts() {
  const peers = await piPeers();
  const piModule = await import("@earendil-works/pi-coding-agent");
  const { buildSystemPrompt } = await import(pathToFileURL(path.join(PI_DIST, "core", "system-prompt.js")).href);
  return { peers, piModule, buildSystemPrompt };
}

export async function prompt(ctx) {
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  const keys = ["PI_CODEGRAPH_BIN", "PI_CODEGRAPH_TOOLS", "PI_CODING_AGENT_DIR", "DO_NOT_TRACK"];
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  const parent = path.join(ctx.tmp, "prompt");
  fs.mkdirSync(parent, { recursive: true });
  process.env.PI_CODEGRAPH_BIN = cli;
  process.env.DO_NOT_TRACK = "1";
  // The choice comes from PI_CODEGRAPH_TOOLS; the agent directory is a temp one all the same.
  process.env.PI_CODING_AGENT_DIR = path.join(parent, "agent");
  try {
    const { dir } = indexShop(parent, cli);
    const { peers, piModule, buildSystemPrompt } = await piParts();
    const { promptChars } = require(path.join(root, "lib", "pi", "commands", "tools.js"));
    const { focusedTool } = require(path.join(root, "lib", "pi", "tools", "focused.js"));

    let before;
    let beforeError;
    try {
      delete process.env.PI_CODEGRAPH_TOOLS;
      before = await requestWith(extensionBefore(parent, ctx.addon.file), peers, piModule, buildSystemPrompt, dir);
    } catch (err) {
      beforeError = err?.message ?? String(err);
    }
    const now = require(path.join(root, "index.js"));
    const runs = [];
    for (const config of CONFIGS) {
      process.env.PI_CODEGRAPH_TOOLS = config.env;
      runs.push({ ...config, request: await requestWith(now, peers, piModule, buildSystemPrompt, dir) });
    }

    const base = before ?? runs[0].request;
    const sizeOf = (r) => bytes(r.systemPrompt) + bytes(r.tools);
    const charsOf = (r) => chars(r.systemPrompt) + chars(r.tools);
    const added = (r) => ({
      bytes: sizeOf(r) - sizeOf(base),
      chars: charsOf(r) - charsOf(base),
      prompt: bytes(r.systemPrompt) - bytes(base.systemPrompt),
      tools: bytes(r.tools) - bytes(base.tools),
      openai: bytes(r.systemPrompt) + bytes(r.openaiTools) - bytes(base.systemPrompt) - bytes(base.openaiTools),
    });
    const focusedOn = (r) => r.names.filter((n) => focusedTool(n));
    const shown = (r) => focusedOn(r).reduce((sum, n) => sum + promptChars(focusedTool(n), peers), 0);
    const rows = [
      [
        `explore alone (commit ${BEFORE})`,
        before ? before.names.join(", ") : `not loaded: ${beforeError}`,
        before ? bytes(before.systemPrompt) : "n/a",
        before ? bytes(before.tools) : "n/a",
        "",
        "",
        "",
        "",
        "",
      ],
      ...runs.map(({ label, request: r }) => {
        const a = added(r);
        return [
          label,
          r.names.join(", "),
          bytes(r.systemPrompt),
          bytes(r.tools),
          signed(a.prompt),
          signed(a.tools),
          `${signed(a.bytes)} (≈ ${signed(tokens(a.chars))})`,
          signed(a.openai),
          shown(r) ? shown(r).toLocaleString("en") : "",
        ];
      }),
    ];

    // Where each tool's bytes go: its entry in the tools array, its line among the tools, its guideline.
    const all = runs.at(-1).request;
    const partRows = all.active
      .filter((t) => focusedTool(t.name))
      .map((t) => {
        const entry = JSON.parse(all.tools).find((e) => e.name === t.name);
        const schema = JSON.stringify(entry.input_schema);
        const line = `- ${t.name}: ${t.promptSnippet}\n`;
        const guidelines = (t.promptGuidelines ?? []).map((g) => `- ${g}\n`).join("");
        const one = runs.find((r) => focusedOn(r.request).length === 1 && focusedOn(r.request)[0] === t.name);
        const a = added(one.request);
        const others = a.bytes - (bytes(JSON.stringify(entry)) + 1) - bytes(line) - bytes(guidelines);
        return [
          t.name,
          bytes(JSON.stringify(entry)),
          bytes(t.description),
          bytes(schema),
          bytes(line),
          bytes(guidelines),
          signed(others),
          `${signed(a.bytes)} (≈ ${signed(tokens(a.chars))})`,
          promptChars(focusedTool(t.name), peers).toLocaleString("en"),
        ];
      });

    const off = runs[0].request;
    // The words compared are the ready ones: an index that cannot serve gives explore other words.
    const exploreOf = (r) => r.active.find((t) => t.name === "codegraph_explore");
    const ready = [...runs.map((r) => r.request), ...(before ? [before] : [])].every(
      (r) => !/^Unavailable/.test(exploreOf(r)?.promptSnippet ?? "Unavailable"),
    );
    const offSame =
      ready && before !== undefined && off.systemPrompt === before.systemPrompt && off.tools === before.tools;
    const offAdded = before ? added(off).bytes : Number.NaN;
    const allAdded = added(all);
    const targets = [
      {
        what: `prompt: all focused tools off, bytes a request gains over explore alone (commit ${BEFORE})`,
        target: "0 (identical)",
        measured: !ready
          ? `not measured: the index was not ready (${exploreOf(off)?.promptSnippet})`
          : before
            ? `${offAdded} (${offSame ? "system prompt and tools identical" : "the request differs"})`
            : `not measured: ${beforeError}`,
        met: offSame,
        correctness: true,
        why: `with no focused tool on, the request (system prompt and tools array) must be the one of commit ${BEFORE}, word for word: the focused tools are registered inactive, and explore's guidance changes only when codegraph_node is on.`,
      },
      {
        what: "prompt: all four focused tools on (the default), added to every request",
        target: `< ${TOKEN_TARGET.toLocaleString("en")} tokens`,
        measured: `≈ ${tokens(allAdded.chars)} tokens (${allAdded.bytes.toLocaleString("en")} bytes)`,
        met: ready && tokens(allAdded.chars) < TOKEN_TARGET,
        why: "the descriptions, schemas, snippets and guidelines are the words in lib/pi/guidance.js (FOCUSED_WORDS) and the schemas in lib/pi/tools/focused.js: shorten them there.",
      },
    ];
    return {
      title: "Prompt cost of the focused tools",
      about: `What every request to the model carries, built as the pinned Pi (${PI_VERSION}) builds it: pi-codegraph loaded into the Pi host stand-in (__test__/helpers/pi-host.mjs) over Pi's own peers after Pi's default tools (read, bash, edit, write: their real definitions), its session started in an indexed copy of the shop fixture (ready guidance), the focused tools chosen with PI_CODEGRAPH_TOOLS. System prompt: Pi's own buildSystemPrompt (dist/core/system-prompt.js) over the active tools' promptSnippet and promptGuidelines, normalised as AgentSession does (no context files or skills; the date and working directory are the same in every row). Tools: the active tools' name, description and parameter schema as JSON, in the shape pi-ai's Anthropic provider sends (\`{ name, description, input_schema: { type, properties, required } }\`); the OpenAI-style column sends the whole TypeBox schema as \`parameters\` instead. Explore alone is the extension of commit ${BEFORE} (before the focused tools), unpacked with \`git archive\` and loaded the same way. Tokens are an estimate: characters / 4, rounded up (no tokenizer is installed; real tokenizers count JSON punctuation and identifiers like codegraph_relations as several tokens, so the true count can be higher).`,
      tables: [
        {
          caption: "One request: system prompt and tools array, bytes (added: against explore alone)",
          head: [
            "focused tools",
            "active tools",
            "system prompt",
            "tools (Anthropic)",
            "added to prompt",
            "added to tools",
            "added in all (≈ tokens)",
            "added, OpenAI-style tools",
            "/codegraph tools says (chars)",
          ],
          rows,
        },
        {
          caption: "Each focused tool on its own, bytes: where its words go",
          head: [
            "tool",
            "its tools entry (JSON)",
            "of which description",
            "of which schema",
            "its line in Available tools",
            "its guideline line",
            "rest ¹",
            "added in all (≈ tokens)",
            "/codegraph tools says (chars)",
          ],
          rows: partRows,
        },
      ],
      notes: [
        "¹ what is left once the tool's entry (with the comma before it), its line among the tools and its guideline are counted: for codegraph_node, explore's third guideline changes (it then says to call codegraph_node where CodeGraph's answers name it, instead of saying that codegraph_node does not exist here); for the others, nothing.",
        "/codegraph tools says: the size the list shows the user per tool (lib/pi/commands/tools.js promptChars: name, description, schema JSON, snippet, guideline).",
      ],
      targets,
    };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
