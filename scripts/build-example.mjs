#!/usr/bin/env node
// Writes example/codegraph-explore.js, pi-codegraph as ONE readable file: the plain-Node runner
// (lib/runners/node/) and the Pi glue (lib/glue.js and what it requires), module after module in
// dependency order, with the module plumbing removed. No bundler runtime: the modules' top-level
// names simply share one file scope. `--check` builds to memory and exits 1 when the committed
// file differs (CI runs it as `npm run example:check`).
//
// The convention every module that goes into the example follows (checked here; a violation
// fails the build with the file and line):
//   1. Local requires are top-of-file, destructured, one module per line:
//        const { a, b } = require("./x.js");
//      They are dropped (the names are already in the file's scope). Every name must be one the
//      required module exports, and no renaming (`{ a: b }`).
//   2. Node builtins are `const fs = require("node:fs");` or `const { spawn } = require(
//      "node:child_process");` and are hoisted to the top of the example, once each (a builtin
//      bound whole must bind the same name everywhere; destructured names are merged).
//   3. No other require() (no peers: Pi's typebox, pi-tui and pi-coding-agent reach the glue
//      through getPeers),
//      and no `module`, `exports`, `__dirname` or `__filename` outside the last statement.
//   4. Each module ends with one `module.exports = { a, b, … };` (names only), which is dropped.
//   5. Top-level names (const, let, var, function, class) are unique across all the modules.
// The output is then checked with `node --check`.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUT = "example/codegraph-explore.js";
/** The modules the example starts from; everything they require follows. */
const BACKEND_ENTRY = "lib/runners/node.js";
const GLUE_ENTRY = "lib/glue.js";
const RULE = `// ${"-".repeat(93)}`;

const LOCAL_REQUIRE = /^const \{ ([^}]*) \} = require\("(\.{1,2}\/[^"]+)"\);$/;
const BUILTIN_REQUIRE = /^const (\w+|\{ [^}]* \}) = require\("(node:[\w/]+)"\);$/;
const EXPORTS = /^module\.exports = \{([^}]*)\};\s*$/;
const TOP_LEVEL = /^(?:const|let|var|(?:async )?function\*?|class) ([A-Za-z_$][\w$]*)/;
const FORBIDDEN = /\brequire\s*\(|\bmodule\.|\bexports\b|\b__dirname\b|\b__filename\b/;

function fail(message) {
  console.error(`build-example: ${message}`);
  process.exit(1);
}

const names = (list) =>
  list
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);

/** A line without its comments and string literals (what rule 3 looks at). */
function codeOf(line) {
  if (/^\s*(\/\*|\*|\/\/)/.test(line)) return "";
  return line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|\/\/.*$|\/\*.*?\*\//g, "");
}

/** One module: its header comment, body, local dependencies, builtins and exported names. */
function parseModule(rel) {
  const text = fs.readFileSync(path.join(root, rel), "utf8");
  const lines = text.replace(/\s+$/, "").split("\n");
  const exportsAt = lines.findLastIndex((l) => l.startsWith("module.exports"));
  const exportsText = lines.slice(exportsAt).join(" ");
  const exported = EXPORTS.exec(exportsText);
  if (exportsAt === -1 || !exported) fail(`${rel}: must end with one \`module.exports = { a, b };\` (rule 4)`);
  const deps = [];
  const builtins = [];
  const body = [];
  lines.slice(0, exportsAt).forEach((line, i) => {
    const where = `${rel}:${i + 1}`;
    const local = LOCAL_REQUIRE.exec(line);
    const builtin = BUILTIN_REQUIRE.exec(line);
    if (local) {
      const imported = names(local[1]);
      if (imported.some((n) => !/^[A-Za-z_$][\w$]*$/.test(n))) fail(`${where}: no renaming in local requires (rule 1)`);
      deps.push({ file: path.posix.join(path.posix.dirname(rel), local[2]), imported, where });
    } else if (builtin) builtins.push({ name: builtin[1], id: builtin[2], where });
    else if (FORBIDDEN.test(codeOf(line))) {
      fail(`${where}: only top-level destructured local requires and node: builtins (rules 1-3): ${line.trim()}`);
    } else if (line.trim() !== "" || body.at(-1)?.trim() !== "") body.push(line); // one blank line at most
  });
  // The header comment (the file's leading comment lines) stays with the body, under the section line.
  while (body.length && body[0].trim() === "") body.shift();
  while (body.length && body.at(-1).trim() === "") body.pop();
  return { rel, deps, builtins, body, exports: names(exported[1]) };
}

/** The modules reachable from `entries`, each after the modules it requires. */
function dependencyOrder(entries) {
  const modules = new Map();
  const order = [];
  const visiting = new Set();
  const visit = (rel, chain) => {
    if (modules.has(rel) && !visiting.has(rel)) return;
    if (visiting.has(rel)) fail(`require cycle: ${[...chain, rel].join(" -> ")}`);
    if (!fs.existsSync(path.join(root, rel))) fail(`${chain.at(-1)} requires ${rel}, which does not exist`);
    visiting.add(rel);
    const mod = parseModule(rel);
    modules.set(rel, mod);
    for (const dep of mod.deps) visit(dep.file, [...chain, rel]);
    visiting.delete(rel);
    order.push(mod);
  };
  for (const entry of entries) visit(entry, []);
  for (const mod of order) {
    for (const dep of mod.deps) {
      const missing = dep.imported.filter((n) => !modules.get(dep.file).exports.includes(n));
      if (missing.length) fail(`${dep.where}: ${dep.file} does not export ${missing.join(", ")} (rule 1)`);
    }
  }
  return order;
}

/** The builtins, once each, with one name per builtin bound whole (rule 2). */
function hoistBuiltins(order) {
  const whole = new Map();
  const parts = new Map();
  for (const { builtins } of order) {
    for (const b of builtins) {
      if (b.name.startsWith("{")) {
        const set = parts.get(b.id) ?? new Set();
        for (const n of names(b.name.slice(1, -1))) set.add(n);
        parts.set(b.id, set);
        continue;
      }
      const seen = whole.get(b.id);
      if (seen && seen.name !== b.name)
        fail(`${b.where}: ${b.id} is bound as ${b.name} here, ${seen.name} at ${seen.where}`);
      if (!seen) whole.set(b.id, b);
    }
  }
  const ids = [...new Set([...whole.keys(), ...parts.keys()])].sort();
  return ids.flatMap((id) => [
    ...(whole.has(id) ? [`const ${whole.get(id).name} = require("${id}");`] : []),
    ...(parts.has(id) ? [`const { ${[...parts.get(id)].sort().join(", ")} } = require("${id}");`] : []),
  ]);
}

/** Fails on a top-level name declared twice across the modules (rule 5). */
function checkUniqueNames(order, builtinLines, tail) {
  const declared = new Map();
  for (const line of builtinLines) {
    const m = /^const (?:\{ ([^}]*) \}|(\w+))/.exec(line);
    for (const n of m[1] ? names(m[1]) : [m[2]]) {
      if (declared.has(n)) fail(`top-level name ${n} is bound by two builtins (rule 5)`);
      declared.set(n, "the builtins");
    }
  }
  const sources = [...order.map((m) => [m.rel, m.body]), ["the generated tail", tail.split("\n")]];
  for (const [rel, lines] of sources) {
    for (const line of lines) {
      const m = TOP_LEVEL.exec(line);
      if (!m) continue;
      if (declared.has(m[1])) fail(`top-level name ${m[1]} is declared in ${declared.get(m[1])} and ${rel} (rule 5)`);
      declared.set(m[1], rel);
    }
  }
}

/** The "Node differs" bullets of the Node backend's header comment, for this file's header. */
function nodeDiffers() {
  const header = fs.readFileSync(path.join(root, BACKEND_ENTRY), "utf8").split("\n");
  const start = header.findIndex((l) => /Node differs/.test(l));
  if (start === -1) fail(`${BACKEND_ENTRY}: its header comment must list where plain Node differs ("Node differs")`);
  const bullets = [];
  for (const line of header.slice(start + 1)) {
    if (!line.startsWith("//")) break;
    bullets.push(line);
  }
  if (!bullets.some((l) => l.startsWith("// - "))) fail(`${BACKEND_ENTRY}: no "- " bullets after "Node differs"`);
  return bullets;
}

function header(version) {
  return [
    "// codegraph-explore.js: pi-codegraph as ONE readable file, for local trial and audit.",
    "//",
    "// GENERATED by scripts/build-example.mjs (npm run example:build) from the package's own modules:",
    `// do not edit; edit lib/ and rebuild. pi-codegraph ${version}.`,
    "//",
    "// The same `codegraph_explore` tool as the pi-codegraph package (its README: the tool table, the",
    "// error codes; its docs/security.md: the data and security boundary), over the package's plain-Node runner instead of",
    "// the Rust addon: no native binary, nothing to build. Each section below is one module of the",
    "// package (its path in the section line), in dependency order: first the Node runner",
    "// (lib/runners/node/), then the Pi glue (lib/). The contract suites run against this file too.",
    "//",
    "// Install: Pi (it brings Node 22+), the CodeGraph CLI on PATH (npm install -g @colbymchenry/codegraph)",
    "// and an index you made yourself (`codegraph init` in the project). Then",
    "//   mkdir -p ~/.pi/agent/extensions && cp example/codegraph-explore.js ~/.pi/agent/extensions/",
    "// (or `pi -e example/codegraph-explore.js`) and start Pi in the project; `/codegraph` shows",
    "// whether it is ready. Use this file or the package, not both: whichever Pi loads first registers",
    "// the tool, the other skips.",
    "//",
    '// Without Pi: require("./codegraph-explore.js").explore(request, workspace) works in plain Node.',
    "//",
    '// Where the Node runner cannot do what the addon does ("Node differs"):',
    ...nodeDiffers(),
  ].join("\n");
}

/** After the modules: the backend object, Pi's peers, and the exports. */
function tail(backend, version) {
  return `${RULE}
// The exports: the glue (lib/glue.js) over the Node runner (${BACKEND_ENTRY}'s exports).

const nodeBackend = {
${backend.exports.map((n) => `  ${n},`).join("\n")}
};

// Pi's own TypeBox, TUI and display helpers (formatSize, keyHint), for the schema and the
// rendering. Pi's loader (jiti) first imports a .js extension natively and, only if that throws,
// evaluates it itself with Pi's copies (aliases under Node, virtual modules in Pi's Bun binary).
// From ~/.pi/agent/extensions a native require finds none of them, so they are required here, at
// load time, and a failure is rethrown when the file is being imported (no \`module.parent\`), as
// Pi's loader does. Required from plain Node (a script, a test), a failure only postpones them to
// the tool's creation (loadPeers), so explore() works without them.
// Pi's own instance of pi-coding-agent, not a copy: as extension.js does it (piOwn there).
function piOwn(id) {
  try {
    return require("node:module").createRequire(__filename)(require.resolve(id));
  } catch {
    return require(id);
  }
}

let peers = null;
try {
  const { BorderedLoader, formatSize, getAgentDir, keyHint } = piOwn("@mariozechner/pi-coding-agent");
  peers = {
    Type: require("typebox").Type,
    Text: require("@mariozechner/pi-tui").Text,
    StringEnum: require("@mariozechner/pi-ai").StringEnum,
    BorderedLoader,
    formatSize,
    getAgentDir,
    keyHint,
  };
} catch (err) {
  if (!module.parent) throw err;
}

/** They are ES modules (pi-coding-agent has no require entry at all): import() works on every Node. */
async function loadPeers() {
  if (!peers) {
    const [{ Type }, { Text }, { StringEnum }, { BorderedLoader, formatSize, getAgentDir, keyHint }] =
      await Promise.all([
        import("typebox"),
        import("@mariozechner/pi-tui"),
        import("@mariozechner/pi-ai"),
        import("@mariozechner/pi-coding-agent"),
      ]);
    peers = { Type, Text, StringEnum, BorderedLoader, formatSize, getAgentDir, keyHint };
  }
  return peers;
}

module.exports = glueOver(nodeBackend, {
  extension: { name: "codegraph-explore.js (pi-codegraph single-file example)", version: "${version}", path: __filename },
  runner: () => ({ name: "node", path: null, note: "the single-file example", fallback: false }),
  getPeers: loadPeers,
});
`;
}

function build() {
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  const order = dependencyOrder([BACKEND_ENTRY, GLUE_ENTRY]);
  const backend = order.find((m) => m.rel === BACKEND_ENTRY);
  const builtins = hoistBuiltins(order);
  const end = tail(backend, version);
  checkUniqueNames(order, builtins, end);
  const sections = order.filter((m) => m.body.length).map((m) => `${RULE}\n// ${m.rel}\n\n${m.body.join("\n")}`);
  return `${[header(version), builtins.join("\n"), ...sections, end.trimEnd()].join("\n\n")}\n`;
}

function nodeCheck(text) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pi-codegraph-example-")), "codegraph-explore.js");
  fs.writeFileSync(file, text);
  try {
    execFileSync(process.execPath, ["--check", file], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (err) {
    fail(`the generated file does not parse (node --check):\n${err.stderr}`);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

const text = build();
nodeCheck(text);
const target = path.join(root, OUTPUT);
if (process.argv.includes("--check")) {
  const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : null;
  if (current !== text) {
    console.error(`${OUTPUT} is stale: run npm run example:build`);
    process.exit(1);
  }
  console.log(`${OUTPUT} is up to date`);
} else {
  fs.writeFileSync(target, text);
  console.log(`wrote ${OUTPUT} (${text.split("\n").length - 1} lines)`);
}
