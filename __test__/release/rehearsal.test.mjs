// The publish job, rehearsed against a real registry (CI's `release` step: .ci/release/rehearse).
// A copy of this checkout, made a git repository, publishes with .ci/release/publish (the file
// release.yml's publish job runs) into verdaccio on 127.0.0.1 (registry.mjs), with the npm the job
// uses (.ci/release/package.json). The 8 platform packages get the .node files the targets lane
// built (PI_CODEGRAPH_RELEASE_ARTIFACTS), this machine's own build where the lane left none, and a
// placeholder file, said as such, where a target cannot be built here. In order:
//   - a platform package.json without `repository`, or (on Actions) a repository.url naming another
//     repository than the one the release runs in, or a pushed tag naming another version than
//     package.json's: the publish stops before anything is uploaded;
//   - a release, its tag given as the script's argument (as off Actions): 9 packages under
//     `latest`, each tarball with its LICENSE, the tree as committed;
//   - `npm version` to a prerelease: its commit syncs all 9 manifests; spelled `v1.2.3-rc.0` (npm
//     cleans that when it publishes) and published on Actions from its tag: under `next`, `latest`
//     untouched, for the root and each platform package;
//   - a fresh project's `npm install pi-codegraph` from that registry loads the addon;
//   - `pi install npm:pi-codegraph` into a scratch Pi home pointed at it, and one explore in Pi.
// What it cannot prove offline: provenance itself (OIDC, Sigstore) and the public registry's own
// checks; .ci/release/manifests.mjs checks what provenance needs of the manifests.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { manifestFaults, platformOf } from "../../.ci/release/manifests.mjs";
import { startFakeOpenAI } from "../helpers/fake-openai.mjs";
import { fakeBinDir, makeWorkspace, root, tempDir } from "../helpers/index.mjs";
import { jsonModeArgs, killAllPi, piEnv, piScratch, runPi, writeModelsJson } from "../helpers/pi-harness.mjs";
import { startRegistry } from "./registry.mjs";

const require = createRequire(import.meta.url);
const { target } = require("../../lib/runners/native.js");
const rootPkg = require("../../package.json");
const tools = process.env.PI_CODEGRAPH_RELEASE_TOOLS;
const lane = process.env.PI_CODEGRAPH_RELEASE_ARTIFACTS;
const nodeDir = path.dirname(process.execPath);
const npmBin = tools && path.join(tools, "node_modules", ".bin");
/** The job's npm first, then this Node; git and bash from the system. */
const PATH = [npmBin, nodeDir, "/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter);
const host = target();
const hostTriple = rootPkg.napi.targets.find((t) => platformOf(t) === host);

/** What GitHub Actions sets for the release workflow on a push of the tag `tag` in this repository. */
function actionsEnv(tag) {
  return {
    GITHUB_ACTIONS: "true",
    GITHUB_REPOSITORY: rootPkg.repository.url.replace(/^git\+https:\/\/github\.com\//, "").replace(/\.git$/, ""),
    GITHUB_REF: `refs/tags/${tag}`,
    GITHUB_REF_NAME: tag,
    GITHUB_REF_TYPE: "tag",
  };
}

/** The files a publish needs of this checkout (the published set, the manifests, the release scripts). */
/** The installed directories of the root's registry dependencies (the WebAssembly core's loader: every optional one but the platform packages) and of theirs, each once (node_modules is flat here). */
function dependencyDirs(from) {
  const seen = new Set();
  const visit = (name) => {
    const dir = path.join(from, "node_modules", name);
    if (seen.has(dir)) return;
    seen.add(dir);
    for (const dep of Object.keys(
      JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).dependencies ?? {},
    )) {
      visit(dep);
    }
  };
  const platform = (name) => name.startsWith(`${rootPkg.name}-`);
  for (const name of Object.keys(rootPkg.optionalDependencies ?? {}).filter((n) => !platform(n))) visit(name);
  return [...seen];
}

const COPIED = [...rootPkg.files, "package.json", "package-lock.json", "npm", ".ci/release", ".gitignore"];

/** A copy of this checkout at `dir`, committed to a git repository of its own (the maintainer's tree at a tag). */
function checkoutCopy(dir) {
  for (const item of COPIED) {
    fs.mkdirSync(path.dirname(path.join(dir, item)), { recursive: true });
    fs.cpSync(path.join(root, item), path.join(dir, item), { recursive: true });
  }
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  fs.appendFileSync(path.join(dir, ".gitignore"), "/node_modules\n");
  const git = (...args) => execFileSync("git", args, { cwd: dir });
  git("init", "-q");
  git("config", "user.name", "rehearsal");
  git("config", "user.email", "rehearsal@localhost");
  git("add", "-A");
  git("commit", "-qm", "the checkout");
  return { dir, git: (...args) => git(...args).toString() };
}

/**
 * Nothing `what` changed in the tree differs from its commit but the order of a JSON file's keys
 * (napi prepublish writes the root's optionalDependencies in its targets' order; npm sorts them).
 */
function assertTreeAsCommitted(copy, what) {
  for (const line of copy.git("status", "--porcelain").split("\n").filter(Boolean)) {
    const file = line.slice(3);
    assert.match(file, /\.json$/, `${what} changed ${file}`);
    const committed = JSON.parse(copy.git("show", `HEAD:${file}`));
    assert.deepEqual(
      JSON.parse(fs.readFileSync(path.join(copy.dir, file), "utf8")),
      committed,
      `${what} changed ${file}`,
    );
  }
}

/**
 * The artifacts as release.yml's build legs upload them (`bindings-<triple>/<binary>.<platform>.node`):
 * `{ dir, made }`, `made` saying per platform where its file came from. `fromLane: false` takes
 * only this machine's own build (and placeholders), for a publish whose binaries nothing installs.
 */
function layOutArtifacts(dir, { fromLane: useLane = true } = {}) {
  const made = {};
  for (const triple of rootPkg.napi.targets) {
    const platform = platformOf(triple);
    const file = `pi-codegraph.${platform}.node`;
    const dest = path.join(dir, `bindings-${triple}`, file);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    const fromLane = useLane && lane && path.join(lane, `bindings-${triple}`, file);
    if (fromLane && fs.existsSync(fromLane)) {
      fs.copyFileSync(fromLane, dest);
      made[platform] = "built by the targets lane";
    } else if (triple === hostTriple && fs.existsSync(path.join(root, file))) {
      fs.copyFileSync(path.join(root, file), dest);
      made[platform] = "this machine's build (npm run build)";
    } else {
      fs.writeFileSync(dest, `placeholder, not a binary: ${triple} is not built on this machine\n`);
      made[platform] = "PLACEHOLDER";
    }
  }
  return { dir, made };
}

describe("the publish job against a registry on 127.0.0.1", { skip: !tools && "run by .ci/release/rehearse" }, () => {
  let work;
  let registry;
  let env;
  let artifacts;
  const npm = (args, opts = {}) => spawnSync(path.join(npmBin, "npm"), args, { env, encoding: "utf8", ...opts });
  const view = (name) => {
    const r = npm(["view", name, "--json"]);
    return r.status === 0 ? JSON.parse(r.stdout) : null;
  };
  const publish = (copy, dir = artifacts.dir, extraEnv = {}, ...tag) =>
    spawnSync("bash", [path.join(copy.dir, ".ci", "release", "publish"), dir, ...tag], {
      env: { ...env, ...extraEnv },
      encoding: "utf8",
    });
  const names = [rootPkg.name, ...rootPkg.napi.targets.map((t) => `${rootPkg.name}-${platformOf(t)}`)];

  before(async () => {
    work = tempDir("pi-codegraph-release-");
    const verdaccio = path.join(npmBin, "verdaccio");
    registry = await startRegistry(path.join(work, "registry"), { verdaccio, env: { PATH, HOME: work } });
    env = {
      PATH,
      HOME: path.join(work, "home"),
      NPM_CONFIG_USERCONFIG: registry.npmrc,
      npm_config_cache: path.join(work, "npm-cache"),
      npm_config_update_notifier: "false",
      npm_config_audit: "false",
      npm_config_fund: "false",
    };
    fs.mkdirSync(env.HOME);
    artifacts = layOutArtifacts(path.join(work, "artifacts"));
    for (const [platform, how] of Object.entries(artifacts.made)) console.log(`# ${platform}: ${how}`);
    assert.notEqual(artifacts.made[host], "PLACEHOLDER", `this machine's .node (${host}): run npm run build`);
    // pi-codegraph's registry dependencies (the WebAssembly core's loader, @napi-rs/wasm-runtime,
    // and what it needs), from this checkout's install: the registry has no uplink.
    for (const dir of dependencyDirs(root)) {
      const packed = execFileSync(path.join(npmBin, "npm"), ["pack", "--ignore-scripts", dir], {
        cwd: work,
        env,
        encoding: "utf8",
      }).trim();
      // A package's own publishConfig may name the public registry: this one is told explicitly.
      const r = npm(["publish", "--registry", registry.url, path.join(work, packed.split("\n").pop())]);
      assert.equal(r.status, 0, r.stderr);
    }
  });

  after(async () => {
    killAllPi();
    await registry?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test("a platform package.json without `repository` stops the publish before anything is uploaded", () => {
    const copy = checkoutCopy(path.join(work, "faulty"));
    const file = path.join(copy.dir, "npm", "linux-arm64-gnu", "package.json");
    const { repository, ...rest } = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.ok(repository, "the committed manifest has one");
    fs.writeFileSync(file, `${JSON.stringify(rest, null, 2)}\n`);
    const r = publish(copy);
    assert.notEqual(r.status, 0, "the publish went on");
    assert.match(r.stderr, /npm\/linux-arm64-gnu\/package\.json: repository is undefined/);
    for (const name of names) assert.equal(view(name), null, `${name} reached the registry`);
  });

  test("on Actions, a repository.url that is not the repository the release runs in stops it too", () => {
    const copy = checkoutCopy(path.join(work, "fork"));
    const r = publish(copy, artifacts.dir, { GITHUB_ACTIONS: "true", GITHUB_REPOSITORY: "someone-else/fork" });
    assert.notEqual(r.status, 0, "the publish went on");
    assert.match(r.stderr, /package\.json: repository\.url is .*, but this release runs in someone-else\/fork/);
    for (const name of names) assert.equal(view(name), null, `${name} reached the registry`);
  });

  test("on Actions, a pushed tag that is not package.json's version stops it too, naming both", () => {
    const copy = checkoutCopy(path.join(work, "mistagged"));
    const r = publish(copy, artifacts.dir, actionsEnv("v9.9.9"));
    assert.notEqual(r.status, 0, "the publish went on");
    assert.match(
      r.stderr,
      new RegExp(
        `package\\.json: version is ${rootPkg.version}, but the pushed tag is v9\\.9\\.9 \\(GITHUB_REF=refs/tags/v9\\.9\\.9\\)`,
      ),
    );
    for (const name of names) assert.equal(view(name), null, `${name} reached the registry`);
  });

  describe("a release, then a prerelease, from one maintainer's tree", () => {
    let copy;
    before(() => {
      copy = checkoutCopy(path.join(work, "tree"));
    });

    test("a release: the 8 platform packages and the root under `latest`, each with its LICENSE", () => {
      // Off Actions, as a maintainer would run it: the tag named as the script's second argument.
      const r = publish(copy, artifacts.dir, {}, `v${rootPkg.version}`);
      assert.equal(r.status, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
      assert.match(r.stdout, new RegExp(`; the pushed tag v${rootPkg.version} names it\n`));
      assert.match(r.stdout, new RegExp(`publish: ${rootPkg.version} under the dist-tag latest`));
      for (const name of names) {
        const doc = view(name);
        assert.ok(doc, `${name} is in the registry`);
        assert.deepEqual(doc["dist-tags"], { latest: rootPkg.version }, name);
        assert.equal(doc.repository?.url, rootPkg.repository.url, `${name}'s repository`);
      }
      for (const triple of rootPkg.napi.targets) {
        const platform = platformOf(triple);
        const packDir = path.join(work, "packs", platform);
        fs.mkdirSync(packDir, { recursive: true });
        const p = npm(["pack", `${rootPkg.name}-${platform}@${rootPkg.version}`, "--json"], { cwd: packDir });
        assert.equal(p.status, 0, p.stderr);
        const files = JSON.parse(p.stdout)[0]
          .files.map((f) => f.path)
          .sort();
        assert.deepEqual(files, ["LICENSE", "README.md", "package.json", `pi-codegraph.${platform}.node`], platform);
      }
      assertTreeAsCommitted(copy, "the release");
      copy.git("checkout", "--", "."); // the job's checkout is its own: the maintainer's tree was never touched
    });

    test("a prerelease: `npm version` syncs all 9 manifests in its commit; however spelled, published under `next`", () => {
      const v = npm(["version", "prerelease", "--preid", "rc"], { cwd: copy.dir });
      assert.equal(v.status, 0, v.stderr);
      const version = v.stdout.trim().split("\n").pop().replace(/^v/, "");
      assert.match(version, /^\d+\.\d+\.\d+-rc\.0$/);
      assertTreeAsCommitted(copy, "npm version");
      assert.deepEqual(manifestFaults(copy.dir), [], "the version commit's manifests");
      const lock = JSON.parse(fs.readFileSync(path.join(copy.dir, "package-lock.json"), "utf8"));
      assert.equal(lock.packages[""].optionalDependencies[`${rootPkg.name}-${host}`], version);

      // Spelled as a hand edit may spell it, which npm accepts and cleans when it publishes: the
      // dist-tag is the cleaned version's. Published as release.yml does, on the push of its tag.
      const pkg = JSON.parse(fs.readFileSync(path.join(copy.dir, "package.json"), "utf8"));
      fs.writeFileSync(
        path.join(copy.dir, "package.json"),
        `${JSON.stringify({ ...pkg, version: `v${version}` }, null, 2)}\n`,
      );
      execFileSync(process.execPath, [path.join(copy.dir, ".ci", "release", "manifests.mjs"), "sync"]);
      assert.deepEqual(manifestFaults(copy.dir), [], "the respelled manifests");

      // What it publishes is never installed here: this machine's build and placeholders spare
      // compressing the lane's 6 dev builds (about 170 MB) a second time.
      const own = layOutArtifacts(path.join(work, "artifacts-own"), { fromLane: false });
      const r = publish(copy, own.dir, actionsEnv(`v${version}`));
      assert.equal(r.status, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
      for (const name of names) {
        assert.deepEqual(view(name)["dist-tags"], { latest: rootPkg.version, next: version }, name);
      }
      assert.match(r.stdout, / under the dist-tag next\n/);
    });
  });

  test("a fresh project installs pi-codegraph from the registry: its platform package comes along and explores", () => {
    const project = path.join(work, "project");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "package.json"), '{"name":"user-project","private":true}\n');
    const r = npm(["install", rootPkg.name], { cwd: project });
    assert.equal(r.status, 0, r.stderr);
    const installed = path.join(project, "node_modules", rootPkg.name);
    assert.equal(JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")).version, rootPkg.version);
    assert.ok(
      fs.existsSync(path.join(project, "node_modules", `${rootPkg.name}-${host}`, `pi-codegraph.${host}.node`)),
    );
    const doctor = spawnSync(process.execPath, [path.join(project, "node_modules", ".bin", "pi-codegraph"), "doctor"], {
      cwd: makeWorkspace(),
      env: { PATH: fakeBinDir(), HOME: env.HOME },
      encoding: "utf8",
    });
    assert.equal(doctor.status, 0, doctor.stdout + doctor.stderr);
    assert.match(
      doctor.stdout,
      new RegExp(`^addon\\s+.*node_modules/${rootPkg.name}-${host}/pi-codegraph\\.${host}\\.node$`, "m"),
    );
  });

  /**
   * `pi install npm:pi-codegraph` from the registry into a scratch Pi home, one explore in Pi and
   * `/codegraph doctor`'s runner line, handed to `check(modules, runner)` before the scratch home
   * goes; `npmEnv`: what Pi's npm is told besides the registry. The workspace's index is set back
   * an hour, so that doctor's changed-files walk (the core's) finds its sources.
   */
  async function piInstallAndExplore(npmEnv, check) {
    const { scratch, home, agentDir } = piScratch("pi-codegraph-release-pi-");
    const server = await startFakeOpenAI({ request: "what calls main" });
    try {
      writeModelsJson(agentDir, server.baseUrl, ["release-model"]);
      const piWith = (dirs) => ({
        ...piEnv({ agentDir, home, pathDirs: dirs }),
        NPM_CONFIG_USERCONFIG: registry.npmrc,
        ...npmEnv,
      });
      const install = await runPi(["install", `npm:${rootPkg.name}`], {
        cwd: scratch,
        env: piWith([npmBin, nodeDir]),
        timeoutMs: 90000,
      });
      assert.equal(install.code, 0, install.stdout + install.stderr);
      const modules = path.join(agentDir, "npm", "node_modules");

      const ws = makeWorkspace();
      const hourAgo = new Date(Date.now() - 3600_000);
      fs.utimesSync(path.join(ws, ".codegraph", "codegraph.db"), hourAgo, hourAgo);
      fs.writeFileSync(path.join(ws, "late.ts"), "export function late() {}\n");
      const run = await runPi(jsonModeArgs("release-model", "What calls main?"), {
        cwd: ws,
        env: piWith([fakeBinDir(), nodeDir]),
      });
      assert.equal(run.code, 0, run.stderr.slice(-2000));
      const end = run.events.find((e) => e.type === "tool_execution_end" && e.toolName === "codegraph_explore");
      assert.ok(end, "the tool ran");
      assert.equal(end.isError, false, JSON.stringify(end.result).slice(0, 400));
      assert.match(end.result.content[0].text, /^FAKE EXPLORE\n/);
      const report = await runPi(jsonModeArgs("release-model", "/codegraph doctor"), {
        cwd: ws,
        env: piWith([fakeBinDir(), nodeDir]),
      });
      const text = `${report.stdout}\n${report.stderr}`;
      // Both sources are newer than the index set back an hour.
      assert.match(text, /ready, 2 files changed since the index: late\.ts, main\.ts/, "the core's walk");
      check(
        modules,
        text.split("\n").find((l) => l.startsWith("runner: ")),
      );
    } finally {
      await server.close();
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  test("`pi install npm:pi-codegraph` from the registry into a scratch Pi home, and one explore in Pi", {
    timeout: 120000,
  }, async () => {
    await piInstallAndExplore({}, (modules, runner) => {
      const addon = path.join(modules, `${rootPkg.name}-${host}`, `pi-codegraph.${host}.node`);
      assert.ok(fs.existsSync(addon), "Pi's npm install brought the platform package");
      assert.equal(runner, `runner: native addon ${addon}`);
    });
  });

  test("on a platform with no prebuilt addon (Android, as Termux is), the WebAssembly core answers in Pi", {
    timeout: 120000,
  }, async () => {
    // npm installs for the platform it is told (its `os` config): no platform package matches.
    await piInstallAndExplore({ npm_config_os: "android" }, (modules, runner) => {
      assert.ok(!fs.existsSync(path.join(modules, `${rootPkg.name}-${host}`)), "no platform package was installed");
      const core = path.join(modules, rootPkg.name, "wasm", "pi-codegraph.wasm32-wasi.wasm");
      assert.ok(fs.existsSync(core), "the package carries the WebAssembly core");
      assert.ok(runner?.startsWith(`runner: node ${core} (native addon not loaded: `), runner);
    });
  });
});
