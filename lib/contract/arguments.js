// The focused tools' arguments, checked before anything runs. They are the model's, and the CLI
// does not check them for us: `callers -l abc` prints "(0 of 2)" callers with exit code 0, and
// `impact -d abc` falls back to depth 2. Pi validates a call against the tool's schema first;
// this is the same rule for a caller that reaches execute() or run() without Pi (the SDK, tests),
// and the one place that rejects what a schema cannot say (a `..` segment, a file-mode option
// beside a symbol). A failure is a CODEGRAPH_INVALID_REQUEST Problem naming the tool, the argument
// and the rule (lib/api/failures.js words it, through lib/words/reasons.js).

const { BLANK } = require("./files.js");
const { Problem } = require("./problems.js");

/** A symbol or search text: CodeGraph matches names, so 300 characters is plenty; never empty. */
const MAX_NAME_CHARS = 300;
/** An index lookup key: a path relative to the project, or a suffix of one. */
const MAX_FILE_CHARS = 512;

/** The bounds of every number argument (inclusive), by name; the schemas say the same. */
const RANGES = {
  offset: [1, 1_000_000], // node file mode: the 1-based first line
  lines: [1, 2000], // node file mode: at most as many lines as an answer may hold
  depth: [1, 10], // impact: CodeGraph clamps to 1–10
  limit: [1, 50], // callers/callees per definition, search results
  changesDepth: [1, 4], // codegraph_changes: impact's hops for each changed symbol
};

/**
 * The relations and what each takes besides `symbol` and `file`; `path` takes `from` and `to`
 * instead (lib/api/call-path.js).
 */
const RELATIONS = { callers: "limit", callees: "limit", impact: "depth", path: null };

/**
 * The kinds `codegraph query --kind` filters by: CodeGraph 1.6.1's node kinds (NODE_KINDS in its
 * types), without `file`, `parameter`, `import` and `export`, which are not symbols one looks up.
 */
const SEARCH_KINDS = [
  "function",
  "method",
  "class",
  "interface",
  "type_alias",
  "struct",
  "enum",
  "enum_member",
  "trait",
  "protocol",
  "variable",
  "constant",
  "property",
  "field",
  "namespace",
  "module",
  "route",
  "component",
  "union",
];

/** The Problem of a bad argument: its tool, its name and the rule it broke (`more`: the rule's facts). */
const argumentError = (tool, name, rule, more = {}) =>
  new Problem("CODEGRAPH_INVALID_REQUEST", { reason: { is: "argument", tool, name, rule, ...more } });

/** Reads `params[name]` (a getter may throw: that is an unreadable argument, not a crash). */
function read(tool, params, name) {
  try {
    return params[name];
  } catch {
    throw argumentError(tool, name, "unreadable");
  }
}

/**
 * A name-like text: a string of 1 to `limit` characters (MAX_NAME_CHARS), not blank (explore's one
 * rule, BLANK: White_Space, Cc and Cf, not trim(), which keeps U+0085 and U+200B), without NUL.
 */
function text(tool, name, value, { optional = false, limit = MAX_NAME_CHARS } = {}) {
  if (value === undefined || value === null) {
    if (optional) return undefined;
    throw argumentError(tool, name, "required");
  }
  if (typeof value !== "string") throw argumentError(tool, name, "notString");
  if (value.includes("\0")) throw argumentError(tool, name, "nul");
  if (BLANK.test(value)) throw argumentError(tool, name, "blank");
  if (value.length > limit) throw argumentError(tool, name, "tooLong", { limit });
  return value;
}

/**
 * An index lookup key (node's `file`, relations' `file`, a node symbol written as a path): never
 * a path to open. CodeGraph confines `node --file` to indexed files itself; this keeps the model
 * from even asking for one outside the project: no absolute path (POSIX, a drive, UNC), no `..`
 * segment (either separator), no NUL, no leading `-` (it goes as `--file=<value>` anyway).
 */
function fileKey(tool, name, value, { optional = true } = {}) {
  if (text(tool, name, value, { optional, limit: MAX_FILE_CHARS }) === undefined) return undefined;
  if (/^[/\\]/.test(value) || /^[A-Za-z]:/.test(value) || value.startsWith("~"))
    throw argumentError(tool, name, "absolute");
  if (value.split(/[/\\]/).some((segment) => segment.trim() === "..")) throw argumentError(tool, name, "parent");
  if (value.startsWith("-")) throw argumentError(tool, name, "dash");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a line break or control character in a path is the point
  if (/[\u0000-\u001f\u007f]/.test(value)) throw argumentError(tool, name, "control");
  return value;
}

/** A whole number within its range (RANGES[range]), or undefined when left out. */
function whole(tool, name, value, range = name) {
  if (value === undefined || value === null) return undefined;
  const [min, max] = RANGES[range];
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw argumentError(tool, name, "range", { min, max });
  return value;
}

/** A boolean flag, or undefined when left out. */
function flag(tool, name, value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw argumentError(tool, name, "notBoolean");
  return value;
}

/** One of `values`, or undefined when left out (and optional). */
function oneOf(tool, name, value, values, { optional = true } = {}) {
  if (value === undefined || value === null) {
    if (optional) return undefined;
    throw argumentError(tool, name, "required", { values });
  }
  if (typeof value !== "string" || !values.includes(value)) throw argumentError(tool, name, "enum", { values });
  return value;
}

/** The arguments object itself: a plain object (Pi always passes one). */
function argumentsOf(tool, params) {
  if (params === null || typeof params !== "object" || Array.isArray(params))
    throw argumentError(tool, "", "notObject");
  return params;
}

/** Rejects any argument the tool does not have (a misspelt `limt` would otherwise be dropped silently). */
function known(tool, params, names) {
  let keys;
  try {
    keys = Object.keys(params);
  } catch {
    throw argumentError(tool, "", "notObject");
  }
  for (const key of keys) if (!names.includes(key)) throw argumentError(tool, key, "unknown", { names });
}

/**
 * codegraph_node: `symbol` (one name; a name with a path separator is file mode to CodeGraph, so
 * it is checked as a lookup key too), `file` (file mode alone; with `symbol`, which definition),
 * and the file-mode options `offset`, `limit`, `outline`, which need `file` without `symbol`.
 */
function nodeArguments(params) {
  const tool = "codegraph_node";
  const p = argumentsOf(tool, params);
  known(tool, p, ["symbol", "file", "offset", "limit", "outline"]);
  let symbol = text(tool, "symbol", read(tool, p, "symbol"), { optional: true });
  if (symbol !== undefined && /[/\\]/.test(symbol)) symbol = fileKey(tool, "symbol", symbol);
  const file = fileKey(tool, "file", read(tool, p, "file"));
  const offset = whole(tool, "offset", read(tool, p, "offset"));
  const limit = whole(tool, "limit", read(tool, p, "limit"), "lines");
  const outline = flag(tool, "outline", read(tool, p, "outline"));
  if (symbol === undefined && file === undefined) throw argumentError(tool, "symbol", "symbolOrFile");
  if (symbol !== undefined) {
    for (const [name, value] of [
      ["offset", offset],
      ["limit", limit],
      ["outline", outline],
    ])
      if (value !== undefined) throw argumentError(tool, name, "fileModeOnly");
  }
  return { symbol, file, offset, limit, outline };
}

/**
 * codegraph_relations: `relation` (callers | callees | impact), `symbol`, `file`, `limit` or
 * `depth`; or `relation: "path"` with `from` and `to` (names, the same rules as `symbol`) alone.
 */
function relationsArguments(params) {
  const tool = "codegraph_relations";
  const p = argumentsOf(tool, params);
  known(tool, p, ["relation", "symbol", "file", "limit", "depth", "from", "to"]);
  const relation = oneOf(tool, "relation", read(tool, p, "relation"), Object.keys(RELATIONS), { optional: false });
  if (relation === "path") {
    for (const name of ["symbol", "file", "limit", "depth"])
      if (read(tool, p, name) !== undefined && read(tool, p, name) !== null)
        throw argumentError(tool, name, "notFor", { relation });
    const from = text(tool, "from", read(tool, p, "from"));
    const to = text(tool, "to", read(tool, p, "to"));
    return { relation, from, to };
  }
  for (const name of ["from", "to"])
    if (read(tool, p, name) !== undefined && read(tool, p, name) !== null)
      throw argumentError(tool, name, "notFor", { relation });
  const symbol = text(tool, "symbol", read(tool, p, "symbol"));
  const file = fileKey(tool, "file", read(tool, p, "file"));
  const limit = whole(tool, "limit", read(tool, p, "limit"));
  const depth = whole(tool, "depth", read(tool, p, "depth"));
  if (limit !== undefined && RELATIONS[relation] !== "limit")
    throw argumentError(tool, "limit", "notFor", { relation });
  if (depth !== undefined && RELATIONS[relation] !== "depth")
    throw argumentError(tool, "depth", "notFor", { relation });
  return { relation, symbol, file, limit, depth };
}

/** The kinds that are never required (a lookup key, a number, a flag); a name or an enum is when its row says so. */
const ALWAYS_OPTIONAL = new Set(["file", "whole", "flag"]);
/** Whether a tool's argument (its row's `args` entry) may be left out: the schema and the rule both ask this. */
const isOptional = (arg) => ALWAYS_OPTIONAL.has(arg.kind) || arg.optional === true;

/** Each argument kind's rule (lib/contract/tools.js says which a tool's arguments are). */
const KIND_RULES = {
  name: (tool, name, value, arg) => text(tool, name, value, { optional: isOptional(arg) }),
  file: (tool, name, value) => fileKey(tool, name, value),
  whole: (tool, name, value, arg) => whole(tool, name, value, arg.range ?? name),
  flag: (tool, name, value) => flag(tool, name, value),
  enum: (tool, name, value, arg) => oneOf(tool, name, value, arg.values, { optional: isOptional(arg) }),
};

/**
 * A tool's arguments by its row's `args` (lib/contract/tools.js): each read and held to its kind's
 * rule, in the row's order, any other refused; none at all is an empty object.
 */
function checkedArguments({ name: tool, args }, params) {
  const p = argumentsOf(tool, params ?? {});
  known(tool, p, Object.keys(args));
  return Object.fromEntries(
    Object.entries(args).map(([name, arg]) => [name, KIND_RULES[arg.kind](tool, name, read(tool, p, name), arg)]),
  );
}

module.exports = {
  argumentError,
  checkedArguments,
  isOptional,
  MAX_FILE_CHARS,
  MAX_NAME_CHARS,
  RANGES,
  RELATIONS,
  SEARCH_KINDS,
  nodeArguments,
  relationsArguments,
};
