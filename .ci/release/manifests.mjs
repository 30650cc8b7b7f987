#!/usr/bin/env node
// The 9 package.json files a release publishes (the root and npm/<platform>/ for each napi
// target), and what a publish with provenance needs of them: one version everywhere (the root's
// optionalDependencies included), `repository` naming the GitHub repository the release runs in,
// `publishConfig.access: public` (npm refuses provenance for a new package without it), and a
// LICENSE in every tarball; and a version that is semver (npm cleans it when it publishes:
// `v1.2.3-rc.1` goes out as 1.2.3-rc.1), named by the git tag the release runs for. The root's
// fields are the source; `sync` copies them down.
//   node .ci/release/manifests.mjs sync    after `npm version` (the `version` script)
//   node .ci/release/manifests.mjs check [--publish] [--tag TAG]
//                                          every fault, one line each; exit 1 if any. --publish:
//                                          also each npm/<platform>/LICENSE and, on Actions,
//                                          repository = $GITHUB_REPOSITORY. The pushed tag must
//                                          name the version (cleaned, both): TAG when given, else
//                                          on Actions the ref's (GITHUB_REF refs/tags/<tag>, or
//                                          GITHUB_REF_NAME when GITHUB_REF_TYPE is tag); on
//                                          Actions, --publish for a ref that is no tag is a fault;
//                                          elsewhere without --tag nothing is compared, as the
//                                          last line says
//   node .ci/release/manifests.mjs tag     the dist-tag the cleaned version publishes to: `next`
//                                          for a prerelease however spelled, else `latest`;
//                                          exit 1 if the version is not semver
import fs from "node:fs";
import path from "node:path";

const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
const PUBLIC = { access: "public" };

// SemVer 2.0.0 as semver.org's own regular expression gives it (the numbered-groups one):
// major, minor, patch, then the prerelease and the build metadata if any.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/**
 * `version` as npm publishes it, or null when it is no version: what semver's `clean` gives, and
 * npm cleans a manifest's version so. The whitespace around it and the `v`s and `=`s before it
 * go, then it must be semver (numbers npm can hold, 256 characters at most), and its build
 * metadata goes: ` v1.2.3-rc.1+b.5` is 1.2.3-rc.1, `=v1.2.3` is 1.2.3.
 */
export function cleanVersion(version) {
  if (typeof version !== "string") return null;
  const stripped = version.trim().replace(/^[=v]+/, "");
  if (stripped.length > 256) return null;
  const m = SEMVER.exec(stripped.trim().replace(/^v/, ""));
  if (!m || m.slice(1, 4).some((n) => !Number.isSafeInteger(Number(n)))) return null;
  return `${m[1]}.${m[2]}.${m[3]}${m[4] === undefined ? "" : `-${m[4]}`}`;
}

/** What is wrong with a `version` that cleanVersion refuses, and what makes one. */
function notSemver(version) {
  return `version ${JSON.stringify(version)} is not a semver version (MAJOR.MINOR.PATCH, then -PRERELEASE and +BUILD if any: semver.org); set one with \`npm version X.Y.Z\``;
}

/**
 * The dist-tag for `version`, taken from the version npm publishes (cleanVersion): `next` for a
 * prerelease (1.2.0-rc.1, v1.2.0-rc.1, =1.2.0-rc.1), else `latest`. Throws if it is no version.
 */
export function distTag(version) {
  const clean = cleanVersion(version);
  if (clean === null) throw new Error(notSemver(version));
  return clean.includes("-") ? "next" : "latest";
}

/**
 * The git tag a publish is for, `{ tag, from }` (`from`: where it was read, as a fault says it):
 * `flagTag` (`--tag`) when given, else on GitHub Actions (`env.GITHUB_ACTIONS`) the tag of the
 * push it runs for, from GITHUB_REF (`refs/tags/<tag>`) or GITHUB_REF_NAME when GITHUB_REF_TYPE
 * is `tag`. On Actions for a ref that is no tag, `{ from }` alone; elsewhere, undefined.
 */
export function pushedTag(env, flagTag) {
  if (flagTag !== undefined) return { tag: flagTag, from: "--tag" };
  if (env.GITHUB_ACTIONS !== "true") return undefined;
  const ref = env.GITHUB_REF;
  if (ref?.startsWith("refs/tags/")) return { tag: ref.slice("refs/tags/".length), from: `GITHUB_REF=${ref}` };
  if (env.GITHUB_REF_TYPE === "tag" && env.GITHUB_REF_NAME) {
    return { tag: env.GITHUB_REF_NAME, from: `GITHUB_REF_NAME=${env.GITHUB_REF_NAME}` };
  }
  return { from: ref ? `GITHUB_REF is ${ref}` : "GITHUB_REF is unset" };
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
 * `owner/name` the release runs in, which `repository.url` must name for provenance; `pushed`:
 * the git tag the release runs for (pushedTag), which must name the version, both cleaned
 * (`{ from }` alone, a run that is no tag push, is a fault for a publish).
 */
export function manifestFaults(root, { publish = false, githubRepository, pushed } = {}) {
  const { root: top, platforms } = readManifests(root);
  const rel = (file) => path.relative(root, file);
  const faults = [];
  const { version, repository, publishConfig, optionalDependencies = {} } = top.json;
  const sync = "run `node .ci/release/manifests.mjs sync`";
  const clean = cleanVersion(version);
  if (clean === null) {
    faults.push(`${rel(top.file)}: ${notSemver(version)}`);
  } else if (pushed?.tag === undefined) {
    if (pushed && publish) {
      faults.push(
        `${rel(top.file)}: ${pushed.from}, not a pushed tag; a release publishes only on the push of the tag \`npm version\` made (v${clean})`,
      );
    }
  } else if (cleanVersion(pushed.tag) === null) {
    faults.push(
      `${rel(top.file)}: the pushed tag ${pushed.tag} (${pushed.from}) is not a semver version; publish from the tag \`npm version\` made for this version (v${clean})`,
    );
  } else if (cleanVersion(pushed.tag) !== clean) {
    faults.push(
      `${rel(top.file)}: version is ${version}, but the pushed tag is ${pushed.tag} (${pushed.from}); publish from the tag \`npm version\` made for this version, or set this version with \`npm version ${cleanVersion(pushed.tag)}\``,
    );
  }
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
  const tagAt = flags.indexOf("--tag");
  const tag = tagAt < 0 ? undefined : flags[tagAt + 1];
  const checkFlags = flags.every((f, i) => f === "--publish" || (tag && (i === tagAt || i === tagAt + 1)));
  if (verb === "sync") {
    syncManifests(root);
  } else if (verb === "check" && checkFlags) {
    const onActions = process.env.GITHUB_ACTIONS === "true";
    const pushed = pushedTag(process.env, tag);
    const faults = manifestFaults(root, {
      publish: flags.includes("--publish"),
      githubRepository: onActions ? process.env.GITHUB_REPOSITORY : undefined,
      pushed,
    });
    for (const fault of faults) console.error(`manifests: ${fault}`);
    if (faults.length) process.exit(1);
    const manifests = readManifests(root);
    const tagged = pushed?.tag
      ? `; the pushed tag ${pushed.tag} names it`
      : pushed
        ? ""
        : "; no pushed tag checked (not on GitHub Actions; --tag vX.Y.Z checks one)";
    console.log(
      `manifests: ${1 + manifests.platforms.length} package.json files agree (version ${manifests.root.json.version})${tagged}`,
    );
  } else if (verb === "tag" && flags.length === 0) {
    const { version } = readManifests(root).root.json;
    if (cleanVersion(version) === null) {
      console.error(`manifests: package.json: ${notSemver(version)}`);
      process.exit(1);
    }
    console.log(distTag(version));
  } else {
    console.error("usage: node .ci/release/manifests.mjs sync | check [--publish] [--tag TAG] | tag");
    process.exit(2);
  }
}
