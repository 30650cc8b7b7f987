// The fault catalogue's shared machinery: marked processes (every process a fake starts inherits
// the suite's mark, so /proc tells what is still running), per-test fake CLIs, explore() with a
// given executable, and the assertions every fault makes. `useFaultsSuite()` installs the hooks.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before } from "node:test";
import { isAlive, makeWorkspace, readJsonFile, tempDir, waitFor, withEnv } from "./index.mjs";

const require = createRequire(import.meta.url);
const { explore } = require("../../index.js");

const MARK = `faults-${process.pid}-${Date.now()}`;
export const MARK_VAR = "PI_CODEGRAPH_FAULTS_MARK";
export const LINUX = process.platform === "linux";
export const ROOT_USER = typeof process.getuid === "function" && process.getuid() === 0;
export const saved = { PATH: process.env.PATH, BIN: process.env.PI_CODEGRAPH_BIN, MARK: process.env[MARK_VAR] };

export const env = { ws: undefined, emptyDir: undefined };

function setUp() {
  process.env[MARK_VAR] = MARK;
  env.emptyDir = tempDir("pi-codegraph-faults-empty-");
  // Nothing real can be found by accident: every test names its fake through PI_CODEGRAPH_BIN
  // or a PATH of its own.
  process.env.PATH = env.emptyDir;
  delete process.env.PI_CODEGRAPH_BIN;
  env.ws = makeWorkspace();
}

// ---------------------------------------------------------------------------------------------
// Processes: what carries the marker, and which children of this process are zombies.

export function procStat(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: rest[0], ppid: Number(rest[1]) };
  } catch {
    return null;
  }
}

export function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
  } catch {
    return "?";
  }
}

export function pids() {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/** Running processes (not zombies) started by this suite, other than this process itself. */
export function leftovers() {
  if (!LINUX) return [];
  const needle = `${MARK_VAR}=${MARK}`;
  const out = [];
  for (const pid of pids()) {
    if (pid === process.pid) continue;
    let environ;
    try {
      environ = fs.readFileSync(`/proc/${pid}/environ`, "latin1");
    } catch {
      continue;
    }
    if (!environ.includes(needle)) continue;
    const st = procStat(pid);
    if (st && st.state !== "Z") out.push({ pid, ppid: st.ppid, state: st.state, cmd: cmdline(pid) });
  }
  return out;
}

/** Children of this test process that exited and were never reaped. */
export function zombieChildren() {
  if (!LINUX) return [];
  return pids()
    .map((pid) => ({ pid, ...procStat(pid) }))
    .filter((p) => p.ppid === process.pid && p.state === "Z")
    .map((p) => ({ ...p, cmd: cmdline(p.pid) }));
}

export function killPids(list) {
  for (const pid of list) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

/**
 * Nothing this suite started may still run. Waits (bounded) for the tree to finish dying; on
 * failure kills what is left, by pid, so later tests start clean, and reports it.
 */
export async function assertNothingLeft(what = "after this fault") {
  if (!LINUX) return;
  try {
    await waitFor(() => leftovers().length === 0, { timeoutMs: 3000, what: "marked processes to end" });
  } catch {
    const left = leftovers();
    killPids(left.map((p) => p.pid));
    assert.deepEqual(left, [], `processes left running ${what}`);
  }
}

/** Kills (by pid) processes a test knows survived, so one documented gap does not fail others. */
export function cleanup(...list) {
  killPids(list.filter((p) => Number.isInteger(p) && p > 0 && isAlive(p)));
}

// ---------------------------------------------------------------------------------------------
// Fakes: one `codegraph` executable per test, in its own temp dir.

export const VERSION = "1.0.0-faults";
// The suite's own PATH holds nothing; shell fakes name the system tools' directories themselves.
export const SH_VERSION = `PATH=/usr/local/bin:/usr/bin:/bin; export PATH\n[ "$1" = --version ] && { echo ${VERSION}; exit 0; }\n`;
export const NODE_PRELUDE = (pidsFile) => `"use strict";
if (process.argv[2] === "--version") { process.stdout.write(${JSON.stringify(`${VERSION}\n`)}); process.exit(0); }
const fs = require("node:fs");
const { spawn } = require("node:child_process");
const PIDS = ${JSON.stringify(pidsFile)};
const report = (o) => { fs.writeFileSync(PIDS + ".tmp", JSON.stringify(o)); fs.renameSync(PIDS + ".tmp", PIDS); };
const waitFile = (f, then) => { const t = setInterval(() => { if (fs.existsSync(f)) { clearInterval(t); then(); } }, 5); };
`;

/** A `codegraph` written as a Node script (`#!<this node>`) or a shell script. */
export function fakeCli(body, { sh = false } = {}) {
  const dir = tempDir("pi-codegraph-faults-bin-");
  const file = path.join(dir, "codegraph");
  const pidsFile = path.join(dir, "pids.json");
  const text = sh
    ? `#!/bin/sh\n${SH_VERSION}PIDS=${JSON.stringify(pidsFile)}\n${body}\n`
    : `#!${process.execPath}\n${NODE_PRELUDE(pidsFile)}${body}\n`;
  fs.writeFileSync(file, text, { mode: 0o755 });
  return { dir, file, pids: pidsFile, readPids: () => readJsonFile(pidsFile) };
}

/** Runs explore with `bin` as PI_CODEGRAPH_BIN (and any extra env), timing the call. */
export async function exploreWith(bin, request, cwd, signal, options, extraEnv = {}) {
  const started = Date.now();
  const result = await withEnv({ PI_CODEGRAPH_BIN: bin, ...extraEnv }, () =>
    explore(request, cwd, signal, options).then(
      (value) => ({ value }),
      (error) => ({ error }),
    ),
  );
  return { ...result, ms: Date.now() - started };
}

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

export function expectError(outcome, code) {
  if (!outcome.error) assert.fail(`expected ${code}, got a result: ${outcome.value.text.slice(0, 200)}`);
  return assertStableError(outcome.error, code);
}

export function expectResult(outcome) {
  if (outcome.error) assert.fail(`expected a result, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

/** A child Node process with a hard bound (and `input` on its stdin); resolves with what it did. */
export function runNode(
  args,
  { env = process.env, timeoutMs = 20000, uid, gid, command = process.execPath, onStdout, input } = {},
) {
  return new Promise((resolve) => {
    const stdin = input === undefined ? "ignore" : "pipe";
    const child = spawn(command, args, { env, stdio: [stdin, "pipe", "pipe"], uid, gid });
    if (input !== undefined) child.stdin.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
      onStdout?.(stdout, child);
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, pid: child.pid });
    });
  });
}

// ---------------------------------------------------------------------------------------------

async function tearDown() {
  process.env.PATH = saved.PATH;
  if (saved.BIN === undefined) delete process.env.PI_CODEGRAPH_BIN;
  else process.env.PI_CODEGRAPH_BIN = saved.BIN;
  if (!LINUX) return;
  // Bounded wait for the last kills to land and for reaping, then the verdict.
  await waitFor(() => leftovers().length === 0 && zombieChildren().length === 0, {
    timeoutMs: 3000,
    what: "a clean process table",
  }).catch(() => {});
  const left = leftovers();
  const zombies = zombieChildren();
  killPids(left.map((p) => p.pid));
  if (saved.MARK === undefined) delete process.env[MARK_VAR];
  else process.env[MARK_VAR] = saved.MARK;
  assert.deepEqual(left, [], "no process carrying this suite's marker is left running");
  assert.deepEqual(zombies, [], "no unreaped (zombie) children of the test process");
}

/** For a test file of the catalogue: an empty PATH, an indexed workspace, and the final verdict. */
export function useFaultsSuite() {
  before(setUp);
  after(tearDown);
  return env;
}
