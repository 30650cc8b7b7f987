// The registered Pi tools: codegraph_explore (one `request` field, bounded by the backend's
// MAX_REQUEST_CHARS) and the focused tools (lib/tools.js), each with its schema, its execute()
// over the backend, and its renderers.

const { FALLBACK_LINE, TOOL_NAME, guidance, toolDescription } = require("./guidance.js");
const { fallbackLineOf, focusedDescription, focusedGuidance } = require("./guidance.js");
const { failedAnswer } = require("./answer.js");
const { renderCall, renderFocusedCall, renderResult } = require("./render.js");
const { focusedTool } = require("./tools.js");

/**
 * The tool `name` (codegraph_explore by default, or a focused tool) for the session `state` (its
 * diagnosis and the focused tools on decide the guidance), built with Pi's peers (TypeBox's `Type`
 * and pi-ai's `StringEnum` for the schema; pi-tui's `Text` and Pi's `formatSize` and `keyHint` for
 * the renderers) over `api` (wrapBackend's calls and limits).
 */
function createTool(state, peers, api, name = TOOL_NAME) {
  if (name !== TOOL_NAME) return createFocusedTool(state, peers, api, focusedTool(name));
  const { Type } = peers;
  const limits = api.limits();
  return {
    name: TOOL_NAME,
    label: "CodeGraph Explore",
    description: toolDescription(limits),
    ...guidance(state.diagnosis, state.ledger?.count() ?? 0, state.activeFocused?.() ?? []),
    parameters: Type.Object({
      request: Type.String({
        description:
          "The Explore request: one natural-language question about the code's structure, naming the symbols or files it is about (e.g. 'how does CheckoutService.checkout reach PaymentProcessor.charge').",
        minLength: 1,
        ...(limits.MAX_REQUEST_CHARS ? { maxLength: limits.MAX_REQUEST_CHARS } : {}),
      }),
    }),

    execute: (_toolCallId, params, signal, onUpdate, ctx) =>
      // A cancel is the user's (Esc): no advice to the model to use other tools instead.
      executeCall(state, ctx, onUpdate, {
        run: (options) => api.explore(params?.request, ctx?.cwd, signal, options),
        caps: { maxBytes: limits.MAX_OUTPUT_BYTES, maxLines: limits.MAX_OUTPUT_LINES },
        trailer: (err) => (err.code === "CODEGRAPH_CANCELLED" ? "" : FALLBACK_LINE),
      }),

    renderCall: (args, theme, context) => renderCall(peers, args, theme, context),
    renderResult: (result, options, theme, context) => renderResult(peers, result, options, theme, context),
  };
}

/** A focused tool (lib/tools.js `spec`): its schema, words and caps, over the same execute(). */
function createFocusedTool(state, peers, api, spec) {
  return {
    name: spec.name,
    label: spec.label,
    description: focusedDescription(spec.name, spec.caps),
    ...focusedGuidance(spec.name, state.diagnosis),
    parameters: spec.parameters(peers),
    execute: (_toolCallId, params, signal, onUpdate, ctx) =>
      executeCall(state, ctx, onUpdate, {
        // The workspace is Pi's, never the model's: `file` is an index lookup key (lib/arguments.js).
        run: (options) => api[spec.call](params, ctx?.cwd, signal, options),
        caps: spec.caps,
        // After a bad argument the model fixes the call; after a cancel, nothing to advise.
        trailer: (err) =>
          err.code === "CODEGRAPH_CANCELLED" || err.code === "CODEGRAPH_INVALID_REQUEST"
            ? ""
            : fallbackLineOf(spec.name),
      }),
    renderCall: (args, theme, context) => renderFocusedCall(peers, spec, args, theme, context),
    renderResult: (result, options, theme, context) =>
      renderResult(peers, result, options, theme, context, `codegraph ${spec.short}`),
  };
}

/**
 * One call of any of the tools: `run(options)` with the progress and queue listeners Pi's
 * `onUpdate` gets, the answer as Pi's tool result, a failure as a thrown Error whose message is
 * what the model reads (within `caps`, then `trailer(err)`).
 */
async function executeCall(state, ctx, onUpdate, { run, caps, trailer }) {
  // Partial output while the CLI prints (bounded by the same caps, at most every 250 ms),
  // and, before that, the call's place in the index's queue when it has to wait.
  const update = typeof onUpdate === "function" ? onUpdate : undefined;
  const onProgress =
    update &&
    ((p) =>
      update({
        content: [{ type: "text", text: p.text }],
        details: { partial: true, seenBytes: p.seenBytes, seenLines: p.seenLines, elapsedMs: p.elapsedMs },
      }));
  const onQueue =
    update &&
    ((q) =>
      update({
        content: [{ type: "text", text: "" }],
        details: { queued: true, ahead: q.ahead, limit: q.limit, waitedMs: q.waitedMs },
      }));
  // The session this call belongs to: one that ended meanwhile released its files already,
  // and a later session must not release this call's (it stays until the process exits).
  const sessionFiles = state.fullOutputs;
  try {
    // The workspace is Pi's, never the model's: no tool has a path parameter.
    const result = await run({ onProgress, onQueue });
    state.lastError = undefined;
    const file = result.details.fullOutputPath;
    if (file && sessionFiles === state.fullOutputs) sessionFiles.push(file);
    return { content: [{ type: "text", text: result.text }], details: result.details };
  } catch (err) {
    state.lastError = { at: new Date().toISOString(), message: err.message };
    // Pi hands the model only the message: it carries what a stopped CLI had printed.
    const toolError = new Error(failedAnswer(err, caps, trailer(err)), { cause: err });
    Object.assign(toolError, { code: err.code, remediation: err.remediation, details: err.details });
    throw toolError;
  } finally {
    // What the call showed may have changed readiness (an index made or removed meanwhile).
    state.refresh?.(ctx);
  }
}

module.exports = { createTool };
