#!/usr/bin/env node
// The 9 package.json files a release publishes (the root and npm/<platform>/ for each napi
// target), and what a publish with provenance needs of them: one version everywhere (the root's
// optionalDependencies included), `repository` naming the GitHub repository the release runs in,
// `publishConfig.access: public` (npm refuses provenance for a new package without it), and a
// LICENSE in every tarball. The root's fields are the source; `sync` copies them down.
//   node .ci/release/manifests.mjs sync             after `npm version` (the `version` script)
//   node .ci/release/manifests.mjs check [--publish] every fault, one line each; exit 1 if any
//                                                   (--publish: also each npm/<platform>/LICENSE,
//                                                   and repository = $GITHUB_REPOSITORY on Actions)
//   node .ci/release/manifests.mjs tag              the dist-tag this version publishes to
import fs from "node:fs";
import path from "node:path";

const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
const PUBLIC = { access: "public" };

/** The dist-tag for `version`: `latest` for a release, `next` for a prerelease (1.2.0-rc.1). */
export function distTag(version) {
  return /^\d+\.\d+\.\d+-/.test(version) ? "next" : "latest";
}

/** `{ root: { file, json }, platforms: [{ dir, file, json }] }`, the platforms in npm/'s order. */
export function readManifests(root) {
  const npmDir = path.join(root, "npm");
  const platforms = fs
    .readdirSync(npmDir)
    .sort()
    .map((dir) => ({ dir: path.join(npmDir, dir), file: path.join(npmDir, dir, "package.json") }))
    .map((p) => ({ ...p, json: readJson(p.file) }));
  const file = path.join(root, "package.json");
  return { root: { file, json: readJson(file) }, platforms };
}

/** What a platform package's manifest holds of the root's: version, license, repository, access. */
function platformFields(rootJson, platformDir) {
  const repository = rootJson.repository && {
    ...rootJson.repository,
    directory: `npm/${path.basename(platformDir)}`,
  };
  return { version: rootJson.version, license: rootJson.license, repository, publishConfig: PUBLIC };
}

/** npm/'s directory for a Rust target triple (napi's platformArchABI): linux-x64-gnu, darwin-arm64, win32-arm64-msvc. */
export function platformOf(triple) {
  const [arch, , sys, abi] = triple.split("-");
  const os = { darwin: "darwin", linux: "linux", windows: "win32" }[sys];
  return [os, { x86_64: "x64", aarch64: "arm64" }[arch], os === "darwin" ? undefined : abi].filter(Boolean).join("-");
}

/** The repository URL GitHub Actions' provenance expects for `owner/name`. */
export function repositoryUrlFor(githubRepository) {
  return `git+https://github.com/${githubRepository}.git`;
}

/**
 * Every fault, as `file: what is wrong; how to fix it`. `publish`: the tree as the publish job
 * is about to publish it (LICENSE copied into each platform package); `githubRepository`: the
 * `owner/name` the release runs in, which `repository.url` must name for provenance.
 */
export function manifestFaults(root, { publish = false, githubRepository } = {}) {
  const { root: top, platforms } = readManifests(root);
  const rel = (file) => path.relative(root, file);
  const faults = [];
  const { version, repository, publishConfig, optionalDependencies = {} } = top.json;
  const sync = "run `node .ci/release/manifests.mjs sync`";
  if (!repository?.url) {
    faults.push(`${rel(top.file)}: no repository.url; provenance needs the GitHub repository the release runs in`);
  } else if (githubRepository && repository.url.toLowerCase() !== repositoryUrlFor(githubRepository).toLowerCase()) {
    faults.push(
      `${rel(top.file)}: repository.url is ${repository.url}, but this release runs in ${githubRepository}; set it to ${repositoryUrlFor(githubRepository)}, then ${sync}`,
    );
  }
  if (publishConfig?.access !== "public") {
    faults.push(
      `${rel(top.file)}: publishConfig.access is not "public"; npm refuses provenance for a new package without it`,
    );
  }
  for (const p of platforms) {
    const want = platformFields(top.json, p.dir);
    for (const [field, value] of Object.entries(want)) {
      if (JSON.stringify(p.json[field]) !== JSON.stringify(value)) {
        faults.push(
          `${rel(p.file)}: ${field} is ${JSON.stringify(p.json[field])}, the root's gives ${JSON.stringify(value)}; ${sync}`,
        );
      }
    }
    if (optionalDependencies[p.json.name] !== version) {
      faults.push(
        `${rel(top.file)}: optionalDependencies["${p.json.name}"] is ${optionalDependencies[p.json.name]}, not ${version}; ${sync}`,
      );
    }
    if (publish && !fs.existsSync(path.join(p.dir, "LICENSE"))) {
      faults.push(`${rel(p.dir)}: no LICENSE to ship in the tarball (the publish script copies the root's)`);
    }
  }
  return faults;
}

/** Writes the root's version, license, repository and access into every platform package and the root's optionalDependencies (and the lock's). */
export function syncManifests(root) {
  const { root: top, platforms } = readManifests(root);
  for (const p of platforms) writeJson(p.file, { ...p.json, ...platformFields(top.json, p.dir) });
  // Sorted by name, as npm writes dependencies (napi prepublish's own rewrite orders them by
  // target, which changes no value).
  const names = new Set(platforms.map((p) => p.json.name));
  const pinned = (deps = {}) =>
    Object.fromEntries(
      Object.keys(deps)
        .sort()
        .map((k) => [k, names.has(k) ? top.json.version : deps[k]]),
    );
  writeJson(top.file, { ...top.json, optionalDependencies: pinned(top.json.optionalDependencies) });
  const lockFile = path.join(root, "package-lock.json");
  if (fs.existsSync(lockFile)) {
    const lock = readJson(lockFile);
    const own = lock.packages?.[""];
    if (own?.optionalDependencies) own.optionalDependencies = pinned(own.optionalDependencies);
    writeJson(lockFile, lock);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(import.meta.dirname, "..", "..");
  const [verb, ...flags] = process.argv.slice(2);
  if (verb === "sync") {
    syncManifests(root);
  } else if (verb === "check") {
    const onActions = process.env.GITHUB_ACTIONS === "true";
    const faults = manifestFaults(root, {
      publish: flags.includes("--publish"),
      githubRepository: onActions ? process.env.GITHUB_REPOSITORY : undefined,
    });
    for (const fault of faults) console.error(`manifests: ${fault}`);
    if (faults.length) process.exit(1);
    console.log(
      `manifests: ${1 + readManifests(root).platforms.length} package.json files agree (version ${readManifests(root).root.json.version})`,
    );
  } else if (verb === "tag") {
    console.log(distTag(readManifests(root).root.json.version));
  } else {
    console.error("usage: node .ci/release/manifests.mjs sync | check [--publish] | tag");
    process.exit(2);
  }
}
