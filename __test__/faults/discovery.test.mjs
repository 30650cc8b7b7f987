// Discovery: which `codegraph` may run. Not a program, not there, planted in the repository, or
// CodeGraph's own npm launcher (skipped for its platform bundle).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import {
  assertStableError,
  expectError,
  expectResult,
  fakeCli,
  makeWorkspace,
  tempDir,
  withEnv,
  writeFake,
} from "../helpers/index.mjs";
import { assertNothingLeft } from "../helpers/processes.mjs";
import { runnerOf } from "../helpers/recording.mjs";
import { eachRunner, saved, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();

eachRunner("discovery", ({ explore, exploreWith, diagnose }, impl) => {
  test("none on PATH: the CLI installed beside the package runs (said by diagnose); one inside the workspace only when allowed", async () => {
    const runner = runnerOf(impl.id);
    const fake = fakeCli([["stdout", "BESIDE\n"]]);
    const empty = { PATH: tempDir("pi-codegraph-faults-bin-") };
    try {
      runner.setPackageCli(fake.file);
      assert.equal(expectResult(await exploreWith(undefined, "q", suite.ws, null, null, empty)).text, "BESIDE\n");
      const d = await withEnv({ PI_CODEGRAPH_BIN: undefined, ...empty }, () => diagnose(suite.ws));
      assert.equal(d.executable, fake.file);
      assert.equal(d.executableBesidePackage, true);
      // On PATH, the one there wins.
      const onPath = fakeCli([["stdout", "ON PATH\n"]]);
      const found = await exploreWith(undefined, "q", suite.ws, null, null, { PATH: onPath.dir });
      assert.equal(expectResult(found).text, "ON PATH\n");
      // Inside the workspace: the same rule as PATH's.
      const planted = path.join(suite.ws, "codegraph-beside");
      fs.copyFileSync(fake.file, planted);
      fs.chmodSync(planted, 0o755);
      runner.setPackageCli(planted);
      expectError(await exploreWith(undefined, "q", suite.ws, null, null, empty), "CODEGRAPH_NOT_FOUND");
      fs.rmSync(planted);
    } finally {
      runner.setPackageCli(null);
    }
    expectError(await exploreWith(undefined, "q", suite.ws, null, null, empty), "CODEGRAPH_NOT_FOUND");
    await assertNothingLeft();
  });

  test("is not executable: CODEGRAPH_SPAWN via PI_CODEGRAPH_BIN; skipped on PATH (CODEGRAPH_NOT_FOUND)", async () => {
    const fake = fakeCli([["stdout", "must never run\n"]]);
    fs.chmodSync(fake.file, 0o644);
    const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_SPAWN");
    assert.match(err.message, /not executable|permission denied/i);
    // On PATH a non-executable file is passed over, as a shell's search does.
    expectError(await exploreWith(undefined, "q", suite.ws, null, null, { PATH: fake.dir }), "CODEGRAPH_NOT_FOUND");
    await assertNothingLeft();
  });

  test("no CLI and no index: the CLI is the cause named (CODEGRAPH_NOT_FOUND), not the index", async () => {
    const bare = tempDir("pi-codegraph-faults-noindex-");
    const empty = tempDir("pi-codegraph-faults-bin-");
    const err = expectError(
      await exploreWith(undefined, "q", bare, null, null, { PATH: empty }),
      "CODEGRAPH_NOT_FOUND",
    );
    assert.doesNotMatch(`${err.message} ${err.remediation}`, /\/codegraph init|no index/i);
  });

  test("is executable but not a program (exec format error): CODEGRAPH_SPAWN", async () => {
    const dir = tempDir("pi-codegraph-faults-bin-");
    const file = path.join(dir, "codegraph");
    fs.writeFileSync(file, Buffer.from([0x7f, 0x00, 0x01, 0x02, 0x03]), { mode: 0o755 });
    expectError(await exploreWith(file, "q", suite.ws), "CODEGRAPH_SPAWN");
    await assertNothingLeft();
  });

  test("names an interpreter that does not exist: CODEGRAPH_NOT_FOUND", async () => {
    const dir = tempDir("pi-codegraph-faults-bin-");
    const file = path.join(dir, "codegraph");
    fs.writeFileSync(file, "#!/nonexistent/interpreter\n", { mode: 0o755 });
    const err = expectError(await exploreWith(file, "q", suite.ws), "CODEGRAPH_NOT_FOUND");
    assert.match(err.message, /interpreter/);
  });

  test("is a directory: CODEGRAPH_NOT_FOUND on PATH and via PI_CODEGRAPH_BIN (not a file)", async () => {
    const dir = tempDir("pi-codegraph-faults-bin-");
    fs.mkdirSync(path.join(dir, "codegraph"), { mode: 0o755 });
    expectError(await exploreWith(undefined, "q", suite.ws, null, null, { PATH: dir }), "CODEGRAPH_NOT_FOUND");
    const err = expectError(await exploreWith(path.join(dir, "codegraph"), "q", suite.ws), "CODEGRAPH_NOT_FOUND");
    assert.match(err.message, /not a file/);
  });

  test("is a broken symlink: CODEGRAPH_NOT_FOUND on PATH and via PI_CODEGRAPH_BIN", async () => {
    const dir = tempDir("pi-codegraph-faults-bin-");
    const link = path.join(dir, "codegraph");
    fs.symlinkSync(path.join(dir, "gone", "codegraph"), link);
    expectError(await exploreWith(undefined, "q", suite.ws, null, null, { PATH: dir }), "CODEGRAPH_NOT_FOUND");
    expectError(await exploreWith(link, "q", suite.ws), "CODEGRAPH_NOT_FOUND");
  });

  test("a `codegraph` and `codegraph.cmd` planted inside are never run, even with '.' or '' in PATH", async () => {
    const planted = makeWorkspace();
    const ran = path.join(tempDir("pi-codegraph-faults-sentinel-"), "planted-ran");
    for (const rel of ["codegraph", "codegraph.cmd", "bin/codegraph", "node_modules/.bin/codegraph"]) {
      fs.mkdirSync(path.dirname(path.join(planted, rel)), { recursive: true });
      writeFake(path.join(planted, rel), {
        steps: [
          ["appendArgv0", ran],
          ["stdout", "planted\n"],
        ],
      });
    }
    const real = fakeCli([["stdout", "the real one\n"]]);
    const cwd = process.cwd();
    process.chdir(planted); // as Pi would be: started in the repository
    try {
      for (const PATH of [".", "", ":", ".::", "./", "bin", "node_modules/.bin", "./node_modules/.bin:."]) {
        const outcome = await exploreWith(undefined, "q", planted, null, null, { PATH });
        expectError(outcome, "CODEGRAPH_NOT_FOUND");
      }
      // A relative entry first must not shadow the absolute one after it.
      const result = expectResult(
        await exploreWith(undefined, "q", planted, null, null, { PATH: `.::bin:${real.dir}` }),
      );
      assert.equal(result.text, "the real one\n");
      assert.equal(result.details.executable, real.file);
    } finally {
      process.chdir(cwd);
    }
    assert.equal(fs.existsSync(ran) ? fs.readFileSync(ran, "utf8") : "", "", "a planted codegraph ran");
    await assertNothingLeft();
  });

  test("a codegraph planted in <workspace>/node_modules/.bin on PATH is never run unless the user opts in", async () => {
    const planted = makeWorkspace();
    const binDir = path.join(planted, "node_modules", ".bin");
    fs.mkdirSync(binDir, { recursive: true });
    const ran = path.join(tempDir(), "ran");
    writeFake(path.join(binDir, "codegraph"), {
      steps: [
        ["appendArgv0", ran],
        ["stdout", "planted answer\n"],
      ],
    });
    await withEnv({ PI_CODEGRAPH_BIN: undefined, PATH: binDir }, async () => {
      const d = await diagnose(planted);
      assert.equal(d.problemCode, "CODEGRAPH_NOT_FOUND");
      const err = await explore("q", planted).catch((e) => e);
      assertStableError(err, "CODEGRAPH_NOT_FOUND");
      assert.match(err.message, /inside the workspace/);
      assert.match(err.message, /PI_CODEGRAPH_ALLOW_WORKSPACE_BIN=1/);
    });
    assert.equal(fs.existsSync(ran), false, "neither diagnose nor explore ran it");
    await withEnv({ PI_CODEGRAPH_BIN: undefined, PATH: binDir, PI_CODEGRAPH_ALLOW_WORKSPACE_BIN: "1" }, async () => {
      const r = await explore("q", planted);
      assert.equal(r.text, "planted answer\n");
      assert.equal(r.details.executableInWorkspace, true);
      assert.equal((await diagnose(planted)).executableInWorkspace, true);
    });
  });

  test("CodeGraph's npm launcher is skipped for its platform bundle; the version comes from package.json", async () => {
    // node_modules/.bin/codegraph -> ../@colbymchenry/codegraph/npm-shim.js, as npm links it.
    const prefix = tempDir("pi-codegraph-faults-npm-");
    const modules = path.join(prefix, "node_modules");
    const pkg = path.join(modules, "@colbymchenry", "codegraph");
    fs.mkdirSync(pkg, { recursive: true });
    const manifest = { name: "@colbymchenry/codegraph", version: "1.6.1", bin: { codegraph: "npm-shim.js" } };
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify(manifest));
    writeFake(path.join(pkg, "npm-shim.js"), { steps: [["stdout", "from the shim\n"]] });
    fs.mkdirSync(path.join(modules, ".bin"));
    const link = path.join(modules, ".bin", "codegraph");
    fs.symlinkSync("../@colbymchenry/codegraph/npm-shim.js", link);
    // Without a bundle the shim runs, and its package.json tells the version.
    const shim = expectResult(await exploreWith(link, "q", suite.ws));
    assert.equal(shim.text, "from the shim\n");
    assert.equal(shim.details.cliVersion, "1.6.1");
    assert.equal(shim.details.cliVersionSource, "package.json");

    const bundleName = `codegraph-${process.platform}-${process.arch}`;
    const bundle = path.join(modules, "@colbymchenry", bundleName);
    fs.mkdirSync(path.join(bundle, "bin"), { recursive: true });
    const version = { name: `@colbymchenry/${bundleName}`, version: "1.6.1-bundle" };
    fs.writeFileSync(path.join(bundle, "package.json"), JSON.stringify(version));
    const launcher = writeFake(path.join(bundle, "bin", "codegraph"), { steps: [["stdout", "from the bundle\n"]] });
    // A fresh link path: versions are cached per executable that runs.
    const link2 = path.join(modules, ".bin", "codegraph2");
    fs.symlinkSync("../@colbymchenry/codegraph/npm-shim.js", link2);
    const r = expectResult(await exploreWith(link2, "q", suite.ws));
    assert.equal(r.text, "from the bundle\n");
    assert.equal(r.details.executable, launcher.file);
    assert.equal(r.details.discoveredExecutable, link2);
    assert.equal(r.details.cliVersion, "1.6.1-bundle");
    assert.equal(r.details.cliVersionSource, "package.json");
    await assertNothingLeft();
  });

  test("CodeGraph's package.json is a FIFO or a device: never read, the launcher runs as found", async () => {
    for (const make of [
      (p) => execFileSync("mkfifo", [p], { env: { PATH: saved.PATH } }),
      (p) => fs.symlinkSync("/dev/zero", p),
    ]) {
      const pkg = path.join(tempDir("pi-codegraph-faults-npm-"), "node_modules", "@colbymchenry", "codegraph");
      fs.mkdirSync(pkg, { recursive: true });
      make(path.join(pkg, "package.json"));
      // A /bin/sh stand-in: Node itself would block on the FIFO (it reads the nearest
      // package.json of a script it runs); only pi-codegraph's own reads are under test.
      const shim = path.join(pkg, "npm-shim.js");
      fs.writeFileSync(shim, "#!/bin/sh\necho 'from the shim'\n", { mode: 0o755 });
      const outcome = await exploreWith(shim, "q", suite.ws, null, { timeoutMs: 20000 });
      assert.equal(expectResult(outcome).text, "from the shim\n");
      // Well before the 20 s deadline a blocked read would reach.
      assert.ok(outcome.ms < 5000, `took ${outcome.ms} ms`);
      assert.notEqual(outcome.value.details.cliVersionSource, "package.json");
    }
    await assertNothingLeft();
  });
});
