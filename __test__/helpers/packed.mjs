// The package as its users get it, and Pi's own install of it. `npm pack` of this checkout (the
// published file set, no node_modules), this platform's binary package (napi-rs's
// pi-codegraph-<target> with the built addon, as the release job assembles it) and the
// WebAssembly core's runtime (its optional dependencies, with theirs), packed once per
// `npm test` (__test__/run.mjs passes their directory in PI_CODEGRAPH_TEST_PACKED) or once per
// process; then `pi install npm:pi-codegraph@file:<tarball>`: Pi runs `npm install <spec> --prefix
// <agent dir>/npm --legacy-peer-deps` (or <project>/.pi/npm with -l), so nothing of Pi's own
// packages lies beside the installed copy and Pi's loader is what resolves them.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { root, tempDir, WASM_RUNTIME } from "./index.mjs";
import { runPi } from "./pi-harness.mjs";

const require = createRequire(import.meta.url);
const { target } = require("../../lib/runners/native.js");
const { version } = require("../../package.json");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
/** The directory of the npm the tests run (Pi starts `npm` from its PATH), read at load, before a test changes PATH. */
const npmDir = (() => {
  try {
    const found = execFileSync(process.platform === "win32" ? "where" : "which", [npm], { encoding: "utf8" });
    return path.dirname(found.split(/\r?\n/)[0]);
  } catch {
    return path.dirname(process.execPath);
  }
})();

const npmPath = path.join(npmDir, npm);
/** This Node first (npm's script runs the first `node` on PATH), then npm's own directory. */
const npmPATH = [path.dirname(process.execPath), npmDir].join(path.delimiter);

/**
 * `npm pack` of `dir` into `dest` (no lifecycle scripts, no cache or log outside `dest`): npm's
 * report of it (`size`, `unpackedSize`, `files`, …) with `file`, the tarball's path.
 */
export function npmPack(dir, dest) {
  const args = ["pack", dir, "--json", "--ignore-scripts", "--pack-destination", dest];
  args.push("--cache", path.join(dest, "npm-cache"), "--logs-max=0");
  const out = execFileSync(npmPath, args, {
    cwd: dest,
    env: { ...process.env, PATH: npmPATH },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60000,
  });
  const [info] = JSON.parse(out);
  return { ...info, file: path.join(dest, info.filename) };
}

/**
 * Packs into `dest`: `{ main, platform }`, npm's reports of the two tarballs (npmPack); `platform`
 * is null when no addon was built for this machine (the installed copy then runs the Node runner).
 */
export function packReports(dest) {
  const main = npmPack(root, dest);
  const triple = target();
  const addon = `pi-codegraph.${triple}.node`;
  if (!fs.existsSync(path.join(root, addon))) return { main, platform: null };
  const platformDir = path.join(dest, `npm-${triple}`);
  fs.cpSync(path.join(root, "npm", triple), platformDir, { recursive: true });
  fs.copyFileSync(path.join(root, addon), path.join(platformDir, addon));
  return { main, platform: npmPack(platformDir, dest) };
}

/** The directory in `dest` that holds the WebAssembly runtime's tarballs. */
const runtimeDir = (dest) => path.join(dest, "wasm-runtime");

/** The WebAssembly runtime's packages as installed here, packed into `dest`'s runtime directory: their paths. */
function packRuntime(dest) {
  const dir = runtimeDir(dest);
  fs.mkdirSync(dir, { recursive: true });
  return WASM_RUNTIME.map((name) => npmPack(path.join(root, "node_modules", name), dir).file);
}

/** The runtime tarballs packed into `dest`. */
const runtimeTarballs = (dest) =>
  fs
    .readdirSync(runtimeDir(dest))
    .filter((f) => f.endsWith(".tgz"))
    .map((f) => path.join(runtimeDir(dest), f));

/** Packs into `dest`: `{ main, platform, runtime }`, the tarballs' paths (packReports, and the WebAssembly runtime's). */
export function packTarballs(dest) {
  const { main, platform } = packReports(dest);
  return { main: main.file, platform: platform?.file ?? null, runtime: packRuntime(dest) };
}

let packed;
/** This run's tarballs (packTarballs), made at most once per process. */
export function packedTarballs() {
  if (packed) return packed;
  const dir = process.env.PI_CODEGRAPH_TEST_PACKED;
  if (dir) {
    const platform = path.join(dir, `pi-codegraph-${target()}-${version}.tgz`);
    packed = {
      main: path.join(dir, `pi-codegraph-${version}.tgz`),
      platform: fs.existsSync(platform) ? platform : null,
      runtime: runtimeTarballs(dir),
    };
    assert.ok(fs.existsSync(packed.main), `PI_CODEGRAPH_TEST_PACKED holds ${packed.main}`);
  } else {
    packed = packTarballs(tempDir("pi-codegraph-packed-"));
  }
  return packed;
}

/**
 * Installs the packed package the way `pi install npm:<spec>` does: into `env`'s agent dir, or with `project` into
 * `cwd`'s .pi/ (`--approve`: Pi 1.x writes project package storage only for a trusted project).
 * npm runs offline; the binary package and the WebAssembly runtime, which the registry would
 * deliver as the main one's optional dependencies, are put into the same npm project first. Resolves with
 * `{ result, dir }`: Pi's exit and output, and the installed copy's directory. `piCommand`: another
 * Pi executable (runPi's), such as Pi's Bun-compiled binary. `binary: false`: the binary package is
 * left out, as on a platform the release has none for (the WebAssembly core then runs).
 */
export async function installPacked({ cwd, env, project = false, piCommand, binary = true }) {
  const { main, runtime } = packedTarballs();
  const platform = binary ? packedTarballs().platform : null;
  const prefix = project ? path.join(cwd, ".pi", "npm") : path.join(env.PI_CODING_AGENT_DIR, "npm");
  const npmEnv = {
    ...env,
    PATH: [env.PATH, npmPATH].join(path.delimiter),
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_loglevel: "error",
  };
  const optional = [...runtime, ...(platform ? [platform] : [])];
  if (optional.length > 0) {
    fs.mkdirSync(prefix, { recursive: true });
    fs.writeFileSync(path.join(prefix, "package.json"), '{ "name": "pi-extensions", "private": true }\n');
    execFileSync(npmPath, ["install", ...optional, "--prefix", prefix, "--legacy-peer-deps"], {
      env: npmEnv,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60000,
    });
  }
  const args = [
    "install",
    ...(project ? ["-l"] : []),
    `npm:pi-codegraph@file:${main}`,
    ...(project ? ["--approve"] : []),
  ];
  const result = await runPi(args, { cwd, env: npmEnv, timeoutMs: 60000, piCommand });
  return { result, dir: path.join(prefix, "node_modules", "pi-codegraph") };
}
