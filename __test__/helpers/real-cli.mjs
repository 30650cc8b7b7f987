// The pinned real CodeGraph CLI (node_modules/.bin/codegraph) for the tests that run it: its bin
// folder, and a workspace of given files indexed by it as a user's `codegraph init -y .` would.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { root, tempDir } from "./index.mjs";

export const cliBin = path.join(root, "node_modules", ".bin");
export const realCodegraph = path.join(cliBin, "codegraph");

/** A temporary workspace (`prefix`) holding `files` ({ relative path: text }), indexed by the pinned CLI. */
export function indexedWorkspace(prefix, files) {
  const ws = tempDir(prefix);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  }
  execFileSync(realCodegraph, ["init", "-y", "."], {
    cwd: ws,
    env: { ...process.env, DO_NOT_TRACK: "1" },
    stdio: "ignore",
  });
  return ws;
}
