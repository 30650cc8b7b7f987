// What the model is told: the tool's name, its description (with the backend's own limits), the
// prompt snippet and guidelines for the current readiness, and the line every tool error ends with.

const { editedGuideline } = require("./words/staleness.js");

const TOOL_NAME = "codegraph_explore";
/**
 * Ends every tool error, so the model moves on instead of retrying an unavailable index. Pi's
 * default tools are read, bash, edit and write: grep and find may only exist through bash.
 */
const FALLBACK_LINE = `${TOOL_NAME} is unavailable for this request; use read, and grep/find (as tools or through bash), instead.`;

/** The tool description; the caps are the backend's (`limits` as wrapBackend's limits() reads them). */
function toolDescription(limits) {
  const { MAX_OUTPUT_LINES: lines, MAX_OUTPUT_BYTES: bytes } = limits;
  const caps =
    lines && bytes
      ? `Output is truncated to ${lines} lines or ${Math.round(bytes / 1024)}KB (whichever is hit first, the truncation note included)`
      : "Output is truncated to a bounded size (the truncation note included)";
  return (
    "Ask CodeGraph, the local code index of the current workspace, a structural question in natural language. " +
    "Returns the relevant symbols' source with file:line locations, call paths (Flow), callers (blast radius) and implementations. " +
    "Runs `codegraph explore` in the active workspace only; it never creates or updates the index. " +
    `${caps}; a truncated result names a file with the full output.`
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
 * The prompt text for the current readiness: the tool is only advertised as ready when it can
 * serve; otherwise it says what the user must do. `editedSinceIndex` (files Pi's own tools edited
 * after the index was written) adds one line while above zero, without the number, so that the
 * prompt does not change with every edit.
 */
function guidance(diagnosis, editedSinceIndex = 0) {
  if (diagnosis.ready) {
    const guidelines = editedSinceIndex > 0 ? [...readyGuidelines, editedGuideline(TOOL_NAME)] : readyGuidelines;
    return { promptSnippet: readySnippet, promptGuidelines: guidelines };
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

module.exports = { TOOL_NAME, FALLBACK_LINE, toolDescription, guidance };
