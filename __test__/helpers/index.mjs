// Test fixtures: temp workspaces, the fake `codegraph` (fake-codegraph.js, on PATH or as a
// launcher driven by a spec), environment overrides and the assertions on coded errors. Process
// liveness and waits live in processes.mjs (re-exported here).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "..", "..");
const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");
const FAKE_SCRIPT = path.join(here, "fake-codegraph.js");

export { isAlive, killAndReap, processesDie, waitFor } from "./processes.mjs";

/** Pi's active CodeGraph tools when the user chose nothing: explore and lib/pi/tools/choice.js's DEFAULT_TOOLS. */
export const DEFAULT_ACTIVE = Object.freeze([
  "codegraph_explore",
  ...createRequire(import.meta.url)("../../lib/pi/tools/choice.js").DEFAULT_TOOLS,
]);

// Every temp directory a test file made goes when its process exits: the suite makes thousands
// (real indexes and Pi sessions among them), run after run, on disks that are not only ours.
const made = [];
process.on("exit", () => {
  for (const dir of made) removeTree(dir);
});

/** Removes a tree, giving its directories back their permissions first where a test took them. */
function removeTree(dir) {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    openUp(dir);
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {}
  }
}

function openUp(dir) {
  try {
    fs.chmodSync(dir, 0o700);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) openUp(path.join(dir, entry.name));
    }
  } catch {}
}

export function tempDir(prefix = "pi-codegraph-") {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/**
 * The system directories a run of the real pinned CodeGraph needs on PATH: 1.6.1's npm shim execs
 * a per-platform /bin/sh launcher that calls `dirname` and `readlink` through PATH (a user's PATH
 * has them).
 */
export const SYSTEM_DIRS = ["/usr/bin", "/bin"].filter((d) => fs.existsSync(d));
/** PATH's directories for the real pinned CodeGraph: its npm shim (node_modules/.bin), this Node, the system's. */
export const REAL_CLI_PATH = [path.join(root, "node_modules", ".bin"), path.dirname(process.execPath), ...SYSTEM_DIRS];

/** The packages the WebAssembly core's loader needs (wasm/pi-codegraph.wasi.cjs), with theirs. */
export const WASM_RUNTIME = [
  "@napi-rs/wasm-runtime",
  "@emnapi/core",
  "@emnapi/runtime",
  "@emnapi/wasi-threads",
  "@tybys/wasm-util",
  "tslib",
];

/** Links the WebAssembly runtime into `dir`/node_modules, as an install of the package has it (and nothing else: no platform package, no CodeGraph). */
export function linkWasmRuntime(dir) {
  for (const name of WASM_RUNTIME) {
    const link = path.join(dir, "node_modules", name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.join(root, "node_modules", name), link, "junction");
  }
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
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!${process.execPath}\nrequire(${JSON.stringify(FAKE_SCRIPT)});\n`);
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

/**
 * useFakeCli(), and Pi's agent directory a fresh temp dir (what the extension saves per project
 * goes there, never into the user's own) with each of `cleared` unset, for the enclosing file or
 * suite; all restored `after`. Returns useFakeCli()'s `fake`.
 */
export function useAgentDirEnv(cleared = []) {
  const fake = useFakeCli();
  const saved = {};
  before(() => {
    for (const k of ["PI_CODING_AGENT_DIR", ...cleared]) saved[k] = process.env[k];
    process.env.PI_CODING_AGENT_DIR = tempDir("pi-codegraph-agent-");
    for (const k of cleared) delete process.env[k];
  });
  after(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  return fake;
}

/** The fake's echo of how it was started (its default answer): `{ argv, cwd }`. */
export function parseEcho(text) {
  const [first, json] = text.split("\n");
  assert.equal(first, "FAKE EXPLORE", text);
  return JSON.parse(json);
}

/** The version every spec-driven fake reports unless its spec says otherwise. */
export const FAKE_VERSION = "1.0.0-faults";

/**
 * Writes, at `file`, a `codegraph` launcher (`#!<this node>`) running fake-codegraph.js with
 * `spec` (its `steps`, its `version`; `pids` is filled in). Returns `{ file, pids, readPids }`.
 */
export function writeFake(file, spec = {}) {
  const dir = path.dirname(file);
  const pids = path.join(dir, `${path.basename(file)}.pids.json`);
  const specFile = path.join(dir, `${path.basename(file)}.spec.json`);
  fs.writeFileSync(specFile, JSON.stringify({ version: FAKE_VERSION, pids, ...spec }));
  const launcher = `#!${process.execPath}\nprocess.env.FAKE_CG_SPEC = ${JSON.stringify(specFile)};\nrequire(${JSON.stringify(FAKE_SCRIPT)});\n`;
  fs.writeFileSync(file, launcher, { mode: 0o755 });
  return { file, dir, pids, readPids: () => readJsonFile(pids) };
}

/** A spec-driven fake `codegraph` in a temp dir of its own; `steps` as fake-codegraph.js documents them. */
export function fakeCli(steps = [], spec = {}) {
  return writeFake(path.join(tempDir("pi-codegraph-fake-bin-"), "codegraph"), { ...spec, steps });
}

/**
 * `dir/codegraph`: a shell script that appends each start's arguments to `log`, then execs
 * `realCli` with them (the real CLI behind a recorder: which commands ran, and that none did).
 */
export function recordingCli(dir, log, realCli) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "codegraph"),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(realCli)} "$@"\n`,
    { mode: 0o755 },
  );
}

/**
 * A `codegraph` shell script, for the few faults a Node fake cannot stage (`why` says which:
 * a crash with core dumps off, a perl setpgrp). `$PIDS` names the pids file; `--version` answers.
 */
export function shellFake(body, why) {
  assert.ok(why, "a shell fake says why it cannot be the Node fake");
  const dir = tempDir("pi-codegraph-fake-sh-");
  const file = path.join(dir, "codegraph");
  const pids = path.join(dir, "pids.json");
  const prelude = `PATH=/usr/local/bin:/usr/bin:/bin; export PATH\n[ "$1" = --version ] && { echo ${FAKE_VERSION}; exit 0; }\nPIDS=${JSON.stringify(pids)}\n`;
  fs.writeFileSync(file, `#!/bin/sh\n# ${why}\n${prelude}${body}\n`, { mode: 0o755 });
  return { file, dir, pids, readPids: () => readJsonFile(pids) };
}

/** A coded error as every public rejection must be: code, message with remediation, details. */
export function assertStableError(err, code) {
  assert.ok(err instanceof Error, `rejects with an Error (got ${typeof err})`);
  assert.equal(err.code, code, err.message);
  assert.ok(err.message.startsWith(`${code}:`), "the message starts with the code");
  assert.match(err.message, /\nRemediation: \S/, "the message carries a remediation");
  assert.equal(typeof err.remediation, "string");
  assert.equal(typeof err.details, "object");
  assert.doesNotMatch(err.message, /\n\s+at /, "no stack trace in the message");
  return err;
}

/** `outcome` is `{ value }` or `{ error }`; asserts the error has `code` and returns it. */
export function expectError(outcome, code) {
  if (!outcome.error) assert.fail(`expected ${code}, got a result: ${outcome.value.text.slice(0, 200)}`);
  return assertStableError(outcome.error, code);
}

/** Awaits `promise`, which must reject with the coded error `code`; returns that error. */
export async function rejectsWith(promise, code) {
  return expectError(
    await promise.then(
      (value) => ({ value }),
      (error) => ({ error }),
    ),
    code,
  );
}

export function expectResult(outcome) {
  if (outcome.error) assert.fail(`expected a result, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

/** `pi-codegraph doctor`'s rows by name, a wrapped value's continuation lines joined back with a space. */
export function doctorRows(stdout) {
  const out = {};
  let last;
  for (const line of stdout.split("\n")) {
    const m = /^(\S+)\s+(.*)$/.exec(line);
    if (m) {
      last = m[1];
      out[last] = m[2];
    } else if (line.trim() && last) out[last] += ` ${line.trim()}`;
  }
  return out;
}
