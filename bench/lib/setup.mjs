// What the figures run against: the compiled fake CLI, the Rust floor, temp workspaces, and a
// /proc scan for leftover fake processes. Everything built here goes to a temp directory.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { killPids, processTable } from "../../__test__/helpers/processes.mjs";

export const benchDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const root = path.dirname(benchDir);
/** The fake's name as /proc/<pid>/comm shows it (at most 15 characters). */
export const FAKE_NAME = "cgbench-fake";
const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

export function tempDir(prefix) {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** The file name index.js's loader looks for (the .node beside package.json). */
export function addonName() {
  return fs.readdirSync(root).find((f) => /^pi-codegraph\..+\.node$/.test(f)) ?? "pi-codegraph.linux-x64-gnu.node";
}

/**
 * The package as of commit `rev` (`git archive`), unpacked into `tmp`, over this checkout's
 * node_modules, with `addonFile` (by default this checkout's built addon) beside it under the name
 * its loader looks for: the directory.
 */
export function unpackCommit(rev, tmp, addonFile = path.join(root, addonName())) {
  const dir = path.join(tmp, `pi-codegraph-${rev}`);
  fs.mkdirSync(dir, { recursive: true });
  const tar = path.join(tmp, `${rev}.tar`);
  execFileSync("git", ["-C", root, "archive", "--format=tar", "-o", tar, rev]);
  execFileSync("tar", ["-xf", tar, "-C", dir]);
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  if (fs.existsSync(addonFile)) fs.copyFileSync(addonFile, path.join(dir, addonName()));
  return dir;
}

/** Compiles bench/fake-cli.c with gcc, statically when the toolchain has a static libc. */
export function compileFake(dir) {
  const out = path.join(dir, FAKE_NAME);
  const src = path.join(benchDir, "fake-cli.c");
  try {
    execFileSync("gcc", ["-O2", "-static", "-o", out, src], { stdio: "pipe" });
    return { file: out, linkage: "static" };
  } catch {
    execFileSync("gcc", ["-O2", "-o", out, src], { stdio: "pipe" });
    return { file: out, linkage: "dynamic" };
  }
}

/** Builds bench/floor in release into a temp target directory (kept between runs for speed). */
export function buildFloor() {
  const targetDir = path.join(os.tmpdir(), "pi-codegraph-bench-floor-target");
  execFileSync(
    "cargo",
    ["build", "--release", "--quiet", "--manifest-path", path.join(benchDir, "floor", "Cargo.toml")],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, CARGO_TARGET_DIR: targetDir },
    },
  );
  return path.join(targetDir, "release", "cgbench-floor");
}

/** A workspace the addon's preflight accepts: `.codegraph/codegraph.db` with a SQLite header. */
export function makeWorkspace(parent) {
  const dir = path.join(parent, "ws");
  fs.mkdirSync(path.join(dir, ".codegraph"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".codegraph", "codegraph.db"), Buffer.concat([SQLITE_HEADER, Buffer.alloc(4080)]));
  return dir;
}

/** A directory without an index: explore() rejects it in preflight, before any spawn. */
export function makeBareDir(parent) {
  const dir = path.join(parent, "no-index");
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** A temp copy of the shop fixture, indexed with the pinned CLI (`codegraph init -y .`). */
export function indexShop(parent, cli) {
  const dir = path.join(parent, "shop");
  fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), dir, { recursive: true });
  const started = performance.now();
  execFileSync(cli, ["init", "-y", "."], { cwd: dir, stdio: "pipe", env: { ...process.env, DO_NOT_TRACK: "1" } });
  return { dir, initMs: performance.now() - started };
}

/** Pids of running (non-zombie) processes named like the fake (the tests' /proc scan). */
export function fakePids() {
  return processTable()
    .filter((p) => p.comm === FAKE_NAME && p.state !== "Z")
    .map((p) => p.pid);
}

export { killPids };

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check()` is truthy or `timeoutMs` passes; returns the last value. */
export async function poll(check, timeoutMs, everyMs = 1) {
  const start = performance.now();
  for (;;) {
    const v = check();
    if (v || performance.now() - start > timeoutMs) return v;
    await sleep(everyMs);
  }
}

function firstLine(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .split("\n")[0]
      .trim();
  } catch {
    return "n/a";
  }
}

/**
 * The addon to measure: BENCH_ADDON if set, else the .node file index.js loads (found by loading it
 * in a fresh process and reading its /proc/self/maps). It is copied into the temp directory, so
 * every figure, in this process and in child processes, measures the same build even if someone
 * rebuilds the addon during the run.
 */
export function snapshotAddon(tmp) {
  let source = process.env.BENCH_ADDON ? path.resolve(process.env.BENCH_ADDON) : null;
  if (!source) {
    const probe = `require(${JSON.stringify(path.join(root, "index.js"))}).explore("x", "/").catch(() => {}).then(() => {
      const maps = require("fs").readFileSync("/proc/self/maps", "utf8").split("\\n");
      const hit = maps.map((l) => l.slice(l.indexOf("/"))).find((f) => /pi[-_]codegraph[^/]*\\.(node|so)$/.test(f));
      console.log(hit ?? "");
    })`;
    source = execFileSync(process.execPath, ["-e", probe], { encoding: "utf8" }).trim();
    if (!source) throw new Error("could not tell which .node index.js loads");
  }
  const file = path.join(tmp, "addon", "pi-codegraph.node");
  fs.mkdirSync(path.dirname(file));
  fs.copyFileSync(source, file);
  const release = ["target/x86_64-unknown-linux-gnu/release", "target/release"]
    .map((d) => path.join(root, d, "libpi_codegraph.so"))
    .find((f) => fs.existsSync(f));
  const releaseHint = release
    ? `BENCH_ADDON=${path.relative(root, release)} (built ${fs.statSync(release).mtime.toISOString()})`
    : null;
  return { source, file, releaseHint, ...describeAddon(source) };
}

/** Release or debug: matched by build id against the crate's target directories. */
function describeAddon(file) {
  const elf = (f) => {
    try {
      return execFileSync("readelf", ["-n", "-S", "-W", f], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    } catch {
      return "";
    }
  };
  const info = elf(file);
  const buildId = /Build ID: ([0-9a-f]+)/.exec(info)?.[1] ?? "unknown";
  const stat = fs.statSync(file);
  let profile = null;
  for (const dir of ["target", path.join("target", "x86_64-unknown-linux-gnu")]) {
    for (const p of ["release", "debug"]) {
      const candidate = path.join(root, dir, p, "libpi_codegraph.so");
      if (!profile && fs.existsSync(candidate) && elf(candidate).includes(`Build ID: ${buildId}`)) profile = p;
    }
  }
  const stripped = info && !/\.symtab/.test(info);
  profile ??= stripped ? "release" : "unknown";
  const kind = `${profile} build${stripped ? ", stripped" : ", not stripped"}`;
  return {
    debug: profile === "debug",
    kind,
    describe: `${path.relative(root, file).startsWith("..") ? file : path.relative(root, file)} (${kind}; ${stat.size} bytes; modified ${stat.mtime.toISOString()}; build id ${buildId.slice(0, 12)}…)`,
  };
}

/** 1, 5 and 15 minute load averages: other work on the machine shows up here. */
export function loadAverage() {
  return fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

export function machineInfo(fake, addon) {
  const cpuinfo = fs.readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? "unknown";
  return {
    uname: firstLine("uname", ["-a"]),
    cpu: `${model} (${os.cpus().length} logical CPUs)`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    date: new Date().toISOString(),
    "load average at start": loadAverage(),
    addon: `${addon.describe}${process.env.BENCH_ADDON ? " (BENCH_ADDON)" : ", the file index.js loads"}; measured from a copy made at start`,
    "fake CLI": `${FAKE_NAME}, ${fake.linkage} (${firstLine("gcc", ["--version"])})`,
    rustc: firstLine("rustc", ["--version"]),
  };
}
