// The fake CLI's `serve --mcp`: CodeGraph's MCP server as the runner's long-lived CodeGraph meets
// it (crates/core/src/warm.rs), one JSON-RPC message per line on stdio. `initialize` is answered;
// each `tools/call` is answered with a line that names the tool, its arguments, this process and
// how many calls it has answered, unless FAKE_CG_SERVE says otherwise:
// - "hang": a tools/call is never answered (the call's deadline or cancel must stop the tree);
// - "die": the process exits at a tools/call without answering (the call runs as a process);
// - "error": answered with `isError` (the CLI's exit 1);
// - "decline-once": the first tools/call gets a JSON-RPC error, the next ones answers;
// - "refuse": exits 1 at once, as CodeGraph's server does when another server holds the index;
// - "flood": answers a tools/call with one line longer than the runner reads (34 MiB).
// FAKE_CG_SERVE_PIDS names a file the fake writes `{ server, grandchild }` to once both run (a
// grandchild in its process group, which must die with it). It exits when its stdin closes, as
// CodeGraph's server does.

const fs = require("node:fs");
const { spawn } = require("node:child_process");
const readline = require("node:readline");

module.exports = function serve(env) {
  const mode = env.FAKE_CG_SERVE ?? "answer";
  if (mode === "refuse") {
    process.stderr.write("CodeGraph writer lock held by PID 1 (direct mode).\n");
    process.exit(1);
  }
  const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  if (env.FAKE_CG_SERVE_PIDS) {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    fs.writeFileSync(env.FAKE_CG_SERVE_PIDS, JSON.stringify({ server: process.pid, grandchild: child.pid }));
  }
  let answered = 0;
  let declined = false;
  const lines = readline.createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.method === "initialize") {
      send({
        id: message.id,
        result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "fake" } },
      });
      return;
    }
    if (message.method !== "tools/call") return;
    if (mode === "hang") return;
    if (mode === "die") process.exit(3);
    if (mode === "flood") {
      process.stdout.write(
        `{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"${"x".repeat(34 << 20)}"}]}}\n`,
      );
      return;
    }
    if (mode === "decline-once" && answered === 0 && !declined) {
      declined = true;
      send({ id: message.id, error: { code: -32602, message: "invalid params" } });
      return;
    }
    answered += 1;
    const { name, arguments: args } = message.params;
    const text = `served ${name} ${JSON.stringify(args)} by ${process.pid} (call ${answered})`;
    send({
      id: message.id,
      result: { content: [{ type: "text", text }], ...(mode === "error" ? { isError: true } : {}) },
    });
  });
  lines.on("close", () => process.exit(0));
};
