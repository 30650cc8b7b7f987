// The committed per-platform packages (npm/*/package.json) against the root's napi.targets: the
// release publishes them as they are (napi artifacts only copies each .node in), so a wrong
// os/cpu/libc would install the wrong binary, a wrong main/files would ship none, and a Pi
// keyword would list a binary-only package as a Pi package. The expected values come from the
// triples here, not from napi's own mapping.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { root } from "../helpers/index.mjs";

const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));
const rootPkg = readJson(path.join(root, "package.json"));
const { binaryName, targets } = rootPkg.napi;

/** What npm needs to pick the package for a Rust target triple. */
function expected(triple) {
  const [arch, , sys, abi] = triple.split("-");
  const cpu = { x86_64: "x64", aarch64: "arm64" }[arch];
  const os = { darwin: "darwin", linux: "linux", windows: "win32" }[sys];
  const libc = { gnu: "glibc", musl: "musl" }[abi];
  const platform = [os, cpu, sys === "darwin" ? undefined : abi].filter(Boolean).join("-");
  return { platform, cpu, os, libc, name: `${rootPkg.name}-${platform}`, node: `${binaryName}.${platform}.node` };
}

test("napi.targets names the 8 published targets, each mapped to a known platform", () => {
  assert.equal(targets.length, 8);
  for (const triple of targets) {
    const { cpu, os } = expected(triple);
    assert.ok(cpu && os, `${triple}: unknown cpu or os`);
  }
});

test("npm/ holds exactly one package per target, and nothing else", () => {
  const dirs = fs.readdirSync(path.join(root, "npm")).sort();
  assert.deepEqual(dirs, targets.map((t) => expected(t).platform).sort());
});

for (const triple of targets) {
  const want = expected(triple);
  test(`npm/${want.platform}/package.json fits ${triple}`, () => {
    const pkg = readJson(path.join(root, "npm", want.platform, "package.json"));
    assert.equal(pkg.name, want.name);
    assert.equal(pkg.version, rootPkg.version, "not the root's version (`npm version` syncs it)");
    assert.deepEqual(pkg.os, [want.os]);
    assert.deepEqual(pkg.cpu, [want.cpu]);
    if (want.libc) assert.deepEqual(pkg.libc, [want.libc]);
    else assert.equal(pkg.libc, undefined, "libc is for linux packages only");
    assert.equal(pkg.main, want.node);
    assert.deepEqual(pkg.files, [want.node]);
    assert.deepEqual(pkg.engines, rootPkg.engines);
    assert.equal(pkg.license, rootPkg.license);
    for (const keyword of ["pi-package", "pi-extension"]) {
      assert.ok(!(pkg.keywords ?? []).includes(keyword), `a binary-only package has the ${keyword} keyword`);
    }
    assert.equal(pkg.pi, undefined, "a binary-only package declares Pi extensions");
    assert.notEqual(pkg.description, rootPkg.description, "the root's description (what create-npm-dirs writes)");
    for (const field of ["dependencies", "optionalDependencies", "scripts", "bin"]) {
      assert.equal(pkg[field], undefined, `a binary-only package has ${field}`);
    }
  });
}

// Their versions are napi prepublish's to set at release (to the version being published);
// besides them only what loads the WebAssembly core where no platform package does
// (wasm/pi-codegraph.wasi.cjs requires them): optional, so that an offline install of the package
// with its platform package still succeeds.
const WASM_RUNTIME = ["@emnapi/core", "@emnapi/runtime", "@napi-rs/wasm-runtime"];
test("the root's optionalDependencies are exactly the platform packages and the WebAssembly core's loader", () => {
  const names = Object.keys(rootPkg.optionalDependencies ?? {}).sort();
  assert.deepEqual(names, [...targets.map((t) => expected(t).name), ...WASM_RUNTIME].sort());
  assert.equal(rootPkg.dependencies, undefined, "nothing a native install does not need is required");
});

test("the WebAssembly core is linked against the emnapi its loader runs: one exact version", () => {
  const built = rootPkg.devDependencies.emnapi;
  assert.match(built, /^\d+\.\d+\.\d+$/, "emnapi (linked into wasm/) is pinned");
  for (const name of ["@emnapi/core", "@emnapi/runtime"]) assert.equal(rootPkg.optionalDependencies[name], built, name);
  const loader = fs.readFileSync(path.join(root, "wasm", "pi-codegraph.wasi.cjs"), "utf8");
  for (const name of ["@napi-rs/wasm-runtime", "@emnapi/runtime"])
    assert.ok(loader.includes(`require('${name}')`), name);
});

test("the generated loader asks for each platform package by its name", () => {
  const loader = fs.readFileSync(path.join(root, "binding.js"), "utf8");
  for (const triple of targets) {
    const { name, node } = expected(triple);
    assert.ok(loader.includes(`require('${name}')`), `binding.js never requires ${name}`);
    assert.ok(loader.includes(`require('./${node}')`), `binding.js never looks for ./${node}`);
  }
});

test("Pi's package changelog: its reader finds this version's entry, the newest of CHANGELOG.md's", async () => {
  // Pi 1.x shows a package's changelog entries newer than the version last seen (packages.md),
  // read by its own parser: `## x.y.z` headings; `## Unreleased` is skipped.
  const piDir = path.join(root, "node_modules", "@earendil-works", "pi-coding-agent");
  const { parseChangelog, compareVersions } = await import(
    pathToFileURL(path.join(piDir, "dist", "utils", "changelog.js")).href
  );
  const entries = parseChangelog(path.join(root, "CHANGELOG.md"));
  const [major, minor, patch] = rootPkg.version.split(".").map(Number);
  const newest = entries.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));
  assert.deepEqual([newest.major, newest.minor, newest.patch], [major, minor, patch]);
  assert.ok(newest.content.split("\n").length > 3, "the entry has a body");
  assert.equal(rootPkg.pi.changelogPath, undefined, "Pi reads CHANGELOG.md at the package root");
});
