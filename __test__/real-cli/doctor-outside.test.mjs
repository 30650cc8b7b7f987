// doctor's `outside` row with the real pinned CodeGraph 1.6.1, on both runners: its indexer
// follows symbolic links inside the workspace to files and directories outside it, and their code
// then reaches the model. doctor names each link that brings indexed files in from outside (a
// link to a file, to a directory, a link reached through another link), never one that stays
// inside, and its remediation (codegraph.json "exclude", then a rebuild) empties the row.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, describe, test } from "node:test";
import { root, doctorRows as rows, tempDir } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const { outsideFiles } = require("../../lib/api/outside-files.js");
const cli = path.join(root, "bin", "pi-codegraph.js");
const realBin = path.join(root, "node_modules", ".bin");
const cliMissing = fs.existsSync(path.join(realBin, "codegraph")) ? false : "the pinned CodeGraph CLI is not installed";
// CodeGraph's launcher calls dirname/readlink through PATH.
const PATH = [realBin, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);
const symlinks = process.platform === "win32" ? "symbolic links need privileges on Windows" : false;

/**
 * A project whose `src/` holds its own file, a link to a file outside, a link to a directory
 * outside, a link to that link (inside, leading out) and a link to its own `lib/` (inside).
 */
function linkedProject() {
  const scratch = tempDir("pi-codegraph-outside-");
  const ws = path.join(scratch, "ws");
  const outside = path.join(scratch, "other-project");
  fs.mkdirSync(path.join(ws, "src"), { recursive: true });
  fs.mkdirSync(path.join(ws, "lib"));
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(ws, "package.json"), '{"name":"ws"}\n');
  fs.writeFileSync(path.join(ws, "src", "app.ts"), "export function app() { return 1; }\n");
  fs.writeFileSync(path.join(ws, "lib", "util.ts"), "export function util() { return 2; }\n");
  fs.writeFileSync(path.join(outside, "keys.ts"), 'export const SIGNING_KEY = "not-yours";\n');
  fs.writeFileSync(path.join(outside, "more.ts"), "export function more() { return 3; }\n");
  fs.symlinkSync(path.join(outside, "keys.ts"), path.join(ws, "src", "keys.ts"));
  fs.symlinkSync("../../other-project", path.join(ws, "src", "vendor"));
  fs.symlinkSync("vendor", path.join(ws, "src", "again"));
  fs.symlinkSync("../lib", path.join(ws, "src", "alias"));
  return { ws, outside };
}

const codegraph = (args, cwd) =>
  execFileSync(path.join(realBin, "codegraph"), args, { cwd, env: { ...process.env, PATH, DO_NOT_TRACK: "1" } });

function doctor(ws, runner) {
  const env = { ...process.env, PATH, DO_NOT_TRACK: "1", PI_CODEGRAPH_RUNNER: runner };
  for (const k of ["PI_CODEGRAPH_BIN", "PI_CODEGRAPH_TOOLS"]) delete env[k];
  env.PI_CODING_AGENT_DIR = tempDir("pi-codegraph-agent-");
  const r = spawnSync(process.execPath, [cli, "doctor", ws], { env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr || r.stdout);
  return rows(r.stdout);
}

describe("doctor: indexed files from outside the workspace", { skip: cliMissing || symlinks, timeout: 120000 }, () => {
  let project;
  before(() => {
    project = linkedProject();
    codegraph(["init", "--yes"], project.ws);
  });

  for (const runner of ["native", "node"]) {
    test(`${runner}: names each link that leads out, with its files, and how to keep them out`, () => {
      const row = doctor(project.ws, runner).outside;
      assert.ok(row, "doctor has an outside row");
      assert.match(row, /^3 files in the index come from outside the workspace through symbolic links/);
      // CodeGraph indexes a directory reached by two links once, under the first it walks: two
      // files behind that link, one behind the file link; the link that stays inside is not named.
      const dirLink = new RegExp(`src/(again|vendor) -> ${fs.realpathSync(project.outside)} \\(2 files\\)`);
      assert.match(row, dirLink);
      assert.ok(row.includes(`src/keys.ts -> ${fs.realpathSync(path.join(project.outside, "keys.ts"))} (1 file)`), row);
      assert.doesNotMatch(row, /alias/);
      assert.match(row, /"exclude" in codegraph\.json/);
    });
  }

  test("the remediation works: excluded and rebuilt, the row is gone", () => {
    const { ws } = linkedProject();
    fs.writeFileSync(path.join(ws, "codegraph.json"), '{"exclude":["src/vendor","src/again","src/keys.ts"]}\n');
    codegraph(["init", "--yes"], ws);
    assert.equal(doctor(ws, "native").outside, undefined);
  });
});

test("the check is bounded: it stops at its path bound and says how far it got", async () => {
  const { ws } = linkedProject();
  const paths = ["src/app.ts", "src/vendor/keys.ts", "src/vendor/more.ts"];
  const all = await outsideFiles(ws, paths);
  assert.deepEqual([all.files, all.checked, all.cut], [2, 3, null]);
  const cut = await outsideFiles(ws, paths, { maxPaths: 2, deadlineMs: 3000 });
  assert.deepEqual([cut.files, cut.checked, cut.total, cut.cut], [1, 2, 3, "paths"]);
  // A path written with `..` is not one inside the workspace: never resolved.
  assert.equal((await outsideFiles(ws, ["../other-project/keys.ts"])).files, 0);
});
