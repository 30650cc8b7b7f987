// The registered Pi tool: its schema (one `request` field, bounded by the backend's
// MAX_REQUEST_CHARS), its execute() over the backend, and its renderers.

const { FALLBACK_LINE, TOOL_NAME, guidance, toolDescription } = require("./guidance.js");
const { failedAnswer } = require("./answer.js");
const { renderCall, renderResult } = require("./render.js");

/**
 * The tool for the session `state` (its diagnosis decides the guidance), built with Pi's peers
 * (TypeBox's `Type` for the schema; pi-tui's `Text` and Pi's `formatSize` and `keyHint` for the
 * renderers) over `api` (wrapBackend's explore and limits).
 */
function createTool(state, peers, api) {
  const { Type } = peers;
  const limits = api.limits();
  return {
    name: TOOL_NAME,
    label: "CodeGraph Explore",
    description: toolDescription(limits),
    ...guidance(state.diagnosis, state.ledger?.count() ?? 0),
    parameters: Type.Object({
      request: Type.String({
        description:
          "The Explore request: one natural-language question about the code's structure, naming the symbols or files it is about (e.g. 'how does CheckoutService.checkout reach PaymentProcessor.charge').",
        minLength: 1,
        ...(limits.MAX_REQUEST_CHARS ? { maxLength: limits.MAX_REQUEST_CHARS } : {}),
      }),
    }),

    async execute(_toolCallId, params, signal, onUpdate, ctx) {
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
        // The workspace is Pi's, never the model's: the tool has no path parameter.
        const result = await api.explore(params?.request, ctx?.cwd, signal, { onProgress, onQueue });
        state.lastError = undefined;
        const file = result.details.fullOutputPath;
        if (file && sessionFiles === state.fullOutputs) sessionFiles.push(file);
        return { content: [{ type: "text", text: result.text }], details: result.details };
      } catch (err) {
        state.lastError = { at: new Date().toISOString(), message: err.message };
        // Pi hands the model only the message: it carries what a stopped CLI had printed.
        const caps = { maxBytes: limits.MAX_OUTPUT_BYTES, maxLines: limits.MAX_OUTPUT_LINES };
        // A cancel is the user's (Esc): no advice to the model to use other tools instead.
        const trailer = err.code === "CODEGRAPH_CANCELLED" ? "" : FALLBACK_LINE;
        const toolError = new Error(failedAnswer(err, caps, trailer), { cause: err });
        Object.assign(toolError, { code: err.code, remediation: err.remediation, details: err.details });
        throw toolError;
      } finally {
        // What the call showed may have changed readiness (an index made or removed meanwhile).
        state.refresh?.(ctx);
      }
    },

    renderCall: (args, theme, context) => renderCall(peers, args, theme, context),
    renderResult: (result, options, theme, context) => renderResult(peers, result, options, theme, context),
  };
}

module.exports = { createTool };
