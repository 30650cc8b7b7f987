// What the publish job checks of the 9 manifests before it uploads anything
// (.ci/release/manifests.mjs, run by .ci/release/publish), and what `npm version` syncs: each
// class of fault on a copy of this checkout's manifests, said with its file, and `sync` repairing
// the ones it owns. CI's `release` step rehearses the publish itself (__test__/release/).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { distTag, manifestFaults, platformOf, repositoryUrlFor, syncManifests } from "../.ci/release/manifests.mjs";
import { root, tempDir } from "./helpers/index.mjs";

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
  ]) {
    assert.equal(distTag(version), tag, version);
  }
  const { napi } = readJson(path.join(root, "package.json"));
  assert.deepEqual(napi.targets.map(platformOf).sort(), fs.readdirSync(path.join(root, "npm")).sort());
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
