// The calls the contract suites and the fault catalogue run against: explore(), and each focused
// tool (node, relations, search: the same runner, the same promises, their own caps) adapted to
// take the test's request as its one text argument (node's symbol, relations' symbol with a
// relation taken in turn, search's name).
import { createRequire } from "node:module";
import path from "node:path";
import { root } from "./index.mjs";

const { FOCUSED_CAPS } = createRequire(import.meta.url)("../../lib/contract/commands.js");

/** The relations codegraph_relations runs, taken in turn by the topics (one per describe). */
export const RELATIONS = ["callers", "callees", "impact"];
let relationTurn = 0;

/** The focused tools by glue name: the tool's name, its subcommand, and the argument the request goes to. */
const FOCUSED = {
  node: { id: "codegraph_node", subcommand: () => "node", key: "symbol" },
  relations: { id: "codegraph_relations", subcommand: (relation) => relation, key: "symbol" },
  search: { id: "codegraph_search", subcommand: () => "query", key: "name" },
};

/** The names `eachRunner`'s `tools` option takes: explore and the glue names of the focused tools. */
export const ALL_TOOLS = ["explore", "node", "relations", "search"];

/**
 * The call under test: `{ id, glue, subcommand, focused, label, caps, params(request), adapt(module),
 * script(module), env }`. `caps`: the tool's own `{ maxBytes, maxLines }` (lib/contract/commands.js), null
 * for explore (the contract's). `adapt(module)` is `(request, cwd, signal, options) => Promise` over
 * a glue module; `script(expr)` is the same as a JS expression for a child script (`expr`: the glue
 * module); `env` tells a host script (helpers/tool-call.cjs) which call to make.
 */
export function toolCall(glue) {
  if (glue === "explore") {
    return {
      id: "explore",
      glue,
      subcommand: "explore",
      focused: false,
      label: "explore",
      caps: null,
      params: (request) => request,
      adapt: (module) => module.explore,
      script: (module) => `${module}.explore`,
      env: {},
    };
  }
  const tool = FOCUSED[glue];
  const extra = glue === "relations" ? { relation: RELATIONS[relationTurn++ % RELATIONS.length] } : {};
  const params = (request) => ({ ...extra, [tool.key]: request });
  const shape = `{ ...${JSON.stringify(extra)}, ${tool.key}: r }`;
  return {
    id: tool.id,
    glue,
    subcommand: tool.subcommand(extra.relation),
    focused: true,
    caps: FOCUSED_CAPS[glue],
    label: extra.relation ? `${tool.id} (${extra.relation})` : tool.id,
    params,
    adapt:
      (module) =>
      (request, ...rest) =>
        module[glue](params(request), ...rest),
    script: (module) => `((m) => (r, ...a) => m.${glue}(${shape}, ...a))(${module})`,
    env: { PI_CODEGRAPH_TEST_TOOL: JSON.stringify({ glue, key: tool.key, extra }) },
  };
}

/** The package's glue over the Node runner, for a child script of the node runner (its `entry` is the bare runner). */
const INDEX_JS = JSON.stringify(path.join(root, "index.js"));

/**
 * The package's glue of `impl` for a child script, as a JS expression: `require(entry)` (index.js),
 * or for the Node runner index.js's forRunner over the bare runner (the public seam: the runner
 * itself returns facts, never words).
 */
export function glueOf(impl) {
  const entry = JSON.stringify(impl.entry);
  return impl.id !== "node" ? `require(${entry})` : `require(${INDEX_JS}).forRunner(require(${entry}))`;
}

/** `tool`'s call for a child script of `impl` (helpers/impl.mjs), as a JS expression, over its glue. */
export function calleeOf(tool, impl) {
  return tool.script(glueOf(impl));
}
