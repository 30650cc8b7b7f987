// What the publish job checks of the 9 manifests before it uploads anything
// (.ci/release/manifests.mjs, run by .ci/release/publish), and what `npm version` syncs: each
// class of fault on a copy of this checkout's manifests, said with its file, and `sync` repairing
// the ones it owns; its command line (`tag`, `check --publish`) as the publish script runs it,
// on a copy. CI's `release` step rehearses the publish itself (__test__/release/).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { distTag, manifestFaults, platformOf, repositoryUrlFor, syncManifests } from "../../.ci/release/manifests.mjs";
import { root, tempDir } from "../helpers/index.mjs";

const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** The manifests (package.json, package-lock.json, npm/) copied into a temp dir, `edit`ed there. */
function copyWith(edit = () => {}) {
  const dir = tempDir("pi-codegraph-manifests-");
  for (const item of ["package.json", "package-lock.json", "npm"]) {
    fs.cpSync(path.join(root, item), path.join(dir, item), { recursive: true });
  }
  const json = (rel, change) => {
    const file = path.join(dir, rel);
    writeJson(file, change(readJson(file)) ?? readJson(file));
  };
  edit(json, dir);
  return dir;
}

/**
 * `node .ci/release/manifests.mjs ...args` on `dir` (the script reads the manifests two levels
 * above it, so a copy of it goes there), in an environment with none of GitHub's variables but
 * `env`'s (the suite itself may run on Actions).
 */
function cli(dir, args, env = {}) {
  const script = path.join(dir, ".ci", "release", "manifests.mjs");
  fs.mkdirSync(path.dirname(script), { recursive: true });
  fs.copyFileSync(path.join(root, ".ci", "release", "manifests.mjs"), script);
  return spawnSync(process.execPath, [script, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: "utf8" });
}

/** `dir`'s 9 manifests set to hold `version` as written (the root's, then synced), or a new copy's. */
function copyAt(version, dir = copyWith()) {
  const file = path.join(dir, "package.json");
  writeJson(file, { ...readJson(file), version });
  syncManifests(dir);
  return dir;
}

/** What GitHub Actions sets for a push of the tag `tag` in this repository. */
function actionsEnv(tag) {
  const { repository } = readJson(path.join(root, "package.json"));
  return {
    GITHUB_ACTIONS: "true",
    GITHUB_REPOSITORY: repository.url.replace(/^git\+https:\/\/github\.com\//, "").replace(/\.git$/, ""),
    GITHUB_REF: `refs/tags/${tag}`,
    GITHUB_REF_NAME: tag,
    GITHUB_REF_TYPE: "tag",
  };
}

test("the committed manifests agree: one version, repository, public access, pinned optional dependencies", () => {
  assert.deepEqual(manifestFaults(root), []);
  const copy = copyWith();
  syncManifests(copy);
  for (const rel of [
    "package.json",
    "package-lock.json",
    ...fs.readdirSync(path.join(root, "npm")).map((d) => `npm/${d}/package.json`),
  ]) {
    assert.equal(
      fs.readFileSync(path.join(copy, rel), "utf8"),
      fs.readFileSync(path.join(root, rel), "utf8"),
      `sync rewrites ${rel}`,
    );
  }
});

test("each fault is said with its file and a remedy; sync repairs what it owns", () => {
  const cases = [
    [
      (json) => json("npm/linux-arm64-gnu/package.json", ({ repository, ...rest }) => rest),
      /^npm\/linux-arm64-gnu\/package\.json: repository is undefined/,
    ],
    [
      (json) => json("npm/darwin-x64/package.json", (p) => ({ ...p, publishConfig: undefined })),
      /^npm\/darwin-x64\/package\.json: publishConfig is undefined/,
    ],
    [
      (json) => json("npm/win32-x64-msvc/package.json", (p) => ({ ...p, version: "0.0.9" })),
      /^npm\/win32-x64-msvc\/package\.json: version is "0\.0\.9"/,
    ],
    // What `npm version` alone leaves: the root's version moved, its optional dependencies did not.
    [
      (json) => json("package.json", (p) => ({ ...p, version: "9.9.9" })),
      /^package\.json: optionalDependencies\["pi-codegraph-darwin-x64"\] is [\d.]+, not 9\.9\.9/,
    ],
  ];
  for (const [edit, fault] of cases) {
    const copy = copyWith(edit);
    const faults = manifestFaults(copy);
    assert.ok(
      faults.some((f) => fault.test(f)),
      `${fault} among:\n${faults.join("\n")}`,
    );
    assert.ok(
      faults.every((f) => f.includes("manifests.mjs sync")),
      faults.join("\n"),
    );
    syncManifests(copy);
    assert.deepEqual(manifestFaults(copy), [], `after sync: ${fault}`);
  }
});

test("faults sync cannot repair: the root's repository and access are the source", () => {
  const noRepository = copyWith((json) => json("package.json", ({ repository, ...rest }) => rest));
  syncManifests(noRepository);
  assert.match(manifestFaults(noRepository).join("\n"), /^package\.json: no repository\.url/m);
  const privateAccess = copyWith((json) =>
    json("package.json", (p) => ({ ...p, publishConfig: { access: "restricted" } })),
  );
  assert.match(manifestFaults(privateAccess).join("\n"), /^package\.json: publishConfig\.access is not "public"/m);
});

test("provenance: repository.url must name the GitHub repository the release runs in", () => {
  const { repository } = readJson(path.join(root, "package.json"));
  const [owner, name] = repository.url
    .replace(/^git\+https:\/\/github\.com\//, "")
    .replace(/\.git$/, "")
    .split("/");
  assert.equal(repositoryUrlFor(`${owner}/${name}`), repository.url);
  assert.deepEqual(
    manifestFaults(root, { githubRepository: `${owner.toUpperCase()}/${name}` }),
    [],
    "GitHub names are case-insensitive",
  );
  const [fault, ...more] = manifestFaults(root, { githubRepository: "someone-else/fork" });
  assert.deepEqual(more, []);
  assert.match(
    fault,
    /^package\.json: repository\.url is .*, but this release runs in someone-else\/fork; set it to git\+https:\/\/github\.com\/someone-else\/fork\.git/,
  );
});

test("a publish needs a LICENSE in each platform package (the publish script copies the root's)", () => {
  const copy = copyWith();
  const dirs = fs.readdirSync(path.join(copy, "npm"));
  assert.equal(manifestFaults(copy, { publish: true }).length, dirs.length);
  for (const dir of dirs.slice(1)) fs.copyFileSync(path.join(root, "LICENSE"), path.join(copy, "npm", dir, "LICENSE"));
  assert.deepEqual(manifestFaults(copy, { publish: true }), [
    `npm/${dirs[0]}: no LICENSE to ship in the tarball (the publish script copies the root's)`,
  ]);
});

test("the dist-tag: latest for a release, next for any prerelease; platforms named as napi names them", () => {
  for (const [version, tag] of [
    ["1.2.3", "latest"],
    ["1.2.3+build.5", "latest"],
    ["1.2.3-rc.1", "next"],
    ["0.2.0-alpha.0", "next"],
    ["10.0.0-0", "next"],
    // Spelled as npm accepts and cleans them before it publishes (semver's clean: whitespace,
    // then a leading `v` or `=`): the tag follows the version npm publishes.
    ["v1.2.3", "latest"],
    ["v1.2.3-rc.1", "next"],
    ["=1.2.3-rc.1", "next"],
    [" v1.2.3-0\n", "next"],
    ["=v1.2.3-beta", "next"],
    ["v1.2.3+rc.1", "latest"],
  ]) {
    assert.equal(distTag(version), tag, JSON.stringify(version));
  }
  const { napi } = readJson(path.join(root, "package.json"));
  assert.deepEqual(napi.targets.map(platformOf).sort(), fs.readdirSync(path.join(root, "npm")).sort());
});

test("`tag` names the dist-tag of the version npm publishes: a prerelease in any spelling is `next`", () => {
  const copy = copyWith();
  for (const [version, tag] of [
    ["v0.2.0-rc.1", "next"],
    ["=0.2.0-rc.1", "next"],
    [" v0.2.0-alpha.0 ", "next"],
    ["v0.2.0", "latest"],
  ]) {
    const r = cli(copyAt(version, copy), ["tag"]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${tag}\n`, JSON.stringify(version));
  }
});

test("a version that is not semver is refused, by `check` and by `tag`, with what a version is", () => {
  const copy = copyWith();
  const fault = (version) =>
    `package.json: version ${JSON.stringify(version)} is not a semver version (MAJOR.MINOR.PATCH, then -PRERELEASE and +BUILD if any: semver.org); set one with \`npm version X.Y.Z\``;
  // The command line the publish script runs: `check` fails, `tag` gives nothing to publish under.
  copyAt("1.2", copy);
  const checked = cli(copy, ["check"]);
  assert.equal(checked.status, 1, `check accepted 1.2: ${checked.stdout}`);
  assert.match(checked.stderr, /^manifests: package\.json: version "1\.2" is not a semver version /);
  const tagged = cli(copy, ["tag"]);
  assert.equal(tagged.status, 1, `tag gave ${JSON.stringify(tagged.stdout)} for 1.2`);
  assert.equal(tagged.stdout, "");
  assert.equal(tagged.stderr, `manifests: ${fault("1.2")}\n`);
  // Each way a version can miss semver, the only fault found.
  for (const version of [
    "1.2",
    "1.2.3.4",
    "01.2.3",
    "1.2.3-",
    "1.2.3-rc..1",
    "1.2.3-01",
    "1.2.3+",
    "latest",
    "v",
    "",
  ]) {
    assert.deepEqual(manifestFaults(copyAt(version, copy)), [fault(version)]);
    assert.throws(() => distTag(version), { message: fault(version).replace("package.json: ", "") });
  }
});

test("`check --publish`: the pushed tag must name package.json's version, or nothing is published", () => {
  const withLicenses = (dir) => {
    for (const d of fs.readdirSync(path.join(dir, "npm")))
      fs.copyFileSync(path.join(root, "LICENSE"), path.join(dir, "npm", d, "LICENSE"));
    return dir;
  };
  const release = withLicenses(copyAt("1.2.3"));
  const prerelease = withLicenses(copyAt("v1.2.3-rc.1"));
  const refused = (dir, env, args = []) => {
    const r = cli(dir, ["check", "--publish", ...args], env);
    assert.equal(r.status, 1, `the publish went on: ${r.stdout}`);
    return r.stderr;
  };
  const accepted = (dir, env, args = []) => {
    const r = cli(dir, ["check", "--publish", ...args], env);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };

  // On Actions: the tag of the push (GITHUB_REF), cleaned as the version is.
  assert.equal(
    refused(release, actionsEnv("v1.2.4")),
    "manifests: package.json: version is 1.2.3, but the pushed tag is v1.2.4 (GITHUB_REF=refs/tags/v1.2.4); publish from the tag `npm version` made for this version, or set this version with `npm version 1.2.4`\n",
  );
  assert.match(
    refused(release, actionsEnv("v1.2.3-rc.1")),
    /version is 1\.2\.3, but the pushed tag is v1\.2\.3-rc\.1 /,
  );
  assert.match(refused(prerelease, actionsEnv("v1.2.3")), /version is v1\.2\.3-rc\.1, but the pushed tag is v1\.2\.3 /);
  assert.match(
    refused(release, actionsEnv("vnext")),
    /^manifests: package\.json: the pushed tag vnext \(GITHUB_REF=refs\/tags\/vnext\) is not a semver version/,
  );
  assert.match(accepted(release, actionsEnv("v1.2.3")), /\(version 1\.2\.3\); the pushed tag v1\.2\.3 names it$/m);
  assert.match(accepted(prerelease, actionsEnv("v1.2.3-rc.1")), /the pushed tag v1\.2\.3-rc\.1 names it/);
  // GITHUB_REF_NAME when GITHUB_REF is not there: whichever the workflow provides.
  const { GITHUB_REF, ...byName } = actionsEnv("v1.2.4");
  assert.match(refused(release, byName), /but the pushed tag is v1\.2\.4 \(GITHUB_REF_NAME=v1\.2\.4\)/);
  // A run that is no tag push (a branch, a manual run) publishes nothing.
  const branch = {
    ...actionsEnv("x"),
    GITHUB_REF: "refs/heads/main",
    GITHUB_REF_NAME: "main",
    GITHUB_REF_TYPE: "branch",
  };
  assert.match(
    refused(release, branch),
    /^manifests: package\.json: GITHUB_REF is refs\/heads\/main, not a pushed tag;/,
  );

  // Outside Actions: `--tag` (the publish script's second argument), else said as not checked.
  assert.match(
    refused(release, {}, ["--tag", "v1.2.4"]),
    /version is 1\.2\.3, but the pushed tag is v1\.2\.4 \(--tag\)/,
  );
  assert.match(accepted(release, {}, ["--tag", "v1.2.3"]), /the pushed tag v1\.2\.3 names it/);
  assert.match(accepted(release, {}), /no pushed tag checked \(not on GitHub Actions; --tag vX\.Y\.Z checks one\)/);
});

test("every workflow installs the Rust that rust-toolchain.toml pins", () => {
  const pin = fs.readFileSync(path.join(root, "rust-toolchain.toml"), "utf8").match(/^channel = "(.+)"$/m)?.[1];
  assert.match(pin ?? "", /^\d+\.\d+\.\d+$/, "a pinned release, not a channel");
  const dir = path.join(root, ".github", "workflows");
  const refs = fs
    .readdirSync(dir)
    .flatMap((f) =>
      [...fs.readFileSync(path.join(dir, f), "utf8").matchAll(/dtolnay\/rust-toolchain@(\S+)/g)].map(
        (m) => `${f}: ${m[1]}`,
      ),
    );
  assert.ok(
    refs.some((r) => r.startsWith("release.yml")),
    "the release workflow installs Rust",
  );
  assert.deepEqual(
    refs.filter((r) => !r.endsWith(`: ${pin}`)),
    [],
  );
});
