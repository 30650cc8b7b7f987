// Full-output files belong to their host while it lives, whoever else shares the directory: a
// host in another pid namespace (a container, a bwrap sandbox sharing /tmp), which cannot see
// the owner's pid, never sweeps its files; a second live host of the same namespace neither; a
// host of our namespace that is gone is still swept.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fakeCli, root, tempDir } from "../helpers/index.mjs";
import { runNode } from "../helpers/processes.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();
const HOST = path.join(root, "__test__", "helpers", "spill-host.cjs");
const UNSHARE = ["/usr/bin/unshare", "/bin/unshare"].find((p) => fs.existsSync(p));
const canUnshare =
  process.getuid?.() === 0 &&
  UNSHARE &&
  spawnSync(UNSHARE, ["--pid", "--fork", "--mount-proc", process.execPath, "-e", "0"]).status === 0;

/** Starts a host that keeps its full-output file while it lives; resolves `{ file, end() }`. */
function liveHost(args, env) {
  const child = spawn(process.execPath, [HOST, ...args, "hold"], { env, stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (!out.includes("\n")) return;
      const record = JSON.parse(out.split("\n")[0]);
      if (!record.file) return reject(new Error(out));
      resolve({
        file: record.file,
        end: () => new Promise((done) => child.once("exit", done).stdin.end()),
      });
    });
  });
}

eachRunner("full-output files of other hosts", ({ entry, toolEnv }) => {
  const runnerEntry = JSON.parse(entry);
  const setup = () => {
    const fake = fakeCli([["stdout", "x\n".repeat(2500)]]);
    const env = { ...process.env, ...toolEnv, TMPDIR: tempDir("pi-codegraph-shared-tmp-") };
    return { args: [runnerEntry, suite.ws, fake.file], env };
  };

  test("a host in another pid namespace keeps the first host's live file", {
    skip: !canUnshare && "needs root and unshare",
  }, async () => {
    const { args, env } = setup();
    const first = await liveHost(args, env);
    try {
      const run = await runNode(["--pid", "--fork", "--mount-proc", process.execPath, HOST, ...args], {
        command: UNSHARE,
        env,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.ok(JSON.parse(run.stdout).file, run.stdout);
      assert.ok(fs.existsSync(first.file), "the first host's file, whose path its model was given, is still there");
    } finally {
      await first.end();
    }
  });

  test("a second live host of the same namespace keeps it too; a gone host's file is swept", async () => {
    const { args, env } = setup();
    const first = await liveHost(args, env);
    const dir = path.dirname(first.file);
    // A file left by a host of this namespace that is gone: the first file's name, another pid.
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
    const left = path.join(dir, path.basename(first.file).replace(/^explore-\d+-/, `explore-${dead}-`));
    fs.writeFileSync(left, "left behind", { mode: 0o600 });
    try {
      const run = await runNode([HOST, ...args], { env });
      assert.equal(run.code, 0, run.stderr);
      assert.ok(fs.existsSync(first.file), "a live host's file is kept");
      assert.equal(fs.existsSync(left), false, "a gone host's file is swept");
    } finally {
      await first.end();
    }
  });
});
