// Version diagnostics (lib/contract/versions.js): the feature map against the installed CodeGraph's own
// `--help`, supports() and versionNotice() on every kind of version text, and the notice where a
// user and the model see it (an answer's details, diagnose(), /codegraph, doctor), both runners.
// Never a refusal: every call here still answers.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { implementations } from "../helpers/impl.mjs";
import { doctorRows, fakeCli, makeWorkspace, root, tempDir, withEnv } from "../helpers/index.mjs";
import { hostWith, recordingUi } from "../helpers/pi-host.mjs";

const require = createRequire(import.meta.url);
const { CLI_FEATURES, TESTED_VERSIONS, versionParts } = require("../../lib/contract/versions.js");
const { supports, versionNotice } = require("../../lib/words/versions.js");
const { QUIET_DEFAULTS } = require("../../lib/contract/limits.js");

const cliBin = path.join(root, "node_modules", ".bin");
const installed = path.join(cliBin, "codegraph");
const noCli = !fs.existsSync(installed) && "the pinned CodeGraph CLI is not installed (npm install)";

/** `a` older than `b` (both "X.Y.Z"). */
const older = (a, b) => {
  const [x, y] = [versionParts(a), versionParts(b)];
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch;
};

/** `codegraph <command> --help` as pi-codegraph starts the CLI: its quiet defaults, a HOME of its own. */
function helpOf(command) {
  return execFileSync(installed, [command, "--help"], {
    encoding: "utf8",
    env: {
      PATH: [cliBin, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
      HOME: tempDir("pi-codegraph-home-"),
      ...QUIET_DEFAULTS,
    },
  });
}

/**
 * Whether `help` (one command's `--help`) shows `feature`: its usage line names the command, and
 * an option is listed under Options as `--name`. `node --file` also needs the name to be optional
 * (`node [name]`), which is why its floor is 1.1.6 and not 1.1.0.
 */
function helpShows(help, feature) {
  const [command, option] = feature.split(" ");
  const usage = help.split("\n")[0];
  if (!usage.startsWith(`Usage: codegraph ${command} `)) return false;
  if (feature === "node --file" && !usage.endsWith("[name]")) return false;
  if (!option) return true;
  const options = help.slice(help.indexOf("\nOptions:"));
  return new RegExp(`^\\s+(?:-\\w, )?${option}(?:[ ,]|$)`, "m").test(options);
}

describe("the feature map against the installed CLI", { skip: noCli }, () => {
  const version = require("@colbymchenry/codegraph/package.json").version;
  const helps = new Map();
  const help = (command) => {
    if (!helps.has(command)) helps.set(command, helpOf(command));
    return helps.get(command);
  };

  test("the installed CLI is the pinned one, inside the tested range", () => {
    assert.equal(version, require("../../package.json").devDependencies["@colbymchenry/codegraph"]);
    assert.equal(versionNotice(version), null);
  });

  test("every feature the map gives the installed version is in that command's --help", () => {
    const given = Object.keys(CLI_FEATURES).filter((f) => older(CLI_FEATURES[f], version) <= 0);
    assert.ok(given.length >= 26, `the map gives ${given.length} features to ${version}`);
    for (const feature of given) {
      assert.ok(supports(version, feature).ok, feature);
      assert.ok(helpShows(help(feature.split(" ")[0]), feature), `${feature}: not in --help of CodeGraph ${version}`);
    }
  });

  test("a feature the map holds back from the installed version is not in its --help", () => {
    // None today (1.6.1 has every feature in the map); this keeps the map honest when the pin moves.
    const held = Object.keys(CLI_FEATURES).filter((f) => older(CLI_FEATURES[f], version) > 0);
    for (const feature of held) {
      assert.equal(supports(version, feature).ok, false, feature);
      assert.equal(helpShows(help(feature.split(" ")[0]), feature), false, `${feature} is in --help of ${version}`);
    }
  });

  test("the check sees what is missing: an option or a command the CLI lacks is not shown", () => {
    assert.equal(helpShows(help("node"), "node --depth"), false);
    assert.equal(helpShows(help("callers"), "callers --depth"), false);
    assert.equal(helpShows(help("query"), "query --file"), false);
    // An unknown command prints the program's help, not the command's.
    assert.equal(helpShows(helpOf("nosuchcommand"), "nosuchcommand"), false);
  });
});

describe("supports() and versionNotice()", () => {
  test("the map: every feature is `<command>` or `<command> --option`, every floor a plain version", () => {
    for (const [feature, since] of Object.entries(CLI_FEATURES)) {
      assert.match(feature, /^[a-z]+(?: --[a-z-]+)?$/, feature);
      assert.match(since, /^\d+\.\d+\.\d+$/, `${feature}: ${since}`);
    }
    assert.equal(TESTED_VERSIONS, "1.6.1", "the version the tests run: the pinned devDependency");
  });

  test("a version below a feature's floor does not have it, and says why; at or above it does", () => {
    assert.deepEqual(supports("1.6.0", "callers --file"), {
      ok: false,
      why: "CodeGraph 1.6.0 has no `callers --file` (added in 1.6.1); update CodeGraph",
    });
    assert.deepEqual(supports("1.6.1", "callers --file"), { ok: true });
    assert.deepEqual(supports("1.7.0", "callers --file"), { ok: true });
    assert.equal(supports("1.4.1", "init --yes").ok, false);
    assert.equal(supports("1.6.0", "init --yes").ok, true);
    assert.match(supports("1.1.0", "node --file").why, /`node --file` \(added in 1\.1\.6\)/);
    assert.equal(supports("0.9.9", "explore").ok, false);
    assert.equal(supports("0.9.2", "callers").ok, false);
    assert.equal(supports("0.9.5", "impact --depth").ok, true);
  });

  test("a prerelease counts as its release; a leading v and surrounding space are read", () => {
    assert.equal(supports("1.0.0-faults", "explore").ok, false);
    assert.match(supports("1.0.0-faults", "explore").why, /^CodeGraph 1\.0\.0-faults has no `explore`/);
    assert.equal(supports("1.6.1-beta.2", "impact --file").ok, true);
    assert.equal(supports("v1.6.0", "impact --file").ok, false);
    assert.equal(supports(" 1.6.1\n", "impact --file").ok, true);
  });

  test("never gate on what cannot be read: no version, garbage, an unknown feature", () => {
    for (const v of [
      null,
      undefined,
      "",
      "garbage",
      "1.6",
      "1.x.0",
      "latest",
      161,
      {},
      "1.6.1 extra",
      "99999999999.0.0",
    ]) {
      assert.deepEqual(supports(v, "callers --file"), { ok: true }, JSON.stringify(v));
      assert.equal(versionNotice(v), null, JSON.stringify(v));
    }
    assert.deepEqual(supports("0.8.0", "no-such-command"), { ok: true });
  });

  test("the tested version: no notice; another of its minor line is said untested (1.6.2 exists outside npm)", () => {
    for (const v of ["1.6.1", "v1.6.1", "1.6.1-rc.1"]) assert.equal(versionNotice(v), null, v);
    assert.equal(
      versionNotice("1.6.2"),
      "CodeGraph 1.6.2: pi-codegraph is tested with 1.6.1; newer versions are used as they are, untested.",
    );
    assert.match(
      versionNotice("1.6.0"),
      /^CodeGraph 1\.6\.0 is older than the tested 1\.6\.1 and has no `callers --file`/,
    );
  });

  test("newer: one sentence, used as it is, untested", () => {
    assert.equal(
      versionNotice("9.9.9-fake"),
      "CodeGraph 9.9.9-fake: pi-codegraph is tested with 1.6.1; newer versions are used as they are, untested.",
    );
    assert.match(versionNotice("1.7.0"), /^CodeGraph 1\.7\.0: pi-codegraph is tested with 1\.6\.1;/);
    assert.match(versionNotice("2.0.0"), /newer versions are used as they are, untested\.$/);
  });

  test("older: one sentence naming what it lacks, a missing command once (not its options)", () => {
    assert.equal(
      versionNotice("1.4.1"),
      "CodeGraph 1.4.1 is older than the tested 1.6.1 and has no `init --yes`, `callers --file`, `callees --file`, `impact --file`; update CodeGraph to use them.",
    );
    assert.equal(
      versionNotice("1.0.0-faults"),
      "CodeGraph 1.0.0-faults is older than the tested 1.6.1 and has no `explore`, `node`, `init --yes`, `callers --file`, `callees --file`, `impact --file`; update CodeGraph to use them.",
    );
    const oldest = versionNotice("0.8.0");
    assert.match(oldest, /`callers`, `callees`, `impact`, `explore`, `node`, `init --yes`;/);
    assert.doesNotMatch(oldest, /--file|--depth|--limit/);
    assert.equal(oldest.split(". ").length, 1, "one sentence");
  });
});

describe("the notice where it is shown", () => {
  for (const impl of implementations) {
    describe(impl.name, () => {
      const pkg = impl.module;
      let ws;
      const fakes = {};
      before(() => {
        ws = makeWorkspace();
        for (const v of ["1.6.1", "1.4.1", "9.9.9-fake"])
          fakes[v] = fakeCli([["stdout", "fine\n"]], { version: v }).file;
      });
      /** diagnose() first (it waits for the version), then explore(): the answer knows the version. */
      const withFake = (version, fn) => withEnv({ PI_CODEGRAPH_BIN: fakes[version] }, fn);

      for (const version of ["1.4.1", "9.9.9-fake"]) {
        test(`CodeGraph ${version}: diagnose() and every answer's details carry the notice; the call still answers`, async () => {
          await withFake(version, async () => {
            const d = await pkg.diagnose(ws);
            assert.equal(d.cliVersion, version);
            assert.equal(d.versionNotice, versionNotice(version));
            assert.ok(d.ready, "never a refusal");
            const answer = await pkg.explore("q", ws);
            assert.equal(answer.text, "fine\n");
            assert.equal(answer.details.cliVersion, version);
            assert.equal(answer.details.cliVersionNotice, versionNotice(version));
          });
        });
      }

      test("CodeGraph 1.4.1 failing: the error's details carry the notice too (what an old CLI lacks may be why)", async () => {
        const failing = fakeCli(
          [
            ["stderr", "error: unknown option\n"],
            ["exit", 1],
          ],
          { version: "1.4.1" },
        ).file;
        await withEnv({ PI_CODEGRAPH_BIN: failing }, async () => {
          assert.equal((await pkg.diagnose(ws)).cliVersion, "1.4.1");
          const err = await pkg.explore("q", ws).then(
            () => assert.fail("the fake fails"),
            (e) => e,
          );
          assert.equal(err.code, "CODEGRAPH_EXIT");
          assert.equal(err.details.cliVersion, "1.4.1");
          assert.equal(err.details.cliVersionNotice, versionNotice("1.4.1"));
        });
      });

      test("CodeGraph 1.6.1 (tested): no notice anywhere", async () => {
        await withFake("1.6.1", async () => {
          const d = await pkg.diagnose(ws);
          assert.equal(d.cliVersion, "1.6.1");
          assert.equal("versionNotice" in d, false);
          const answer = await pkg.explore("q", ws);
          assert.equal(answer.details.cliVersion, "1.6.1");
          assert.equal("cliVersionNotice" in answer.details, false);
        });
      });

      test("/codegraph shows one version line outside the range and none inside", async () => {
        const report = async (version) =>
          withFake(version, async () => {
            const host = await hostWith(pkg, "versions");
            const ui = recordingUi();
            const ctx = { cwd: ws, hasUI: true, ui };
            await host.startSession(ctx);
            ui.notes.length = 0;
            await host.commands.get("codegraph").handler("doctor", ctx);
            return ui.notes[0].message.split("\n").filter((line) => line.startsWith("version: "));
          });
        assert.deepEqual(await report("9.9.9-fake"), [`version: ${versionNotice("9.9.9-fake")}`]);
        assert.deepEqual(await report("1.4.1"), [`version: ${versionNotice("1.4.1")}`]);
        assert.deepEqual(await report("1.6.1"), []);
      });
    });
  }
});

describe("pi-codegraph doctor", () => {
  const doctor = (version) => {
    const ws = makeWorkspace();
    const file = fakeCli([["stdout", "fine\n"]], { version }).file;
    const env = { ...process.env, PI_CODEGRAPH_BIN: file, PATH: path.dirname(file) };
    const r = spawnSync(process.execPath, [path.join(root, "bin", "pi-codegraph.js"), "doctor", ws], {
      env,
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    return doctorRows(r.stdout).compat ?? null;
  };

  test("one compat row outside the tested range (exit 0: ready all the same), none inside", () => {
    assert.equal(doctor("1.4.1"), versionNotice("1.4.1"));
    assert.equal(doctor("9.9.9-fake"), versionNotice("9.9.9-fake"));
    assert.equal(doctor("1.6.1"), null);
  });
});
