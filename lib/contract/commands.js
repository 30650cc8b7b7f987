// CodeGraph commands as data: every command the package runs is a description built here, and
// both runners run any description with the same guarantees (discovery, preflight, quiet
// environment, caps with marker and full-output file, timeout, cancel, tree kill, stderr tail,
// codes). A new command is a new description, not a change in each runner.
//
// A description: { subcommand, options: ["--name=value" | "--flag", ...], positional?, maxBytes,
// maxLines, timeoutMs, writesIndex, needsIndex, progress: "stdout" | "none" }. The CLI gets
// `codegraph <subcommand> <options...> [-- <positional>]` as an argument array, never a shell.
// The core checks every field when a runner runs it (crates/core/src/command.rs, on both
// runners): a malformed description is CODEGRAPH_INVALID_OPTIONS and nothing
// starts; the positional text follows explore's request rules (CODEGRAPH_INVALID_REQUEST).

const { DEFAULT_TIMEOUT_MS, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } = require("./limits.js");
const { LARGEST_CAP_BYTES, LARGEST_CAP_LINES } = require("./limits.js");
const { nodeArguments, relationsArguments } = require("./arguments.js");

/**
 * `{ name: value }` as CLI options: `true` is a bare `--name`, `false`, `undefined` and `null` are
 * left out, a number or string is `--name=value`. Anything else is passed on as it is, so that the
 * runner rejects it with a coded error.
 */
function optionList(options) {
  const list = [];
  for (const [name, value] of Object.entries(options)) {
    if (value === false || value === undefined || value === null) continue;
    if (value === true) list.push(`--${name}`);
    else if (typeof value === "string" || typeof value === "number") list.push(`--${name}=${value}`);
    else list.push(value);
  }
  return list;
}

/**
 * A description of `codegraph <subcommand>`. `spec`: `options` ({ name: value }), `positional`
 * (the user's text; leave it out for none), `maxBytes`/`maxLines` (default the contract's
 * maxima), `timeoutMs` (default 30 s), `writesIndex` (default false), `needsIndex` (default
 * true), `progress` ("stdout", the default, or "none"), `allowInterrupted` (default false: a
 * command that reads the index is refused with CODEGRAPH_INDEX_INTERRUPTED when its last write
 * never finished; `status` reports that state itself).
 */
function codegraphCommand(subcommand, spec = {}) {
  const command = {
    subcommand,
    options: optionList(spec.options ?? {}),
    maxBytes: spec.maxBytes ?? MAX_OUTPUT_BYTES,
    maxLines: spec.maxLines ?? MAX_OUTPUT_LINES,
    timeoutMs: spec.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    writesIndex: spec.writesIndex ?? false,
    needsIndex: spec.needsIndex ?? true,
    progress: spec.progress ?? "stdout",
  };
  if ("positional" in spec) command.positional = spec.positional;
  if (spec.allowInterrupted) command.allowInterrupted = true;
  return command;
}

/**
 * `codegraph explore -- <request>`: 30 s, reads the workspace's own index; `caps` (`{ maxBytes,
 * maxLines }`, exploreCaps) default to the contract's.
 */
function exploreCommand(request, caps = {}) {
  return codegraphCommand("explore", { positional: request, maxBytes: caps.maxBytes, maxLines: caps.maxLines });
}

/** explore's byte cap while codegraph_node is on: about upstream's own 15,000-character cap on its focused tools over MCP. */
const EXPLORE_BYTES_WITH_NODE = 15 * 1024;

/**
 * explore's caps for the focused tools that are on (`active`, tool names) under the runner's
 * `limits` (MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES): the runner's, or at most 15 KB while
 * codegraph_node is on, which reads any symbol a cut answer leaves out. CodeGraph fills about 25 KB
 * whatever is asked; on the answers bench every item its answers found was in their first 15 KB
 * (docs/tools.md).
 */
function exploreCaps(active, limits) {
  const maxBytes = limits?.MAX_OUTPUT_BYTES ?? MAX_OUTPUT_BYTES;
  const maxLines = limits?.MAX_OUTPUT_LINES ?? MAX_OUTPUT_LINES;
  const node = Array.isArray(active) && active.includes("codegraph_node");
  return { maxBytes: node ? Math.min(maxBytes, EXPLORE_BYTES_WITH_NODE) : maxBytes, maxLines };
}

/**
 * `codegraph files --json`: the index's files (path, language, size), for naming the files
 * CodeGraph counts as changed. Read-only; about 100 bytes a file, so its caps are the largest
 * a command may ask (16 MiB: some 160,000 files), never the model's.
 */
function indexFilesCommand() {
  return codegraphCommand("files", {
    options: { json: true },
    progress: "none",
    maxBytes: LARGEST_CAP_BYTES,
    maxLines: LARGEST_CAP_LINES,
  });
}

/**
 * The focused tools' caps. `node` gets explore's (Pi's read tool's too): a file read with line
 * numbers is what it replaces, and CodeGraph's own budget printed up to 38 KB. `callers`,
 * `callees` and `impact` have no cap in the CLI (one `impact` printed 64 KB, 2,164 lines on Home
 * Assistant) and a list past a few hundred symbols is not read, it is narrowed: 16 KiB and 500
 * lines, about upstream's own 15,000-character cap on these tools over MCP; a cut answer keeps the
 * full list in its file and the marker says so. `query` prints four lines a result: 50 results
 * (the most `limit` allows) fit in 16 KiB and 400 lines with room for long signatures.
 */
const FOCUSED_CAPS = {
  node: { maxBytes: 50 * 1024, maxLines: 2000 },
  changes: { maxBytes: 16 * 1024, maxLines: 500 },
  relations: { maxBytes: 16 * 1024, maxLines: 500 },
  search: { maxBytes: 16 * 1024, maxLines: 400 },
};

/**
 * `codegraph node [--file=] [--offset=] [--limit=] [--symbols-only] [-- <symbol>]` from
 * codegraph_node's arguments (lib/contract/arguments.js checks them first; a bad one throws
 * CODEGRAPH_INVALID_REQUEST). Without a symbol it is file mode and passes no `--`.
 */
function nodeCommand(params) {
  const { symbol, file, offset, limit, outline } = nodeArguments(params);
  const spec = { options: { file, offset, limit, "symbols-only": outline }, ...FOCUSED_CAPS.node };
  return codegraphCommand("node", symbol === undefined ? spec : { ...spec, positional: symbol });
}

/**
 * A call path is read from CodeGraph's JSON (lib/api/call-path.js), which is data for the glue,
 * not text for the model: read whole up to 4 MiB (tokio's widest `impact --depth=6` prints about
 * 55 KB; 4 MiB is read into a graph in about 35 ms of Pi's thread), the answer then cut to the
 * relations caps.
 */
const PATH_DATA_CAPS = { maxBytes: 4 * 1024 * 1024, maxLines: 4 * 1024 * 1024 };
/**
 * How far back from `to` the reverse graph is read: hops of `impact` (CodeGraph clamps to 1–10);
 * when that graph is past PATH_DATA_CAPS (effect's `flatMap`: 10 MB at depth 6), once more at
 * PATH_NEAR_DEPTH (4.0 MB).
 */
const PATH_DEPTH = 6;
const PATH_NEAR_DEPTH = 3;
/** How many callees of one definition a forward step reads (CodeGraph's default is 20). */
const PATH_CALLEES = 50;

/** `codegraph impact --json --depth=6 -- <to>`: the reverse graph a call path is read from. */
function pathImpactCommand(to, depth = PATH_DEPTH) {
  return codegraphCommand("impact", { options: { json: true, depth }, positional: to, ...PATH_DATA_CAPS });
}

/** `codegraph callees --json --limit=50 [--file=] -- <name>`: one forward step of a call path. */
function pathCalleesCommand(name, file) {
  return codegraphCommand("callees", {
    options: { json: true, limit: PATH_CALLEES, file },
    positional: name,
    ...PATH_DATA_CAPS,
  });
}

/**
 * `codegraph callers|callees [--file=] [--limit=] -- <symbol>` or `codegraph impact [--file=] [--depth=] -- <symbol>`;
 * for `path`, the first command it runs (`impact` of `to`, the transcript's line).
 */
function relationsCommand(params) {
  const { relation, symbol, file, limit, depth, to } = relationsArguments(params);
  if (relation === "path") return pathImpactCommand(to);
  return codegraphCommand(relation, { options: { file, limit, depth }, positional: symbol, ...FOCUSED_CAPS.relations });
}

/**
 * codegraph_changes' own runs (lib/api/changes.js), read as data, never shown whole: `codegraph
 * impact --file=<path> --depth=<n> --json -- <name>` and `codegraph affected --json -- <file>`.
 * JSON runs 4–10× the text, so their caps are 2 MiB (a cut one is said, not parsed).
 */
const DATA_CAPS = { maxBytes: 2 * 1024 * 1024, maxLines: 200_000 };
const impactDataCommand = (name, file, depth) =>
  codegraphCommand("impact", {
    options: { file, depth, json: true },
    positional: name,
    progress: "none",
    ...DATA_CAPS,
  });
const affectedDataCommand = (file) =>
  codegraphCommand("affected", { options: { json: true }, positional: file, progress: "none", ...DATA_CAPS });

module.exports = {
  FOCUSED_CAPS,
  affectedDataCommand,
  impactDataCommand,
  codegraphCommand,
  exploreCaps,
  exploreCommand,
  indexFilesCommand,
  nodeCommand,
  PATH_DEPTH,
  PATH_NEAR_DEPTH,
  pathCalleesCommand,
  pathImpactCommand,
  relationsCommand,
};
