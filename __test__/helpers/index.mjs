// Test fixtures: temp workspaces, a fake `codegraph` on PATH, process liveness.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "..", "..");
const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

export function tempDir(prefix = "pi-codegraph-") {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** A workspace with (by default) a minimal index: `.codegraph/codegraph.db` with a SQLite header. */
export function makeWorkspace({ index = true } = {}) {
  const dir = tempDir("pi-codegraph-ws-");
  fs.writeFileSync(path.join(dir, "main.ts"), "export function main() {}\n");
  if (index) {
    fs.mkdirSync(path.join(dir, ".codegraph"));
    fs.writeFileSync(
      path.join(dir, ".codegraph", "codegraph.db"),
      Buffer.concat([SQLITE_HEADER, Buffer.alloc(4080, 7)]),
    );
    fs.writeFileSync(path.join(dir, ".codegraph", ".gitignore"), "*\n!.gitignore\n");
  }
  return dir;
}

/** A directory holding an executable `codegraph` that runs the fake CLI under this Node. */
export function fakeBinDir(name = "codegraph") {
  const dir = tempDir("pi-codegraph-bin-");
  const script = path.join(here, "fake-codegraph.js");
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!${process.execPath}\nrequire(${JSON.stringify(script)});\n`);
  fs.chmodSync(file, 0o755);
  return dir;
}

/** Runs `fn` with `vars` set in process.env (undefined deletes), restoring them afterwards. */
export async function withEnv(vars, fn) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Alive means running: a zombie (exited, not yet reaped by init) is gone for our purposes. */
export function isAlive(pid) {
  if (process.platform === "linux") {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for a condition the code under test makes true, with a hard bound. */
export async function waitFor(check, { timeoutMs = 10000, what = "condition" } = {}) {
  const start = Date.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits (at most 2 s) until none of `pids` is running: a killed tree is gone promptly. */
export function processesDie(pids, what = "the tree to die") {
  return waitFor(() => pids.every((pid) => !isAlive(pid)), { timeoutMs: 2000, what });
}

export function readJsonFile(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

/** sha256 of every file under `dir`, by relative path. */
export function hashTree(dir) {
  const out = {};
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = createHash("sha256").update(fs.readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

export function readLog(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/**
 * For the enclosing file or suite: the fake CLI alone on PATH and an indexed workspace
 * (`fake.bin`, `fake.ws`, set in `before`), with PATH restored `after`.
 */
export function useFakeCli() {
  const fake = {};
  const savedPath = process.env.PATH;
  before(() => {
    fake.bin = fakeBinDir();
    fake.ws = makeWorkspace();
    process.env.PATH = fake.bin;
  });
  after(() => {
    process.env.PATH = savedPath;
  });
  return fake;
}
