// The files the glue keeps in Pi's agent directory (lib/pi/tools/choice.js: the focused tools chosen;
// lib/pi/roots/roots.js: the roots added; one per project) are read only when they are regular files, and
// bounded (lib/pi/settings-file.js). A FIFO there used to hang Pi at session start for good (a
// blocking read on the host's only thread); a device, a socket, a directory, a huge file, or a
// regular file swapped for a FIFO between the check and the open is now ignored, the defaults
// apply, and `/codegraph`, `/codegraph tools` and `/codegraph roots` say which file and why.
// Through the Pi host harness in a child process (the native runner, index.js) and real Pi's rpc
// mode, each under a hard timeout, so a regression fails instead of hanging the suite.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { after, test } from "node:test";
import { DEFAULT_ACTIVE, fakeBinDir, makeWorkspace, root, tempDir } from "../helpers/index.mjs";
import { piEnv, piMissing, piScratch, startPiRpc } from "../helpers/pi-harness.mjs";

const require = createRequire(import.meta.url);
const { savedFile } = require("../../lib/pi/tools/choice.js");

const HOST = path.join(root, "__test__", "helpers", "settings-host.mjs");
const mkfifo = (file) => execFileSync("mkfifo", [file]);
const servers = [];
after(() => {
  for (const s of servers) s.close();
});

/** What each case plants at a settings file, and how `/codegraph` names it. */
const PLANTS = {
  fifo: { plant: mkfifo, why: /not a regular file \(a FIFO\)/ },
  directory: { plant: (f) => fs.mkdirSync(f), why: /not a regular file \(a directory\)/ },
  socket: {
    plant: (f) =>
      new Promise((resolve) => {
        const server = net.createServer().listen(f, resolve);
        servers.push(server);
      }),
    why: /not a regular file \(a socket\)/,
  },
  "symlink to /dev/zero": { plant: (f) => fs.symlinkSync("/dev/zero", f), why: /not a regular file \(a device\)/ },
  huge: {
    plant: (f) => {
      fs.writeFileSync(f, '{"tools":["codegraph_node"],"roots":[]}');
      fs.truncateSync(f, 64 * 1024 * 1024); // sparse: 64 MiB that cost nothing
    },
    why: /larger than 64 KiB; nothing was used/,
  },
  "swapped for a FIFO after the check": {
    plant: (f) => fs.writeFileSync(f, '{"tools":["codegraph_node"],"roots":[]}'),
    swap: "fifo",
    why: /not a regular file \(a FIFO\)/,
  },
  "grown past the bound after the check": {
    plant: (f) => fs.writeFileSync(f, '{"tools":["codegraph_node"],"roots":[]}'),
    swap: "huge",
    why: /larger than 64 KiB; nothing was used/,
  },
};

/** Runs the host child over `cases`, killed after `timeoutMs`: `{ results, stderr, timedOut }`. */
function runHost(cases, env, timeoutMs = 30000) {
  const r = spawnSync(process.execPath, [HOST, JSON.stringify({ cases })], {
    env,
    encoding: "utf8",
    timeout: timeoutMs,
    killSignal: "SIGKILL",
  });
  const lines = r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return {
    results: lines.filter((l) => !l.starting),
    lines,
    stderr: r.stderr,
    timedOut: r.error?.code === "ETIMEDOUT",
  };
}

test("a saved tools choice or roots file that is no regular file, or too large: session start completes, the defaults apply, the three reports say why", async () => {
  const agentDir = tempDir("pi-codegraph-agent-");
  const cases = [];
  for (const [name, { plant, swap }] of Object.entries(PLANTS)) {
    const ws = makeWorkspace();
    const files = [savedFile(agentDir, ws, "tools"), savedFile(agentDir, ws, "roots")];
    for (const f of files) fs.mkdirSync(path.dirname(f), { recursive: true });
    for (const f of files) await plant(f);
    cases.push({ name, ws, files, ...(swap ? { swap: files, swapTo: swap } : {}) });
  }
  // A control: a good saved choice is still read.
  const good = makeWorkspace();
  fs.mkdirSync(path.dirname(savedFile(agentDir, good, "tools")), { recursive: true });
  fs.writeFileSync(savedFile(agentDir, good, "tools"), JSON.stringify({ tools: ["codegraph_node"] }));
  cases.push({ name: "regular", ws: good, files: [] });

  const env = {
    ...process.env,
    PATH: [fakeBinDir(), path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
    PI_CODING_AGENT_DIR: agentDir,
  };
  delete env.PI_CODEGRAPH_TOOLS;
  const run = runHost(cases, env);
  const stuck = run.lines.at(-1);
  assert.equal(run.timedOut, false, `the host hung at session start of case "${stuck?.name}"; stderr:\n${run.stderr}`);
  assert.deepEqual(
    run.results.map((r) => r.name),
    cases.map((c) => c.name),
    run.stderr,
  );
  for (const r of run.results) {
    const c = cases.find((x) => x.name === r.name);
    if (r.name === "regular") {
      assert.deepEqual(r.active, ["codegraph_explore", "codegraph_node"], "a regular file is still read");
      assert.doesNotMatch(r.status, /ignored/);
      continue;
    }
    const { why } = PLANTS[r.name];
    const [toolsFile, rootsFile] = c.files;
    assert.deepEqual(r.active, DEFAULT_ACTIVE, `${r.name}: the default (every tool) applies`);
    const toolsLine = r.status.split("\n").find((l) => l.startsWith("saved tools choice ignored: "));
    assert.ok(toolsLine?.includes(toolsFile), `${r.name}: /codegraph names the tools file:\n${r.status}`);
    assert.match(toolsLine, why);
    const rootsLine = r.status.split("\n").find((l) => l.startsWith("saved projects ignored: "));
    assert.ok(rootsLine?.includes(rootsFile), `${r.name}: /codegraph names the roots file:\n${r.status}`);
    assert.match(rootsLine, why);
    assert.match(r.tools, /The saved choice could not be read \(/, `${r.name}: /codegraph tools says so`);
    assert.match(r.tools, why);
    assert.match(r.roots, /saved projects ignored: /, `${r.name}: /codegraph roots says so`);
    assert.match(r.roots, why);
  }
});

test("real Pi (rpc mode) starts, answers /codegraph tools and exits with a FIFO as the saved tools choice", {
  skip: piMissing,
  timeout: 60000,
}, async () => {
  const { scratch, home, agentDir } = piScratch("pi-codegraph-settings-pi-");
  const ws = makeWorkspace();
  const fifo = savedFile(agentDir, ws, "tools");
  fs.mkdirSync(path.dirname(fifo), { recursive: true });
  mkfifo(fifo);
  const env = piEnv({
    agentDir,
    home,
    pathDirs: [fakeBinDir(), path.dirname(process.execPath), "/usr/bin", "/bin"],
    extra: { TMPDIR: scratch },
  });
  const rpc = startPiRpc(
    [
      "--offline",
      "--no-session",
      "--no-context-files",
      "--no-extensions",
      "-e",
      path.join(root, "extensions", "index.js"),
    ],
    { cwd: ws, env },
  );
  try {
    rpc.send({ id: "t1", type: "prompt", message: "/codegraph tools" });
    const said = await rpc.waitForEvent(
      (e) => e.type === "extension_ui_request" && e.method === "notify" && /codegraph_explore/.test(e.message),
      { timeoutMs: 30000, what: `/codegraph tools' answer (stderr: ${rpc.stderr.slice(-2000)})` },
    );
    assert.ok(said.message.includes(fifo), said.message);
    assert.match(said.message, /The saved choice could not be read \(.*not a regular file \(a FIFO\)/);
    const exit = await rpc.end({ timeoutMs: 15000 });
    assert.equal(exit.code, 0, `pi rpc exit; stderr:\n${rpc.stderr}`);
  } finally {
    rpc.child.kill("SIGKILL");
  }
});
