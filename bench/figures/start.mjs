// What the extension costs Pi's start: `pi --mode rpc` from spawn to its answer to the first
// command (`get_state`), with the extension (`-e <this package>`) and without it, interleaved,
// in an indexed copy of example/workspace with a throwaway HOME and agent directory; and what
// requiring index.js costs in plain Node (ms, our modules loaded). `node bench/run.mjs start`.

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "../lib/stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PI_DIR = path.join(root, "node_modules", "@mariozechner", "pi-coding-agent");
const PI_CLI = path.join(PI_DIR, "dist", "cli.js");
const PI_VERSION = JSON.parse(fs.readFileSync(path.join(PI_DIR, "package.json"), "utf8")).version;
const ROUNDS = 12;
/** The target: Pi with the extension starts at most 3% later than without (issue 36). */
const TARGET = 1.03;

/** ms from spawn to Pi's response to `get_state`. */
function startOnce(withExtension, { workspace, env }) {
  const args = [PI_CLI, "--mode", "rpc", "--no-session", ...(withExtension ? ["-e", root] : [])];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: workspace, env, stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes('"get_state"')) {
        const ms = performance.now() - t0;
        child.kill("SIGKILL");
        resolve(ms);
      }
    });
    child.on("exit", (code) => reject(new Error(`pi exited (${code}) before answering: ${out.slice(0, 300)}`)));
    child.stdin.write(`${JSON.stringify({ id: "s", type: "get_state" })}\n`);
  });
}

export async function start() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pi-cg-start-"));
  const home = path.join(scratch, "home");
  const agentDir = path.join(home, ".pi", "agent");
  const workspace = path.join(scratch, "ws");
  fs.mkdirSync(agentDir, { recursive: true });
  fs.cpSync(path.join(root, "example", "workspace"), workspace, { recursive: true });
  const bin = path.join(root, "node_modules", ".bin");
  spawnSync(path.join(bin, "codegraph"), ["init", "-y", workspace], { stdio: "ignore" });
  const env = {
    PATH: [bin, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: "1",
    NO_COLOR: "1",
    TMPDIR: os.tmpdir(),
  };

  const plain = spawnSync(
    process.execPath,
    [
      "-e",
      `const t=process.hrtime.bigint();require(${JSON.stringify(root)});` +
        "const ms=Number(process.hrtime.bigint()-t)/1e6;" +
        `const ours=Object.keys(require.cache).filter(k=>k.startsWith(${JSON.stringify(root)})&&!k.includes("node_modules")).length;` +
        "console.log(JSON.stringify({ms,ours}))",
    ],
    { encoding: "utf8" },
  );

  const place = { workspace, env };
  const without = [];
  const withExt = [];
  await startOnce(true, place); // warm the file cache once, unmeasured
  await startOnce(false, place);
  for (let i = 0; i < ROUNDS; i++) {
    // Interleaved, each side first in turn, so drift in the machine's load hits both alike.
    if (i % 2) {
      without.push(await startOnce(false, place));
      withExt.push(await startOnce(true, place));
    } else {
      withExt.push(await startOnce(true, place));
      without.push(await startOnce(false, place));
    }
  }
  fs.rmSync(scratch, { recursive: true, force: true });
  const load = JSON.parse(plain.stdout);
  const ratio = median(withExt) / median(without);
  const fmt = (x) => x.toFixed(1);
  return {
    title: "Pi's start with the extension",
    about:
      `Pi ${PI_VERSION} in rpc mode (\`--no-session\`), from spawn to its response to the first command (\`get_state\`), ` +
      `${ROUNDS} starts with \`-e <this package>\` and ${ROUNDS} without, interleaved (each side first in turn) after one unmeasured start of each, ` +
      "in an indexed copy of example/workspace with a throwaway HOME and agent directory; medians. " +
      "The extension's part includes its session_start (the workspace's diagnosis, the roots, the tools registered).",
    tables: [
      {
        caption: "Start, median ms",
        head: ["", "ms"],
        rows: [
          ["Pi without the extension", fmt(median(without))],
          ["Pi with the extension", fmt(median(withExt))],
          ["require(index.js) in plain Node", `${fmt(load.ms)} (${load.ours} of our modules)`],
        ],
      },
    ],
    notes: [],
    targets: [
      {
        what: "Pi's start with the extension / without",
        target: `≤ ${TARGET}×`,
        measured: `${ratio.toFixed(3)}×`,
        met: ratio <= TARGET,
        why: "what a session needs at start loads at start (the tool, its guidance, the diagnosis); the verbs, /codegraph roots and /codegraph tools load when first typed, and extension.js requires the package natively (through Pi's loader every module would be transformed again).",
      },
    ],
  };
}
