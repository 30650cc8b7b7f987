// A tiny streaming OpenAI-compatible chat-completions server for driving the real Pi CLI offline.
// Turn 1 (no `tool` message yet) answers with one streamed tool call, or with `calls` several in
// one assistant message (as a model asks for parallel calls); every later turn answers with plain
// text (or `plan` decides each turn's calls from the request). It records every request body so a
// test can assert on what Pi sent.
import http from "node:http";

/**
 * Starts the server on 127.0.0.1 with an OS-assigned port.
 * `calls` (`[{ id, request }]`) replaces the one call (`callId`, `request`) with several, streamed
 * in order as indexes 0, 1, … of one message. `byModel` (`{ [modelId]: calls }`) gives a model its
 * own calls, each with its tool `name` and its `arguments` (an object, sent as the model wrote
 * it); an empty list answers the first turn with plain text too. `plan(body)`, asked first on every
 * request, returns the calls of that turn (as byModel's, built from what the request carries, e.g.
 * an earlier tool result; an empty list answers with plain text), or undefined to leave the turn to
 * the options above.
 * @param {{ toolName?: string, request?: string, callId?: string, calls?: { id: string, request: string }[], byModel?: Record<string, { id: string, name?: string, request?: string, arguments?: object }[]>, plan?: (body: any) => { id: string, name?: string, request?: string, arguments?: object }[] | undefined, finalText?: string }} [options]
 */
export async function startFakeOpenAI(options = {}) {
  const {
    toolName = "codegraph_explore",
    request = "how does CheckoutService.checkout call charge",
    callId = "call_cg_1",
    finalText = "FAKE_MODEL_DONE",
  } = options;
  const calls = options.calls ?? [{ id: callId, request }];
  /** @type {{ method: string, url: string, authorization?: string, body: any }[]} */
  const requests = [];

  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      raw += chunk;
    });
    req.on("end", () => {
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = { unparsable: raw };
      }
      requests.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
      if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `fake-openai: no route ${req.method} ${req.url}` } }));
        return;
      }
      const model = body?.model ?? "fake-model";
      const messages = Array.isArray(body?.messages) ? body.messages : [];
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const chunk = (choices, extra = {}) =>
        res.write(
          `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model, choices, ...extra })}\n\n`,
        );
      const delta = (d, finish = null) => chunk([{ index: 0, delta: d, finish_reason: finish }]);

      const planned = options.plan?.(body);
      const turnCalls = planned ?? options.byModel?.[model] ?? calls;
      if ((planned !== undefined || !messages.some((m) => m.role === "tool")) && turnCalls.length > 0) {
        // Each tool call, its JSON arguments split across several deltas as real models stream them.
        delta({ role: "assistant", content: "" });
        turnCalls.forEach((call, index) => {
          const args = JSON.stringify(call.arguments ?? { request: call.request });
          const cut = [0, 3, Math.floor(args.length / 2), args.length - 2, args.length];
          delta({
            tool_calls: [
              { index, id: call.id, type: "function", function: { name: call.name ?? toolName, arguments: "" } },
            ],
          });
          for (let i = 0; i + 1 < cut.length; i++) {
            delta({ tool_calls: [{ index, function: { arguments: args.slice(cut[i], cut[i + 1]) } }] });
          }
        });
        delta({}, "tool_calls");
      } else {
        delta({ role: "assistant", content: "" });
        delta({ content: finalText.slice(0, 5) });
        delta({ content: finalText.slice(5) });
        delta({}, "stop");
      }
      chunk([], { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
      res.end("data: [DONE]\n\n");
    });
  });

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();

  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Chat-completion request bodies, in arrival order. */
    get chatBodies() {
      return requests.filter((r) => r.url.endsWith("/chat/completions")).map((r) => r.body);
    },
    /** Chat-completion request bodies for one model id (one Pi run per model keeps runs apart). */
    bodiesFor(modelId) {
      return this.chatBodies.filter((b) => b?.model === modelId);
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
