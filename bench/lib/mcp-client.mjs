// A stdio client of CodeGraph's MCP server (`codegraph serve --mcp`), speaking as Pi's MCP client
// does (pi-mcp): newline-delimited JSON-RPC, `initialize` with the `roots` capability (the server
// asks `roots/list` for the project: the workspace is the one root), `tools/list`, `tools/call`.
// Launched as one process (CODEGRAPH_NO_DAEMON=1: its default spawns a detached daemon that
// outlives the client for 5 minutes) with no telemetry (DO_NOT_TRACK=1); ended by closing its
// stdin, then its whole process group.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { pathToFileURL } from "node:url";

/** Starts the server in `cwd` (`cli`: the codegraph launcher; `env`: added to the process's). */
export async function startMcp(cli, cwd, env = {}) {
  const child = spawn(cli, ["serve", "--mcp"], {
    cwd,
    env: { ...process.env, CODEGRAPH_NO_DAEMON: "1", DO_NOT_TRACK: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr = `${stderr}${d}`.slice(-4000);
  });
  const pending = new Map();
  let nextId = 1;
  let buffer = "";
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
      const line = buffer.slice(0, at).trim();
      buffer = buffer.slice(at + 1);
      if (!line) continue;
      const message = JSON.parse(line);
      if (message.method && message.id !== undefined) {
        const result =
          message.method === "roots/list"
            ? { roots: [{ uri: pathToFileURL(cwd).href, name: "workspace" }] }
            : undefined;
        send(
          result
            ? { jsonrpc: "2.0", id: message.id, result }
            : { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "not supported" } },
        );
        continue;
      }
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    }
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  /** One request: `{ result, error, ms }`; rejects when the server exits or takes over 5 minutes. */
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const started = performance.now();
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in 5 min\n${stderr}`)), 300_000);
      pending.set(id, (message) => {
        clearTimeout(timer);
        resolve({ result: message.result, error: message.error, ms: performance.now() - started });
      });
      exited.then(() => reject(new Error(`the server exited during ${method}\n${stderr}`)));
      send({ jsonrpc: "2.0", id, method, params });
    });
  await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: { roots: {} },
    clientInfo: { name: "pi-codegraph-bench", version: "0" },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    pid: child.pid,
    tools: async () => (await request("tools/list", {})).result.tools,
    /** A tool call's text (`failed` when the server says it is an error) and its time. */
    call: async (name, args) => {
      const r = await request("tools/call", { name, arguments: args });
      const text = r.result?.content?.map((c) => c.text ?? "").join("") ?? `Error: ${JSON.stringify(r.error)}`;
      return { text, failed: Boolean(r.error || r.result?.isError), ms: r.ms };
    },
    /** The resident memory of its process group now and at its peak (VmRSS, VmHWM; Linux), and how many processes it has. */
    usage: () => groupUsage(child.pid),
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }, 3000);
      await exited;
      clearTimeout(timer);
      try {
        process.kill(-child.pid, "SIGKILL"); // anything of its group still there
      } catch {}
    },
  };
}

/** `{ processes, rssBytes, peakBytes }` of the process group `pgid` (Linux's /proc; zeros elsewhere). */
function groupUsage(pgid) {
  const usage = { processes: 0, rssBytes: 0, peakBytes: 0 };
  if (!fs.existsSync("/proc/self/stat")) return usage;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
      const status = fs.readFileSync(`/proc/${entry}/status`, "utf8");
      const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) * 1024;
      usage.processes += 1;
      usage.rssBytes += kb("VmRSS");
      usage.peakBytes += kb("VmHWM");
    } catch {}
  }
  return usage;
}
