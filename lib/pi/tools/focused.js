// The focused tools beside codegraph_explore: each is one row of lib/contract/tools.js (its name,
// arguments, caps and command) with its words (lib/pi/guidance.js FOCUSED_WORDS), over the same
// runner (caps with marker and full-output file, timeout, cancel, tree kill, codes, progress, the
// stale-files line). They are registered inactive: absent from the request's tools and from the
// system prompt until the user turns them on (lib/pi/tools/choice.js), because every active tool
// costs its words on every request.

const { MAX_FILE_CHARS, MAX_NAME_CHARS, RANGES, isOptional } = require("../../contract/arguments.js");
const { FOCUSED_TOOL_ROWS } = require("../../contract/tools.js");
const { FOCUSED_WORDS } = require("../guidance.js");

/**
 * A string enum as pi-ai's `StringEnum` makes it (`{ type: "string", enum }`: providers that take
 * no anyOf/const take it); built the same way from TypeBox alone when the peers lack StringEnum
 * (a caller of createExtension with the peers of an earlier version).
 */
const enumField = ({ Type, StringEnum }, values, options) =>
  typeof StringEnum === "function"
    ? StringEnum(values, options)
    : Type.Unsafe({ type: "string", enum: values, ...(options?.description && { description: options.description }) });

/** Each argument kind's schema, its description from the tool's words (left out or not: `isOptional`). */
const KIND_SCHEMAS = {
  name: ({ Type }, described) => Type.String({ ...described, minLength: 1, maxLength: MAX_NAME_CHARS }),
  file: ({ Type }, described) => Type.String({ ...described, minLength: 1, maxLength: MAX_FILE_CHARS }),
  whole: ({ Type }, described, arg, name) => {
    const [minimum, maximum] = RANGES[arg.range ?? name];
    return Type.Integer({ ...described, minimum, maximum });
  },
  flag: ({ Type }, described) => Type.Boolean(described),
  enum: (peers, described, arg) => enumField(peers, arg.values, described),
};

/** A row's schema over Pi's peers (TypeBox `Type`, pi-ai's `StringEnum` when given). */
function parametersOf(row, peers) {
  const fields = Object.entries(row.args).map(([name, arg]) => {
    const field = KIND_SCHEMAS[arg.kind](peers, { description: FOCUSED_WORDS[row.name].args[name] }, arg, name);
    return [name, isOptional(arg) ? peers.Type.Optional(field) : field];
  });
  return peers.Type.Object(Object.fromEntries(fields));
}

/**
 * The focused tools, in the order `/codegraph tools` lists them: a row of lib/contract/tools.js
 * with its `label`, its schema (`parameters(peers)`), `subject` (what the transcript shows of a
 * call) and, for a tool of several runs, the `line` the transcript shows instead of one command.
 */
const FOCUSED_TOOLS = FOCUSED_TOOL_ROWS.map((row) => {
  const words = FOCUSED_WORDS[row.name];
  return {
    ...row,
    label: words.label,
    parameters: (peers) => parametersOf(row, peers),
    subject: words.subject,
    ...(words.line && { line: words.line }),
  };
});

const FOCUSED_NAMES = FOCUSED_TOOLS.map((t) => t.name);
const focusedTool = (name) => FOCUSED_TOOLS.find((t) => t.name === name);

module.exports = { FOCUSED_NAMES, FOCUSED_TOOLS, focusedTool };
