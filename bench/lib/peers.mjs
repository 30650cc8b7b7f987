// The three ways to run the CLI that the figures compare:
//   explore()  the addon's runCommand() of explore's description (lib/contract/commands.js), from the
//              snapshot of the .node index.js loads: what index.js's explore() does, minus a
//              lazy-load check and `?? null` on two arguments
//   execFile   node:child_process.execFile with the same caps (maxBuffer, timeout, signal): what a
//              pure-JS extension would do
//   pi.exec    Pi's own ExtensionAPI.exec (execCommand from @earendil-works/pi-coding-agent 0.73.1):
//              timeout and signal, but no output cap at all
// Each call resolves with the stdout text (or rejects), so the figures can time them alike.

import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./setup.mjs";

const require = createRequire(import.meta.url);
export const indexJs = path.join(root, "index.js");

const { exploreCommand } = require(path.join(root, "lib", "contract", "commands.js"));

export let explore;
/** Loads explore() from the addon snapshot (setup.mjs snapshotAddon): one command description. */
export function useAddon(file) {
  const { runCommand } = require(file);
  explore = (request, cwd, signal, options) => runCommand(exploreCommand(request), cwd, signal, options);
}

// The addon's own limits (its napi consts), not copies of them.
const limits = require(path.join(root, "binding.js"));
/** The addon's stdout cap (51,200 bytes), used as execFile's maxBuffer. */
export const CAP_BYTES = limits.MAX_OUTPUT_BYTES;
/** The addon's drain limit: it reads and counts stdout up to this, then kills the CLI. */
export const DRAIN_BYTES = limits.DRAIN_LIMIT_BYTES;
export const TIMEOUT_MS = limits.DEFAULT_TIMEOUT_MS;

/**
 * The spec is the explore request, which the fake reads its behaviour from. The executable comes
 * from PI_CODEGRAPH_BIN (read by the addon at call time), so `_cli` is only there to share the
 * peers' signature.
 */
export function viaExplore(_cli, cwd, spec, { signal } = {}) {
  return explore(spec, cwd, signal ?? null, { timeoutMs: TIMEOUT_MS }).then((r) => r.text);
}

export function viaExecFile(cli, cwd, spec, { signal, maxBuffer = CAP_BYTES, env } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      cli,
      ["explore", "--", spec],
      { cwd, signal, maxBuffer, timeout: TIMEOUT_MS, env, encoding: "utf8" },
      (err, stdout) => (err ? reject(Object.assign(err, { partialStdout: stdout })) : resolve(stdout)),
    );
  });
}

let execCommand;
export async function loadPiExec() {
  const file = path.join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core", "exec.js");
  ({ execCommand } = await import(pathToFileURL(file).href));
}

export function viaPiExec(cli, cwd, spec, { signal } = {}) {
  return execCommand(cli, ["explore", "--", spec], cwd, { signal, timeout: TIMEOUT_MS }).then((r) => {
    if (r.killed) throw Object.assign(new Error("pi.exec: killed"), { code: "KILLED" });
    return r.stdout;
  });
}

export const PEERS = [
  { name: "explore()", run: viaExplore },
  { name: "execFile", run: viaExecFile },
  { name: "pi.exec", run: viaPiExec },
];
