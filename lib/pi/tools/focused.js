// The focused tools beside codegraph_explore: each is one CodeGraph command with a schema, over
// the same runner (caps with marker and full-output file, timeout, cancel, tree kill, codes,
// progress, the stale-files line). They are registered inactive: absent from the request's tools
// and from the system prompt until the user turns them on (lib/pi/tools/choice.js), because every active
// tool costs its words on every request.

const { FOCUSED_CAPS, nodeCommand, relationsCommand, searchCommand } = require("../../contract/commands.js");
const { RANGES, RELATIONS, SEARCH_KINDS, MAX_FILE_CHARS, MAX_NAME_CHARS } = require("../../contract/arguments.js");
const { FOCUSED_WORDS } = require("../guidance.js");

/** The words of a schema field: its description from lib/pi/guidance.js. */
const described = (name, arg) => ({ description: FOCUSED_WORDS[name].args[arg] });
const nameField = (Type, name, arg) =>
  Type.String({ ...described(name, arg), minLength: 1, maxLength: MAX_NAME_CHARS });
const fileField = (Type, name) =>
  Type.Optional(Type.String({ ...described(name, "file"), minLength: 1, maxLength: MAX_FILE_CHARS }));
const wholeField = (Type, name, arg, range) => {
  const [minimum, maximum] = RANGES[range];
  return Type.Optional(Type.Integer({ ...described(name, arg), minimum, maximum }));
};

/**
 * A string enum as pi-ai's `StringEnum` makes it (`{ type: "string", enum }`: providers that take
 * no anyOf/const take it); built the same way from TypeBox alone when the peers lack StringEnum
 * (a caller of createExtension with the peers of an earlier version).
 */
const enumField = ({ Type, StringEnum }, values, options) =>
  typeof StringEnum === "function"
    ? StringEnum(values, options)
    : Type.Unsafe({ type: "string", enum: values, ...(options?.description && { description: options.description }) });

/**
 * The focused tools, in the order `/codegraph tools` lists them: `name`, the `short` name the user
 * types, the glue call that runs it (`call`), its command builder (`command`, for the caps and the
 * CLI form shown in the transcript), the CLI feature it needs (lib/contract/versions.js), the schema over
 * Pi's peers (TypeBox `Type`, pi-ai's `StringEnum` when given), and `subject`: what the transcript shows of a call.
 */
const FOCUSED_TOOLS = [
  {
    name: "codegraph_node",
    short: "node",
    label: "CodeGraph Node",
    call: "node",
    command: nodeCommand,
    caps: FOCUSED_CAPS.node,
    feature: "node",
    parameters: ({ Type }) =>
      Type.Object({
        symbol: Type.Optional(nameField(Type, "codegraph_node", "symbol")),
        file: fileField(Type, "codegraph_node"),
        offset: wholeField(Type, "codegraph_node", "offset", "offset"),
        limit: wholeField(Type, "codegraph_node", "limit", "lines"),
        outline: Type.Optional(Type.Boolean(described("codegraph_node", "outline"))),
      }),
    subject: (args) => [args?.symbol, args?.file && `file ${args.file}`],
  },
  {
    name: "codegraph_relations",
    short: "relations",
    label: "CodeGraph Relations",
    call: "relations",
    command: relationsCommand,
    caps: FOCUSED_CAPS.relations,
    feature: "callers",
    parameters: (peers) =>
      peers.Type.Object({
        relation: enumField(peers, Object.keys(RELATIONS), described("codegraph_relations", "relation")),
        symbol: peers.Type.Optional(nameField(peers.Type, "codegraph_relations", "symbol")),
        file: fileField(peers.Type, "codegraph_relations"),
        limit: wholeField(peers.Type, "codegraph_relations", "limit", "limit"),
        depth: wholeField(peers.Type, "codegraph_relations", "depth", "depth"),
        from: peers.Type.Optional(nameField(peers.Type, "codegraph_relations", "from")),
        to: peers.Type.Optional(nameField(peers.Type, "codegraph_relations", "to")),
      }),
    subject: (args) =>
      args?.relation === "path"
        ? ["path from", args?.from, "to", args?.to]
        : [args?.relation && `${args.relation} of`, args?.symbol, args?.file && `in ${args.file}`],
  },
  {
    name: "codegraph_search",
    short: "search",
    label: "CodeGraph Search",
    call: "search",
    command: searchCommand,
    caps: FOCUSED_CAPS.search,
    feature: "query",
    parameters: (peers) =>
      peers.Type.Object({
        name: nameField(peers.Type, "codegraph_search", "name"),
        kind: peers.Type.Optional(enumField(peers, SEARCH_KINDS, described("codegraph_search", "kind"))),
        limit: wholeField(peers.Type, "codegraph_search", "limit", "limit"),
      }),
    subject: (args) => [args?.name, args?.kind && `(${args.kind})`],
  },
  {
    name: "codegraph_changes",
    short: "changes",
    label: "CodeGraph Changes",
    call: "changes",
    // Several runs (git, then impact and affected per changed symbol and file): the transcript
    // says what runs instead of one command line.
    command: undefined,
    line: (args) => FOCUSED_WORDS.codegraph_changes.line(args?.depth),
    caps: FOCUSED_CAPS.changes,
    feature: "impact --file",
    parameters: ({ Type }) => Type.Object({ depth: wholeField(Type, "codegraph_changes", "depth", "changesDepth") }),
    subject: (args) => ["the working tree's changes", args?.depth && `(depth ${args.depth})`],
  },
];

const FOCUSED_NAMES = FOCUSED_TOOLS.map((t) => t.name);
const focusedTool = (name) => FOCUSED_TOOLS.find((t) => t.name === name);

module.exports = { FOCUSED_NAMES, FOCUSED_TOOLS, focusedTool };
