// The packed package, installed the way a user gets it: the main tarball plus this platform's
// binary package (what `napi prepublish` publishes), in a fresh project, with no repo files.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, test } from "node:test";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { fakeBinDir, makeWorkspace, root, tempDir } from "../helpers/index.mjs";
import { packReports } from "../helpers/packed.mjs";
import { killAllPi, piEnv, piMissing, piScratch, runPi, writeModelsJson } from "../helpers/pi-harness.mjs";

const require = createRequire(import.meta.url);
const { target } = require("../../lib/runners/native.js");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

let project;
let installed;
let packed;

before(() => {
  const work = tempDir("pi-codegraph-pack-");
  // The main tarball and this platform's binary package, as the release job assembles it.
  const reports = packReports(work);
  packed = reports.main;
  const { platform } = reports;
  assert.ok(platform, "a built addon next to package.json (npm run build)");
  project = path.join(work, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), '{"name":"user-project","private":true}\n');
  execFileSync(npm, ["install", "--no-audit", "--no-fund", "--offline", packed.file, platform.file], {
    cwd: project,
    stdio: "ignore",
  });
  installed = path.join(project, "node_modules", "pi-codegraph");
});

test("the tarball holds what ships and nothing else", (t) => {
  const names = packed.files.map((f) => f.path).sort();
  t.diagnostic(`packed size: ${packed.size} bytes (${packed.unpackedSize} unpacked), ${names.length} files`);
  for (const needed of [
    "index.js",
    "index.d.ts",
    "binding.js",
    "binding.d.ts",
    "lib/runners/native.js",
    "lib/glue.js",
    "lib/runners/node.js",
    "bin/pi-codegraph.js",
    "wasm/pi-codegraph.wasi.cjs",
    "wasm/pi-codegraph.wasm32-wasi.wasm",
    "wasm/wasi-worker.mjs",
    "package.json",
    "README.md",
    "LICENSE",
  ]) {
    assert.ok(names.includes(needed), `${needed} is packed`);
  }
  for (const name of names) {
    assert.doesNotMatch(name, /^(src|__test__|bench|target|example|npm|\.ci|\.github)\//, `${name} should not ship`);
    assert.doesNotMatch(name, /\.node$/, "binaries ship in the platform packages");
  }
});

test("every per-platform package is wired as an optional dependency of the same version", () => {
  const main = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8"));
  const platforms = fs.readdirSync(path.join(root, "npm")).map((dir) => {
    const p = JSON.parse(fs.readFileSync(path.join(root, "npm", dir, "package.json"), "utf8"));
    assert.equal(p.main, `pi-codegraph.${dir}.node`);
    return [p.name, p.version];
  });
  assert.equal(platforms.length, main.napi.targets.length);
  // Besides them only the WebAssembly core's loader (packaging.test.mjs).
  const wired = Object.entries(main.optionalDependencies).filter(([name]) => name.startsWith(`${main.name}-`));
  assert.deepEqual(wired.sort(), platforms.sort());
  for (const [, version] of platforms) assert.equal(version, main.version);
});

test("the installed package loads its platform binary and explores", () => {
  const ws = makeWorkspace();
  const script = `require(${JSON.stringify(installed)}).explore("what calls main", ${JSON.stringify(ws)}).then((r) => console.log(JSON.stringify(r)))`;
  const r = spawnSync(process.execPath, ["-e", script], {
    cwd: project,
    env: { ...process.env, PATH: fakeBinDir() },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.deepEqual(JSON.parse(result.text.split("\n")[1]).argv, ["explore", "--", "what calls main"]);
});

test("its doctor names the platform package's binary", () => {
  const ws = makeWorkspace();
  const bin = path.join(project, "node_modules", ".bin", "pi-codegraph");
  const r = spawnSync(process.execPath, [bin, "doctor"], {
    cwd: ws,
    env: { ...process.env, PATH: fakeBinDir() },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    new RegExp(`^addon\\s+.*node_modules/pi-codegraph-${target()}/pi-codegraph\\.${target()}\\.node$`, "m"),
  );
});

test("Pi loads the installed package as a user's install and runs the tool", {
  skip: piMissing,
  timeout: 60000,
}, async () => {
  const { scratch: work, home, agentDir } = piScratch("pi-codegraph-pack-pi-");
  const server = await startFakeOpenAI({ request: "what calls main" });
  after(async () => {
    killAllPi();
    await server.close();
  });
  writeModelsJson(agentDir, server.baseUrl, ["pack-model"]);
  const nodeDir = path.dirname(process.execPath);
  const env = (dirs) => piEnv({ agentDir, home, pathDirs: dirs });
  const install = await runPi(["install", installed], { cwd: work, env: env([nodeDir]), timeoutMs: 20000 });
  assert.equal(install.code, 0, install.stderr);
  const ws = makeWorkspace();
  const args = ["--mode", "json", "--offline", "--no-session", "--no-context-files", "--provider", "fake"];
  const run = await runPi([...args, "--model", "pack-model", "What calls main?"], {
    cwd: ws,
    env: env([fakeBinDir(), nodeDir]),
  });
  assert.equal(run.code, 0, run.stderr.slice(-2000));
  assert.doesNotMatch(run.stderr, /Extension error/);
  const end = run.events.find((e) => e.type === "tool_execution_end" && e.toolName === "codegraph_explore");
  assert.ok(end, "the tool ran");
  assert.equal(end.isError, false, JSON.stringify(end.result).slice(0, 400));
  assert.match(end.result.content[0].text, /^FAKE EXPLORE\n/);
  assert.deepEqual(JSON.parse(end.result.content[0].text.split("\n")[1]).argv, ["explore", "--", "what calls main"]);
});

test("`pi -e <package dir>` loads the extension (through extensions/index.js); `pi -e <dir>/index.js` cannot", {
  skip: piMissing,
  timeout: 60000,
}, async () => {
  const { home, agentDir } = piScratch("pi-codegraph-pack-e-");
  const env = piEnv({ agentDir, home, pathDirs: [fakeBinDir(), path.dirname(process.execPath)] });
  const ws = makeWorkspace();
  const args = ["--mode", "json", "--offline", "--no-session", "--no-context-files"];
  // Pi's json mode guards stdout for its events: the command's report goes to stderr.
  const viaDir = await runPi([...args, "-e", installed, "/codegraph doctor"], { cwd: ws, env });
  assert.equal(viaDir.code, 0, viaDir.stderr.slice(-2000));
  assert.doesNotMatch(viaDir.stderr, /Extension error/);
  assert.match(viaDir.stderr, /^pi-codegraph: ready$/m);
  // index.js is the SDK entry: it takes typebox from beside the package, which an install lacks.
  const viaIndex = await runPi([...args, "-e", path.join(installed, "index.js"), "/codegraph doctor"], {
    cwd: ws,
    env,
  });
  assert.match(viaIndex.stderr, /^pi-codegraph could not start in this session: .*typebox.*\n.*not registered/m);
  assert.match(viaIndex.stderr, /Extension error \(command:codegraph\): .*typebox/);
});
