// The focused tools beside codegraph_explore, declared once: each row is a tool's name, the short
// name the user types, the glue call that runs it (`call`), the CLI feature it needs
// (versions.js), its caps, its arguments (`args`: the schema lib/pi/tools/focused.js builds and
// the rule `checkedArguments` applies) and the CodeGraph command it runs: `build(args, row)` from
// the arguments checked by that rule, or `command(params)` for a tool with rules of its own
// (none for a tool lib/api composes of several runs). Its words are
// lib/pi/guidance.js's FOCUSED_WORDS[name]; its types index.d.ts's. lib/api/calls.js,
// lib/glue.js, lib/pi/tools/ and lib/words/tools.js iterate these rows.
//
// An argument is `{ kind, optional?, range?, values? }`: `name` (a symbol or search text),
// `file` (an index lookup key, always optional), `whole` (a whole number in RANGES[range], always
// optional), `flag` (a boolean, always optional), `enum` (one of `values`).

const { RANGES, RELATIONS, SEARCH_KINDS, checkedArguments } = require("./arguments.js");
const { FOCUSED_CAPS, codegraphCommand, nodeCommand, relationsCommand } = require("./commands.js");

const FOCUSED_TOOL_ROWS = [
  {
    name: "codegraph_node",
    short: "node",
    call: "node",
    feature: "node",
    caps: FOCUSED_CAPS.node,
    args: {
      symbol: { kind: "name", optional: true },
      file: { kind: "file" },
      offset: { kind: "whole", range: "offset" },
      limit: { kind: "whole", range: "lines" },
      outline: { kind: "flag" },
    },
    // File mode and a symbol's own rules (arguments.js nodeArguments).
    command: nodeCommand,
  },
  {
    name: "codegraph_relations",
    short: "relations",
    call: "relations",
    feature: "callers",
    caps: FOCUSED_CAPS.relations,
    args: {
      relation: { kind: "enum", values: Object.keys(RELATIONS) },
      symbol: { kind: "name", optional: true },
      file: { kind: "file" },
      limit: { kind: "whole", range: "limit" },
      depth: { kind: "whole", range: "depth" },
      from: { kind: "name", optional: true },
      to: { kind: "name", optional: true },
    },
    // Which arguments each relation takes (arguments.js relationsArguments); `path` is several
    // runs, composed by lib/api/call-path.js.
    command: relationsCommand,
  },
  {
    name: "codegraph_search",
    short: "search",
    call: "search",
    feature: "query",
    caps: FOCUSED_CAPS.search,
    args: {
      name: { kind: "name" },
      kind: { kind: "enum", values: SEARCH_KINDS, optional: true },
      limit: { kind: "whole", range: "limit" },
    },
    // `codegraph query [--kind=] [--limit=] -- <name>`: text, never `--json` (4–10× larger for the model).
    build: ({ name, kind, limit }, row) =>
      codegraphCommand("query", { options: { kind, limit }, positional: name, ...row.caps }),
  },
  {
    name: "codegraph_changes",
    short: "changes",
    call: "changes",
    feature: "impact --file",
    caps: FOCUSED_CAPS.changes,
    args: { depth: { kind: "whole", range: "changesDepth" } },
    // Several runs (git, then impact and affected per changed symbol and file): lib/api/changes.js.
    command: undefined,
  },
];
for (const row of FOCUSED_TOOL_ROWS) {
  if (row.build) row.command = (params) => row.build(checkedArguments(row, params), row);
  Object.freeze(row);
}

/** The row of the tool `name`, or undefined. */
const toolRow = (name) => FOCUSED_TOOL_ROWS.find((row) => row.name === name);

module.exports = { FOCUSED_TOOL_ROWS, RANGES, toolRow };
