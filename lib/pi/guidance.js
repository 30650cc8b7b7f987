// What the model is told: the tool's name, its description (with the runner's own limits), the
// prompt snippet and guidelines for the current readiness, and the line every tool error ends with.

const { projectsGuideline } = require("../words/roots.js");

const TOOL_NAME = "codegraph_explore";
/**
 * Ends a tool's errors (`name`'s), so the model moves on instead of retrying an unavailable index.
 * Pi's default tools are read, bash, edit and write: grep and find may only exist through bash.
 */
const fallbackLineOf = (name) =>
  `${name} is unavailable for this request; use read, and grep/find (as tools or through bash), instead.`;
/** Ends every codegraph_explore error. */
const FALLBACK_LINE = fallbackLineOf(TOOL_NAME);

/** The tool description; `caps` (`{ maxBytes, maxLines }`) are those its calls run with (exploreCaps). */
function toolDescription(caps) {
  const { maxLines: lines, maxBytes: bytes } = caps ?? {};
  const bounds =
    lines && bytes
      ? `Output is truncated to ${lines} lines or ${Math.round(bytes / 1024)}KB (whichever is hit first, the truncation note included)`
      : "Output is truncated to a bounded size (the truncation note included)";
  return (
    "Ask CodeGraph, the local code index of the current workspace, a structural question in natural language. " +
    "Returns the relevant symbols' source with file:line locations, call paths (Flow), callers (blast radius) and implementations. " +
    "Runs `codegraph explore` in the active workspace only; it never creates or updates the index. " +
    `${bounds}; a truncated result names a file with the full output.`
  );
}

const readySnippet =
  "Ask the workspace's CodeGraph index structural questions: where symbols are defined, what calls what, what implements an interface, and call paths between symbols";

const readyGuidelines = [
  `Use ${TOOL_NAME} for architecture, relationship and call-path questions (what calls X, what implements Y, how A reaches B); name concrete symbols, files or code terms, since CodeGraph matches names lexically, not by meaning.`,
  `Do not use ${TOOL_NAME} to read a file you already know or to search for exact text; use read, or grep (as a tool or through bash), for those.`,
  `${TOOL_NAME} answers are CodeGraph's own text: where it says to use "the Read tool" or codegraph_node, use read with the file:line it gives (codegraph_node does not exist here), or ask ${TOOL_NAME} about that symbol.`,
];
/**
 * The first line when codegraph_relations is on: how A reaches B goes to its `path` (explore
 * answers a call-path question with endpoints: issue 45), who calls X, what implements or extends
 * Y and what a change breaks go to it too (its answers run about 0.2 to 9 KB where explore's run
 * about 24 KB: `npm run bench -- answers`); explore keeps architecture.
 */
const withRelationsGuideline = `Use ${TOOL_NAME} for architecture questions, naming concrete symbols, files or code terms, since CodeGraph matches names lexically; for how A reaches B (a call path), callers, implementations or a change's impact, codegraph_relations answers in a fraction of the size.`;
/** The third line when codegraph_node is on: CodeGraph's pointers to it are followed, not steered away from. */
const withNodeGuideline = `${TOOL_NAME} answers are CodeGraph's own text: where it says to use "the Read tool", use read with the file:line it gives; where it says codegraph_node, call codegraph_node.`;

/**
 * The focused tools' words (lib/contract/tools.js has the rest): the label, the description (the
 * caps appended), one prompt snippet and one guideline each, the schema's argument descriptions,
 * and `subject(args)`: what the transcript shows of a call. Kept short: every active tool costs
 * its words on every request.
 */
const FOCUSED_WORDS = {
  codegraph_node: {
    label: "CodeGraph Node",
    subject: (args) => [args?.symbol, args?.file && `file ${args.file}`],
    description:
      "Read one symbol from the workspace's CodeGraph index (location, signature, source, callers, callees), or an indexed file's numbered lines or outline. Read-only.",
    snippet: "A symbol's source, callers and callees, or an indexed file's lines or outline",
    guideline: "Use codegraph_node to read a symbol or a file's outline (outline: true) instead of whole files.",
    args: {
      symbol: "Symbol name, e.g. 'checkout' or 'CheckoutService.checkout'",
      file: "Indexed file: alone, file mode; with symbol, which definition",
      offset: "File mode: first line (1-based)",
      limit: "File mode: number of lines",
      outline: "File mode: only the file's symbols and its dependents",
    },
  },
  codegraph_relations: {
    label: "CodeGraph Relations",
    subject: (args) =>
      args?.relation === "path"
        ? ["path from", args?.from, "to", args?.to]
        : [args?.relation && `${args.relation} of`, args?.symbol, args?.file && `in ${args.file}`],
    description:
      "What calls or reads a symbol (callers), what it calls (callees), what changing it affects (impact; depth 1 also lists implementations), or how one reaches another (path), from the workspace's CodeGraph index and the source. Read-only.",
    snippet: "Callers, callees, impact of a symbol, or a call path between two",
    guideline:
      "Use codegraph_relations: path (from, to) for how A reaches B; callers for what calls or reads X; impact, depth 1, for what implements or extends X. For how A works, codegraph_node on A.",
    args: {
      relation: "callers, callees, impact, or path",
      symbol: "Symbol name",
      from: "path: start symbol",
      to: "path: end symbol",
      file: "Indexed file that picks the definition",
      limit: "callers/callees: most results (default 20)",
      depth: "impact: hops to follow (default 2)",
    },
  },
  codegraph_changes: {
    label: "CodeGraph Changes",
    subject: (args) => ["the working tree's changes", args?.depth && `(depth ${args.depth})`],
    description:
      "The uncommitted changes (git diff HEAD, untracked files too): the symbols they touch, what depends on each and the tests that cover them, from the workspace's CodeGraph index. Read-only.",
    snippet: "What uncommitted changes break, and the tests that cover them",
    guideline: "Use codegraph_changes for what your edits break and which tests to run.",
    args: {
      depth: "impact: hops to follow (default 2)",
    },
    doing: "git diff HEAD, then CodeGraph's impact and affected",
    // Several runs: the transcript says what runs instead of one command line.
    line: (args) =>
      `$ git diff HEAD; codegraph impact${args?.depth ? ` --depth=${args.depth}` : ""} per changed symbol; codegraph affected per changed file`,
  },
  codegraph_search: {
    label: "CodeGraph Search",
    subject: (args) => [args?.name, args?.kind && `(${args.kind})`],
    description:
      "Find symbols by part of their name in the workspace's CodeGraph index: kind, file:line, signature; no source. Read-only.",
    snippet: "Find symbols by part of their name (kind, file:line, signature)",
    guideline: "Use codegraph_search to find where a symbol is defined.",
    args: {
      name: "Symbol name or part of one",
      kind: "Only symbols of this kind",
      limit: "Most results (default 10)",
    },
  },
};

/** A focused tool's description: its words and the caps of its command. */
function focusedDescription(name, caps) {
  const { maxLines: lines, maxBytes: bytes } = caps;
  return `${FOCUSED_WORDS[name].description} Cut at ${Math.round(bytes / 1024)}KB or ${lines} lines; the rest is saved to a file.`;
}

/**
 * A focused tool's snippet and guideline for the current readiness. When the index cannot serve,
 * a short snippet only: explore's words already tell the model what the user must do.
 */
function focusedGuidance(name, diagnosis) {
  if (diagnosis.ready)
    return { promptSnippet: FOCUSED_WORDS[name].snippet, promptGuidelines: [FOCUSED_WORDS[name].guideline] };
  return {
    promptSnippet: `Unavailable in this workspace (${diagnosis.problemCode}), as ${TOOL_NAME} is`,
    promptGuidelines: [],
  };
}

/**
 * The prompt text for the current readiness: the tool is only advertised as ready when it can
 * serve; otherwise it says what the user must do. Nothing the model does changes it (files it
 * edits are named on the answers about them: lib/api/staleness.js), so the prompt a provider
 * caches stays put. `active`: the focused tools on (lib/pi/tools/focused.js); with
 * codegraph_node among them, CodeGraph's pointers to it are followed instead of steered away from.
 * `roots` (lib/pi/roots/roots.js, those with an index): with several, one line on `project`.
 */
function guidance(diagnosis, active = [], roots = []) {
  if (diagnosis.ready) {
    const first = active.includes("codegraph_relations") ? withRelationsGuideline : readyGuidelines[0];
    const third = active.includes("codegraph_node") ? withNodeGuideline : readyGuidelines[2];
    const base = [first, readyGuidelines[1], third];
    const projects = roots.length > 1 ? [projectsGuideline(!roots.some((r) => r.source === "workspace"))] : [];
    return { promptSnippet: readySnippet, promptGuidelines: [...base, ...projects] };
  }
  if (diagnosis.problemCode === "CODEGRAPH_INDEX_BUSY") {
    // Passing: readiness is checked again before every turn, and nothing is for the user to fix.
    return {
      promptSnippet: `Unavailable while CodeGraph is indexing this workspace (CODEGRAPH_INDEX_BUSY); available again once it finishes. Use read, and grep/find through bash, meanwhile`,
      promptGuidelines: [
        `Do not call ${TOOL_NAME} while CodeGraph is indexing (CODEGRAPH_INDEX_BUSY); it becomes available by itself when the indexing finishes.`,
      ],
    };
  }
  return {
    promptSnippet: `Unavailable in this workspace (${diagnosis.problemCode}): ${diagnosis.remediation} Use read, and grep/find through bash, instead`,
    promptGuidelines: [
      `Do not call ${TOOL_NAME} until the user has fixed this: ${diagnosis.problemCode}. If structure matters, tell the user once: ${diagnosis.remediation}`,
    ],
  };
}

module.exports = {
  TOOL_NAME,
  FALLBACK_LINE,
  FOCUSED_WORDS,
  fallbackLineOf,
  focusedDescription,
  focusedGuidance,
  toolDescription,
  guidance,
};
