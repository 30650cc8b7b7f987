// Processes, as the tests (and bench/) see them: the /proc process table, liveness, bounded
// waits, the suite mark every process a fake starts inherits (so /proc tells what is still
// running), and child Node processes with a hard bound.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";

export const LINUX = process.platform === "linux";
export const ROOT_USER = typeof process.getuid === "function" && process.getuid() === 0;

/** `/proc/<pid>/stat` parsed: { pid, comm, state, ppid, pgrp }, or null once it is gone. */
export function procStat(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return null;
  }
  // The command name may contain spaces and ')'.
  const close = stat.lastIndexOf(")");
  const rest = stat.slice(close + 2).split(" ");
  return {
    pid: Number(pid),
    comm: stat.slice(stat.indexOf("(") + 1, close),
    state: rest[0],
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
  };
}

/** Every process in /proc, parsed (processes that exit while we look are left out). */
export function processTable() {
  const out = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    const st = procStat(entry);
    if (st) out.push(st);
  }
  return out;
}

export function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
  } catch {
    return "?";
  }
}

/**
 * Running processes (not zombies) whose working directory is `dir` or inside it, other than the
 * pids in `except`: what a tool started in a workspace leaves behind, whatever its name.
 */
export function processesIn(dir, { except = [] } = {}) {
  if (!LINUX) return [];
  const real = fs.realpathSync(dir);
  const out = [];
  for (const st of processTable()) {
    if (st.state === "Z" || except.includes(st.pid)) continue;
    let cwd;
    try {
      cwd = fs.readlinkSync(`/proc/${st.pid}/cwd`);
    } catch {
      continue;
    }
    if (cwd === real || cwd.startsWith(`${real}/`)) out.push({ pid: st.pid, ppid: st.ppid, cmd: cmdline(st.pid) });
  }
  return out;
}

/** Alive means running: a zombie (exited, not yet reaped) is gone for our purposes. */
export function isAlive(pid) {
  if (LINUX) {
    const st = procStat(pid);
    return st !== null && st.state !== "Z";
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

/**
 * Kills a child this process started and waits until Node has reaped it: its pid then names no
 * process at all (not even a zombie), on every platform; the end of the wait is the child's own
 * `exit` event, not a poll.
 */
export async function killAndReap(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

export function killPids(list) {
  for (const pid of list) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

/** Kills (by pid) processes a test knows survived, so one documented gap does not fail others. */
export function cleanup(...list) {
  killPids(list.filter((p) => Number.isInteger(p) && p > 0 && isAlive(p)));
}

// ---------------------------------------------------------------------------------------------
// The suite mark: set in this process's environment, so every process a fake starts carries it.

export const MARK_VAR = "PI_CODEGRAPH_FAULTS_MARK";
const MARK = `faults-${process.pid}-${Date.now()}`;
let savedMark;

export function setMark() {
  savedMark = process.env[MARK_VAR];
  process.env[MARK_VAR] = MARK;
}

export function restoreMark() {
  if (savedMark === undefined) delete process.env[MARK_VAR];
  else process.env[MARK_VAR] = savedMark;
}

/** Running processes (not zombies) that carry this process's mark, other than this process. */
export function leftovers() {
  if (!LINUX) return [];
  const needle = `${MARK_VAR}=${MARK}`;
  const out = [];
  for (const st of processTable()) {
    if (st.pid === process.pid || st.state === "Z") continue;
    let environ;
    try {
      environ = fs.readFileSync(`/proc/${st.pid}/environ`, "latin1");
    } catch {
      continue;
    }
    if (environ.includes(needle)) out.push({ pid: st.pid, ppid: st.ppid, state: st.state, cmd: cmdline(st.pid) });
  }
  return out;
}

/**
 * Children of this test process that exited and were never reaped: `comm` names each (a zombie's
 * command line is empty; the kernel keeps its name, `pi-cg-reaper` for the host watch's reaper).
 */
export function zombieChildren() {
  if (!LINUX) return [];
  return processTable()
    .filter((p) => p.ppid === process.pid && p.state === "Z")
    .map((p) => ({ pid: p.pid, ppid: p.ppid, state: p.state, comm: p.comm }));
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

/**
 * The end of a suite: nothing marked still running, no unreaped children (kills what is left).
 * The verdict is the look that ended the wait (at most `timeoutMs`), never a second look after
 * it: a child that ends just after a clean look (a probe the last call stopped, seen mid-exit:
 * its memory released, so no mark, and not yet a zombie) is a zombie for the moment its parent
 * takes to reap it, and Node reaps its own only when its event loop turns, which a second
 * synchronous look does not let it do. A child no one reaps stays a zombie through the wait.
 */
export async function assertCleanProcessTable({ timeoutMs = 3000 } = {}) {
  if (!LINUX) return;
  let seen;
  const look = () => {
    seen = { left: leftovers(), zombies: zombieChildren() };
    return seen.left.length === 0 && seen.zombies.length === 0;
  };
  await waitFor(look, { timeoutMs, what: "a clean process table" }).catch(() => {});
  killPids(seen.left.map((p) => p.pid));
  assert.deepEqual(seen.left, [], "no process carrying this suite's marker is left running");
  assert.deepEqual(seen.zombies, [], "no unreaped (zombie) children of the test process");
}

/** A child process (Node by default) with a hard bound (and `input` on its stdin); resolves with what it did. */
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
