// Process control: the CLI leads its own process group, so "kill" means the whole tree.

const { spawnSync } = require("node:child_process");
const path = require("node:path");
const { onHostExit, unwatchGroup, watchGroup } = require("../host-watch.js");
const { IS_WINDOWS } = require("../../../contract/limits.js");
const { hostCore } = require("../wasm-core.js");

// CodeGraph's npm shim starts the real CLI as a child, and killing only the shim orphans it.
// The tree also dies with the host: process.exit() through the 'exit' hook, anything else
// (SIGKILL included) through the reaper of host-watch.js.

/** The CLI processes running now: SIGKILLed (their groups) when the host exits. */
const runningChildren = new Set();
function killRunningTrees() {
  for (const child of runningChildren) signalTree(child, "SIGKILL");
}
function trackChild(child) {
  runningChildren.add(child);
  onHostExit(killRunningTrees);
  if (!IS_WINDOWS) watchGroup(child.pid);
}
function untrackChild(child) {
  if (runningChildren.delete(child) && !IS_WINDOWS) unwatchGroup(child.pid);
}

/** Signals the child's whole tree. */
function signalTree(child, signal) {
  if (!child.pid) return;
  if (IS_WINDOWS) {
    // Node differs: the addon puts the child in a job object. taskkill /T walks the tree from the
    // pid, so it must run before the direct kill, and cannot reach descendants of a CLI that has
    // already exited (nor may it run then: the pid could be reused). Windows has no SIGTERM.
    if (child.exitCode !== null || child.signalCode !== null) return;
    const taskkill = path.join(process.env.SystemRoot ?? "C:\\Windows", "System32", "taskkill.exe");
    spawnSync(taskkill, ["/pid", String(child.pid), "/T", "/F"], { stdio: "ignore", windowsHide: true, timeout: 5000 });
    child.kill();
    return;
  }
  try {
    process.kill(-child.pid, signal); // negative pid: the process group
  } catch {} // ESRCH: the group is already gone
}

/**
 * SIGKILLs the CLI's descendants that left its process group, while the CLI still runs (after
 * it exited they are re-parented and out of reach, as is an orphaned setsid daemon).
 */
function killStrays(child) {
  if (process.platform !== "linux" || !child.pid || child.exitCode !== null || child.signalCode !== null) return;
  // Found by the core (crates/core/src/pid.rs), from /proc, as the addon finds them.
  for (const pid of hostCore().straysOf(child.pid)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

module.exports = {
  trackChild,
  untrackChild,
  signalTree,
  killStrays,
};
