#!/usr/bin/env node
// `npm test`: every suite (__test__/<seam>/*.test.mjs: helpers/suites.mjs), in two groups run
// side by side, each file in its own process as `node --test` runs them:
// - the files that wait (on timeouts, writers, a tmux screen, Pi hosts) rather than compute, listed
//   in WAITING below, several at a time (WAIT_CONCURRENCY): their waits overlap, their CPU is small;
// - every other file (the CPU-bound ones: real CodeGraph, real Pi, corpora) as node --test runs
//   them by default, as before: one at a time on a 2-core machine (availableParallelism − 1), so
//   that their timing assertions see the machine they saw.
// Both groups print the spec reporter; the waiting group's report follows the other's. The exit
// status is the first group's failure, if any. No file shares a fixed port, directory or process
// name with another (temp dirs are mkdtemp'd, tmux servers and marks carry the pid). The package
// is packed once, before them, for the suites that install it into Pi (helpers/packed.mjs).
//   node __test__/run.mjs            every suite (npm test), then the real-Pi ones on the lowest Pi
//   node __test__/run.mjs --smoke    the smoke set alone (npm run test:smoke; CI on Node 24)
//   node __test__/run.mjs --list     the groups, without running them
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { packTarballs } from "./helpers/packed.mjs";
import { suiteFiles } from "./helpers/suites.mjs";

const here = import.meta.dirname;
const root = path.dirname(here);

/** The smoke set (see smoke.test.mjs): load, one explore per runner through real CodeGraph, real Pi rpc, the addon and binding. */
export const SMOKE = [
  "__test__/smoke/smoke.test.mjs",
  "__test__/packaging/addon.test.mjs",
  "__test__/packaging/binding-smoke.test.mjs",
];

/** Files whose wall time is mostly waiting (CPU under a third of wall, run alone: bench/test-times.mjs). */
export const WAITING = [
  "__test__/contracts/progress.test.mjs",
  "__test__/contracts/write-slot.test.mjs",
  "__test__/contracts/explore.test.mjs",
  "__test__/verbs/verbs.test.mjs",
  "__test__/verbs/verbs-tui.test.mjs",
  "__test__/verbs/verbs-tui-init.test.mjs",
  "__test__/real-pi/pi-tui.test.mjs",
  "__test__/real-pi/history-tui.test.mjs",
  "__test__/seam/tools-seam.test.mjs",
  "__test__/faults/admission.test.mjs",
  "__test__/faults/command.test.mjs",
  "__test__/faults/durations.test.mjs",
  "__test__/faults/hangs.test.mjs",
  "__test__/faults/init-window.test.mjs",
  "__test__/faults/lock-rules.test.mjs",
  "__test__/faults/parity.test.mjs",
  "__test__/faults/processes.test.mjs",
  "__test__/faults/progress-tail.test.mjs",
  "__test__/faults/settle.test.mjs",
  "__test__/faults/writer.test.mjs",
];
const WAIT_CONCURRENCY = 4;

/**
 * The real-Pi suites (rpc, json and print mode, the interactive TUI in tmux, the prompt a provider
 * caches), run a second time against the lowest Pi this package supports: the devDependency
 * `pi-lowest` (package.json; the pinned Pi is the current one).
 */
export const LOWEST_PI = [
  "__test__/real-pi/pi-e2e.test.mjs",
  "__test__/real-pi/pi-tui.test.mjs",
  "__test__/real-pi/history-tui.test.mjs",
  "__test__/real-pi/prompt-cache.test.mjs",
  "__test__/tools/tools-pi.test.mjs",
  "__test__/real-pi/auto-sync-pi.test.mjs",
];
const LOWEST_PI_DIR = path.join(root, "node_modules", "pi-lowest");

const allFiles = () => suiteFiles(root);

/**
 * Runs `node --test` on `files` (`concurrency`: node's default when null); resolves with its exit
 * code. `out`: where its report goes; `env`: added to this process's environment.
 */
function nodeTest(files, concurrency, out, env = {}) {
  return new Promise((resolve) => {
    const limit = concurrency === null ? [] : [`--test-concurrency=${concurrency}`];
    const args = ["--test", "--test-reporter=spec", ...limit, ...files];
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (d) => out(d));
    child.stderr.on("data", (d) => out(d));
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const args = process.argv.slice(2);
const all = allFiles();

// The suites run Pi 1.x, whose floor is package.json's engines (22.19): below it they would fail
// one by one for that reason alone, so the run stops here and says so.
const floor = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).engines.node.replace(/^>=\s*/, "");
const compareVersions = (have, need) => {
  const [a, b] = [have, need].map((v) => v.replace(/^v/, "").split(".").map(Number));
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
};
if (!args.includes("--list") && compareVersions(process.version, floor) < 0) {
  console.error(
    `npm test needs Node.js ${floor} or newer (Pi 1.x's floor, package.json engines); this is ${process.version}.`,
  );
  process.exit(1);
}
for (const file of [...WAITING, ...SMOKE, ...LOWEST_PI]) {
  if (!all.includes(file)) throw new Error(`__test__/run.mjs lists ${file}, which is not a test file`);
}
const waiting = all.filter((f) => WAITING.includes(f));
const computing = all.filter((f) => !WAITING.includes(f));

if (args.includes("--list")) {
  console.log(`waiting (${waiting.length}, ${WAIT_CONCURRENCY} at a time):\n  ${waiting.join("\n  ")}`);
  console.log(`computing (${computing.length}, node --test's default concurrency):\n  ${computing.join("\n  ")}`);
  console.log(`smoke (${SMOKE.length}):\n  ${SMOKE.join("\n  ")}`);
  console.log(`again on the lowest Pi (${LOWEST_PI.length}):\n  ${LOWEST_PI.join("\n  ")}`);
} else if (args.includes("--smoke")) {
  process.exitCode = await nodeTest(SMOKE, null, (d) => process.stdout.write(d));
} else {
  // The package as npm publishes it, packed once for every suite that installs it into Pi
  // (helpers/packed.mjs).
  const packedDir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-codegraph-packed-"));
  process.on("exit", () => fs.rmSync(packedDir, { recursive: true, force: true }));
  packTarballs(packedDir);
  process.env.PI_CODEGRAPH_TEST_PACKED = packedDir;
  const held = [];
  const [computed, waited] = await Promise.all([
    nodeTest(computing, null, (d) => process.stdout.write(d)),
    nodeTest(waiting, WAIT_CONCURRENCY, (d) => held.push(d)),
  ]);
  process.stdout.write(`\n== the waiting group (${waiting.length} files, ${WAIT_CONCURRENCY} at a time)\n`);
  for (const d of held) process.stdout.write(d);
  const lowest = JSON.parse(fs.readFileSync(path.join(LOWEST_PI_DIR, "package.json"), "utf8")).version;
  process.stdout.write(`\n== the real-Pi suites again on the lowest supported Pi (${lowest})\n`);
  const onLowest = await nodeTest(LOWEST_PI, null, (d) => process.stdout.write(d), {
    PI_CODEGRAPH_TEST_PI: LOWEST_PI_DIR,
  });
  process.exitCode = computed || waited || onLowest;
}
