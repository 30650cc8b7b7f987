// The `pi-codegraph` command for people: doctor and explore, run as a user runs them.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { before, test } from "node:test";
import {
  fakeBinDir,
  linkWasmRuntime,
  makeWorkspace,
  processesDie,
  readLog,
  root,
  doctorRows as rows,
  tempDir,
  waitFor,
  withEnv,
} from "../helpers/index.mjs";
import { hostWith, recordingUi } from "../helpers/pi-host.mjs";

const cli = path.join(root, "bin", "pi-codegraph.js");
const pkg = createRequire(import.meta.url)("../../package.json");
let bin;
// Pi's agent directory, where /codegraph tools saves its choice: never the user's own in a test.
let agentDir;
before(() => {
  bin = fakeBinDir();
  agentDir = tempDir("pi-codegraph-agent-");
});

function env(vars = {}, PATH = bin) {
  const e = { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_CODEGRAPH_TOOLS: undefined, PATH, ...vars };
  for (const [k, v] of Object.entries(e)) if (v === undefined) delete e[k];
  return e;
}

function run(args, cwd, PATH = bin, { vars, script = cli } = {}) {
  const r = spawnSync(process.execPath, [script, ...args], { cwd, env: env(vars, PATH), encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A copy of the package's JS (no .node file, no node_modules, no binding.js): the addon cannot load. */
function packageCopy() {
  const dir = tempDir("pi-codegraph-copy-");
  for (const f of ["index.js", "index.d.ts", "extensions", "package.json", "lib", "bin", "wasm"]) {
    fs.cpSync(path.join(root, f), path.join(dir, f), { recursive: true });
  }
  linkWasmRuntime(dir);
  return dir;
}

/** Runs the CLI asynchronously; `onSpawn(child)` may act on it while it runs. */
function runAsync(args, cwd, vars, onSpawn = () => {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env: env(vars), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    onSpawn(child);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

test("doctor in an indexed workspace: ready, exit 0", () => {
  const ws = makeWorkspace();
  const r = run(["doctor"], ws);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^status\s+ready, the index is up to date$/m);
  assert.match(r.stdout, new RegExp(`^codegraph\\s+${path.join(bin, "codegraph")}$`, "m"));
  assert.match(r.stdout, /^version\s+9\.9\.9-fake \(from --version\)$/m);
  assert.match(r.stdout, new RegExp(`^index\\s+${ws}/\\.codegraph$`, "m"));
  assert.match(r.stdout, /^runtime\s+Node\.js v\d+/m);
  // The tested Pi range and the Node.js floor it implies, from package.json (dev pins, engines).
  const lowest = /@([\d.]+)$/.exec(pkg.devDependencies["pi-lowest"])[1];
  const latest = pkg.devDependencies["@earendil-works/pi-coding-agent"];
  assert.ok(
    rows(r.stdout).pi.startsWith(
      `@earendil-works/pi-coding-agent ${lowest} to ${latest} (tested; they need Node.js ${pkg.engines.node})`,
    ),
  );
  assert.match(r.stdout, /^addon\s+\/.*pi-codegraph\.[\w-]+\.node$/m);
  assert.equal(rows(r.stdout).extension, `pi-codegraph ${pkg.version} at ${root}`);
  assert.doesNotMatch(r.stdout, /^fix/m);
});

test("doctor shows the index size and the parallel limit in force, and an ignored PI_CODEGRAPH_MAX_PARALLEL", () => {
  const ws = makeWorkspace();
  const bytes = fs.statSync(path.join(ws, ".codegraph", "codegraph.db")).size;
  const machine = rows(run(["doctor"], ws, bin, { vars: { PI_CODEGRAPH_MAX_PARALLEL: undefined } }).stdout);
  assert.equal(machine.size, `${(bytes / 1024 / 1024).toFixed(1)} MiB (the index database)`);
  assert.match(
    machine.parallel,
    /^\d+ CodeGraph quer(y|ies) at once on this index \(from the machine: \d+ cores?, [\d.]+ GiB memory, about 200\.0 MiB per query\)$/,
  );
  const set = rows(run(["doctor"], ws, bin, { vars: { PI_CODEGRAPH_MAX_PARALLEL: "3" } }).stdout);
  assert.equal(set.parallel, "3 CodeGraph queries at once on this index (PI_CODEGRAPH_MAX_PARALLEL)");
  const bad = rows(run(["doctor"], ws, bin, { vars: { PI_CODEGRAPH_MAX_PARALLEL: "lots" } }).stdout);
  assert.match(bad.parallel, /PI_CODEGRAPH_MAX_PARALLEL="lots" ignored: not a whole number from 1 to 64\)$/);
});

/** `/codegraph tools <args>` typed in a Pi session in `cwd` (the package over its default runner), with Pi's agent directory `dir`. */
async function chooseInPi(cwd, args, dir = agentDir) {
  const pkgModule = createRequire(import.meta.url)("../../index.js");
  await withEnv({ PI_CODING_AGENT_DIR: dir, PI_CODEGRAPH_TOOLS: undefined, PATH: bin }, async () => {
    const host = await hostWith(pkgModule);
    const ctx = { cwd, hasUI: true, ui: recordingUi() };
    await host.startSession(ctx);
    await host.commands.get("codegraph").handler(`tools ${args}`, ctx);
    assert.match(ctx.ui.notes.at(-1).message, /^CodeGraph tools on from the next request: .*\nSaved for this project/);
  });
}

test("doctor's tools row: the focused tools on for this project in Pi, and where that choice comes from", async () => {
  const ws = makeWorkspace();
  const tools = (vars, dir = ws) => rows(run(["doctor"], dir, bin, { vars }).stdout).tools;
  assert.equal(
    tools({}),
    "codegraph_explore, codegraph_node, codegraph_relations, codegraph_search, codegraph_changes (the default; /codegraph tools in Pi turns them off)",
  );
  await chooseInPi(ws, "node search");
  const saved = tools({});
  const file = /: (\/\S+\.json)\)$/.exec(saved)?.[1];
  assert.match(
    saved,
    /^codegraph_explore, codegraph_node, codegraph_search \(saved for this project by \/codegraph tools: /,
  );
  assert.ok(file && fs.existsSync(file) && file.startsWith(agentDir), saved);
  // Another project has its own choice (none saved).
  assert.match(
    tools({}, makeWorkspace()),
    /^codegraph_explore, codegraph_node, codegraph_relations, codegraph_search, codegraph_changes \(the default/,
  );
  // PI_CODEGRAPH_TOOLS wins over the saved file; a value it cannot read is ignored and said.
  assert.equal(
    tools({ PI_CODEGRAPH_TOOLS: "all" }),
    "codegraph_explore, codegraph_node, codegraph_relations, codegraph_search, codegraph_changes (set by PI_CODEGRAPH_TOOLS)",
  );
  assert.equal(tools({ PI_CODEGRAPH_TOOLS: "none" }), "codegraph_explore only (set by PI_CODEGRAPH_TOOLS)");
  const ignored = tools({ PI_CODEGRAPH_TOOLS: "lots" });
  assert.ok(ignored.startsWith(saved), ignored);
  assert.match(ignored, /PI_CODEGRAPH_TOOLS="lots" ignored: not all, none, or tool names/);
  // A saved file that cannot be used: the default, and why.
  fs.writeFileSync(file, "{not json");
  const corrupt = tools({});
  assert.match(
    corrupt,
    /^codegraph_explore, codegraph_node, codegraph_relations, codegraph_search, codegraph_changes \(the default/,
  );
  assert.match(corrupt, /The saved choice could not be read \(.*not JSON\); the default applies\./);
});

test("doctor reads Pi's agent directory as Pi does: PI_CODING_AGENT_DIR with ~ for the home directory", async () => {
  const ws = makeWorkspace();
  const home = tempDir("pi-codegraph-home-");
  await chooseInPi(ws, "relations", path.join(home, "agent"));
  const tools = rows(run(["doctor"], ws, bin, { vars: { HOME: home, PI_CODING_AGENT_DIR: "~/agent" } }).stdout).tools;
  assert.match(tools, /^codegraph_explore, codegraph_relations \(saved for this project/);
  const unset = rows(run(["doctor"], ws, bin, { vars: { HOME: home, PI_CODING_AGENT_DIR: undefined } }).stdout).tools;
  assert.match(
    unset,
    /^codegraph_explore, codegraph_node, codegraph_relations, codegraph_search, codegraph_changes \(the default/,
    "~/.pi/agent under that home holds nothing",
  );
});

test("doctor DIR reports on DIR, resolved against the current directory; two DIRs are a usage error", () => {
  const ws = makeWorkspace();
  const elsewhere = tempDir();
  const r = run(["doctor", path.relative(elsewhere, ws)], elsewhere);
  assert.equal(r.code, 0, r.stdout);
  assert.equal(rows(r.stdout).workspace, ws);
  assert.equal(rows(r.stdout).index, path.join(ws, ".codegraph"));
  assert.equal(run(["doctor", "--", ws], elsewhere).code, 0);
  const two = run(["doctor", ws, elsewhere], elsewhere);
  assert.equal(two.code, 2);
  assert.match(two.stderr, /doctor \[DIR\]/);
  assert.equal(two.stdout, "");
});

test("doctor counts the files changed since the index from CodeGraph's own status, and says when it cannot", () => {
  const ws = makeWorkspace();
  const pending = JSON.stringify({
    pendingChanges: { added: 1, modified: 2, removed: 0 },
    index: { reindexRecommended: true },
  });
  const r = run(["doctor"], ws, bin, { vars: { FAKE_CG_STATUS: pending } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    rows(r.stdout).status,
    "ready, 3 files changed since the index (2 modified, 1 added; codegraph status); CodeGraph recommends a rebuild (/codegraph rebuild)",
  );
  const broken = run(["doctor"], ws, bin, { vars: { FAKE_CG_STATUS: JSON.stringify({ pendingChanges: null }) } });
  assert.equal(
    rows(broken.stdout).status,
    "ready (changes since the index not known: codegraph status gave no counts)",
  );
});

test("doctor without an index: not ready, the index check's own reason, the fix, exit 1, nothing created", () => {
  const ws = makeWorkspace({ index: false });
  const r = run(["doctor"], ws);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^status\s+not ready \(CODEGRAPH_NO_INDEX\)$/m);
  assert.match(r.stdout, /^fix\s+Run `\/codegraph init` in Pi \(or `codegraph init` in /m);
  const { index, codegraph } = rows(r.stdout);
  assert.match(index, /index/);
  assert.ok(index.includes(path.join(ws, ".codegraph")), index);
  assert.doesNotMatch(index, /none in this directory/);
  assert.equal(codegraph, path.join(bin, "codegraph"));
  assert.equal(fs.existsSync(path.join(ws, ".codegraph")), false);
});

test("doctor names what of the environment CodeGraph does not get (PATH entries inside the workspace)", () => {
  const ws = makeWorkspace();
  const inside = path.join(ws, "node_modules", ".bin");
  fs.mkdirSync(inside, { recursive: true });
  const r = run(["doctor"], ws, `${inside}:.:${bin}`);
  assert.equal(r.code, 0, r.stdout);
  const dropped = r.stdout.split("\n").filter((l) => l.startsWith("dropped"));
  assert.deepEqual(
    dropped.map((l) => l.replace(/^dropped\s+/, "")),
    [`PATH entry ${inside} (inside the workspace)`, "PATH entry . (relative: it resolves against the workspace)"],
  );
  assert.equal(rows(r.stdout).codegraph, path.join(bin, "codegraph"));
  // With the opt-in nothing is dropped.
  const allowed = run(["doctor"], ws, `${inside}:${bin}`, { vars: { PI_CODEGRAPH_ALLOW_WORKSPACE_BIN: "1" } });
  assert.equal(rows(allowed.stdout).dropped, undefined);
});

test("doctor without codegraph on PATH nor beside pi-codegraph: says so, exit 1", () => {
  const ws = makeWorkspace();
  // A copy of the package with no node_modules: no CodeGraph is installed beside it.
  const script = path.join(packageCopy(), "bin", "pi-codegraph.js");
  const r = run(["doctor"], ws, tempDir(), { script, vars: { NODE_PATH: undefined } });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^status\s+not ready \(CODEGRAPH_NOT_FOUND\)$/m);
  assert.match(rows(r.stdout).codegraph, /not found.*PATH/);
  assert.equal(rows(r.stdout).index, path.join(ws, ".codegraph"));
  assert.equal(rows(r.stdout).version, undefined);
});

test("doctor without codegraph on PATH, in a checkout: the pinned CLI installed beside pi-codegraph runs, said so", () => {
  const ws = makeWorkspace();
  const r = run(["doctor"], ws, tempDir());
  const row = rows(r.stdout);
  assert.match(
    row.codegraph,
    /node_modules\/@colbymchenry\/codegraph\/npm-shim\.js \(installed beside pi-codegraph: none on PATH\)$/,
  );
  assert.equal(row.version, "1.6.1 (from package.json)");
  assert.doesNotMatch(r.stdout, /CODEGRAPH_NOT_FOUND/);
});

test("doctor with a wrong PI_CODEGRAPH_BIN prints that problem, not 'not found on PATH'", () => {
  const ws = makeWorkspace();
  const r = run(["doctor"], ws, bin, { vars: { PI_CODEGRAPH_BIN: "/nope/codegraph" } });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^status\s+not ready \(CODEGRAPH_NOT_FOUND\)$/m);
  const { codegraph, index } = rows(r.stdout);
  assert.match(codegraph, /PI_CODEGRAPH_BIN=\/nope\/codegraph does not exist or is not a file/);
  assert.doesNotMatch(r.stdout, /not found on PATH/);
  // The index check ran on its own and found the index.
  assert.equal(index, path.join(ws, ".codegraph"));
});

test("doctor without the native addon: the Node runner stands in, and the runner row says why", () => {
  const copy = packageCopy();
  const vars = { NODE_PATH: undefined, NAPI_RS_NATIVE_LIBRARY_PATH: undefined, PI_CODEGRAPH_RUNNER: undefined };
  const ws = makeWorkspace();
  const r = run(["doctor"], ws, bin, { vars, script: path.join(copy, "bin", "pi-codegraph.js") });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const row = rows(r.stdout);
  assert.equal(row.status, "ready, the index is up to date");
  assert.match(
    row.runner,
    /^node \S+pi-codegraph\.wasm32-wasi\.wasm \(native addon not loaded: no pi-codegraph native addon for \S+/,
  );
  assert.match(row.addon, /^not loaded: .*no pi-codegraph native addon.*binding\.js/);
  assert.equal(row.fix, undefined);
  const e = run(["explore", "what calls main"], ws, bin, { vars, script: path.join(copy, "bin", "pi-codegraph.js") });
  assert.equal(e.code, 0, e.stderr);
  assert.match(e.stdout, /^FAKE EXPLORE\n/);
});

test("doctor without the native addon, PI_CODEGRAPH_RUNNER=native: nothing is claimed about codegraph or the index; how to get the addon", () => {
  const copy = packageCopy();
  const vars = { NODE_PATH: undefined, NAPI_RS_NATIVE_LIBRARY_PATH: undefined, PI_CODEGRAPH_RUNNER: "native" };
  const load = spawnSync(process.execPath, ["-e", "require('./lib/runners/native.js').loadNative()"], {
    cwd: copy,
    env: env(vars),
    encoding: "utf8",
  });
  assert.notEqual(load.status, 0, "the copy must not find an addon");
  const { target } = createRequire(import.meta.url)("../../lib/runners/native.js");

  const r = run(["doctor"], makeWorkspace(), bin, { vars, script: path.join(copy, "bin", "pi-codegraph.js") });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, "");
  const row = rows(r.stdout);
  assert.equal(row.status, "not ready (CODEGRAPH_ADDON)");
  assert.equal(row.codegraph, "not checked (the native addon did not load)");
  assert.equal(row.index, "not checked (the native addon did not load)");
  assert.doesNotMatch(r.stdout, /not found on PATH|none in this directory/);
  assert.equal(row.extension, `pi-codegraph ${pkg.version} at ${copy}`);
  // The whole story of the failed load, not just its first words.
  assert.match(row.addon, /^not loaded: .*no pi-codegraph native addon.*binding\.js/);
  assert.equal(row.runner, "native addon (not loaded; PI_CODEGRAPH_RUNNER=native)");
  assert.match(row.fix, new RegExp(`pi-codegraph-${target()}\\b.* is missing`));
  assert.match(row.fix, /npm run build/);
  assert.match(row.fix, /npm install pi-codegraph .*without --omit=optional/);
});

test("doctor prints the rows the diagnosis carries: ancestor index, in-workspace executable, resolved index", () => {
  // The package's JS with a stand-in index.js, to render a diagnosis the addon may give.
  const copy = packageCopy();
  fs.writeFileSync(
    path.join(copy, "index.js"),
    `module.exports = {
      diagnose: async () => JSON.parse(process.env.STUB_DIAGNOSIS),
      addonInfo: () => ({ path: "/stub/pi-codegraph.stub.node", error: null }),
      runnerInfo: () => ({ name: "native addon", path: "/stub/pi-codegraph.stub.node", note: null, fallback: false }),
      limits: () => ({}),
      explore: async () => { throw new Error("unused"); },
      usePackageCli: () => module.exports,
    };\n`,
  );
  const script = path.join(copy, "bin", "pi-codegraph.js");
  const doctor = (d) => {
    const r = run(["doctor"], tempDir(), bin, { vars: { STUB_DIAGNOSIS: JSON.stringify(d) }, script });
    return { ...r, row: rows(r.stdout) };
  };

  const noIndex = doctor({
    cwd: "/p/sub",
    ready: false,
    executable: "/usr/bin/codegraph",
    cliVersion: "1.6.1",
    problemCode: "CODEGRAPH_NO_INDEX",
    problem: "generic problem",
    indexProblem: "/p/sub/.codegraph does not exist",
    ancestorIndex: "/p",
    remediation: "Run `codegraph init` in /p/sub yourself.",
  });
  assert.equal(noIndex.code, 1);
  assert.equal(noIndex.row.index, "/p/sub/.codegraph does not exist");
  assert.match(noIndex.row.ancestor, /^\/p .*start Pi there/);
  assert.equal(noIndex.row.warning, undefined);

  const odd = doctor({
    cwd: "/p",
    ready: true,
    executable: "/p/tools/codegraph",
    cliVersion: "1.6.1",
    executableInWorkspace: true,
    indexDir: "/p/.codegraph",
    hasIndex: true,
    indexResolved: "/elsewhere/.codegraph",
  });
  assert.equal(odd.code, 0);
  assert.match(odd.row.warning, /inside the workspace.*\/p\/tools\/codegraph/);
  assert.match(odd.row.resolved, /^\/elsewhere\/\.codegraph\b/);
  assert.equal(odd.row.ancestor, undefined);

  const both = doctor({
    cwd: "/p",
    ready: false,
    problemCode: "CODEGRAPH_NOT_FOUND",
    problem: "the CodeGraph CLI was not found: no `codegraph` on PATH",
    executableProblem: "no `codegraph` on PATH",
    indexProblem: "/p/.codegraph does not exist",
    remediation: "Install it.",
  });
  assert.equal(both.row.codegraph, "no `codegraph` on PATH");
  assert.equal(both.row.index, "/p/.codegraph does not exist");
  assert.equal(both.row.resolved, undefined);
});

for (const args of [["doctor"], ["explore", "q"]]) {
  test(`${args[0]} into a pipe closed by its reader exits quietly (no EPIPE stack trace)`, async () => {
    const r = await runAsync(args, makeWorkspace(), {}, (child) => child.stdout.destroy());
    assert.equal(r.stderr.includes("EPIPE"), false, r.stderr);
    assert.equal(r.stderr.includes("    at "), false, r.stderr);
    if (args[0] === "doctor") assert.equal(r.code, 0);
    else assert.ok(r.code === 0 && /^\[codegraph /.test(r.stderr), r.stderr);
  });
}

test("doctor and explore into a full device (/dev/full): one line on stderr, exit 74, no stack trace", {
  skip: !fs.existsSync("/dev/full") && "no /dev/full here",
}, () => {
  for (const args of [["doctor"], ["explore", "--help"]]) {
    const full = fs.openSync("/dev/full", "w");
    const r = spawnSync(process.execPath, [cli, ...args], {
      cwd: makeWorkspace(),
      stdio: ["ignore", full, "pipe"],
      encoding: "utf8",
    });
    fs.closeSync(full);
    assert.equal(r.status, 74, r.stderr);
    assert.equal(r.stderr, "pi-codegraph: the output could not be written (ENOSPC)\n");
  }
});

test("doctor | head -1 prints the first row and nothing on stderr", () => {
  const r = spawnSync("sh", ["-c", `"${process.execPath}" "${cli}" doctor | head -1`], {
    cwd: makeWorkspace(),
    env: env({}, `${bin}:/usr/bin:/bin`),
    encoding: "utf8",
  });
  assert.match(r.stdout, /^status\s+ready, the index is up to date\n$/);
  assert.equal(r.stderr, "");
});

test("explore prints the bounded answer; errors go to stderr with exit 1", () => {
  const ws = makeWorkspace();
  const ok = run(["explore", "what", "calls", "main"], ws);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout.split("\n")[1]).argv, ["explore", "--", "what calls main"]);
  const bad = run(["explore", "q"], makeWorkspace({ index: false }));
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^CODEGRAPH_NO_INDEX:/);
});

test("explore of a truncated answer: a note for a person on stderr instead of the model's marker and dead path", () => {
  const r = run(["explore", "q"], makeWorkspace(), bin, { vars: { FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "3000" } });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  // The model's 2,000 lines include the marker's two; a person sees the 1,998 kept lines.
  assert.equal(lines.length, 1999);
  assert.equal(lines[1997], "line 1998");
  assert.equal(lines[1998], "");
  assert.doesNotMatch(r.stdout + r.stderr, /Output truncated|explore-\d+-|read tool/);
  assert.match(r.stderr, /^\[truncated: showing 1998 of 3000 lines; run again with --full to print everything\]$/m);
});

test("explore --full prints the complete output; without truncation just the answer", () => {
  const ws = makeWorkspace();
  const r = run(["explore", "--full", "q"], ws, bin, { vars: { FAKE_CG_MODE: "lines", FAKE_CG_COUNT: "3000" } });
  assert.equal(r.code, 0, r.stderr);
  const expected = `${Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
  assert.equal(r.stdout, expected);
  assert.doesNotMatch(r.stderr, /truncated:/);
  const small = run(["explore", "--full", "what", "calls", "main"], ws);
  assert.equal(small.code, 0, small.stderr);
  assert.deepEqual(JSON.parse(small.stdout.split("\n")[1]).argv, ["explore", "--", "what calls main"]);
});

test("explore options: --help and -h, `--` ends options, options only before the question, usage errors", () => {
  const ws = makeWorkspace();
  const log = path.join(tempDir(), "log.jsonl");
  const vars = { FAKE_CG_LOG: log };
  for (const flag of ["--help", "-h"]) {
    const r = run(["explore", flag], ws, bin, { vars });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /explore \[--full\] \[--\] <question\.\.\.>/);
    assert.doesNotMatch(r.stdout, /doctor/);
  }
  assert.deepEqual(readLog(log), [], "--help must not run codegraph");

  const asked = (args) => JSON.parse(run(["explore", ...args], ws, bin, { vars }).stdout.split("\n")[1]).argv[2];
  assert.equal(asked(["--", "--help"]), "--help");
  assert.equal(asked(["what", "is", "--full"]), "what is --full");
  assert.equal(asked(["--full", "--", "-p", "/etc"]), "-p /etc");

  const frob = run(["explore", "--frob", "q"], ws, bin, { vars });
  assert.equal(frob.code, 2);
  assert.match(frob.stderr, /--frob/);
  const none = run(["explore"], ws, bin, { vars });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /explore \[--full\] \[--\] <question\.\.\.>/);
  assert.equal(run(["explore", "--full"], ws, bin, { vars }).code, 2);
  assert.equal(readLog(log).length, 3, "usage errors must not run codegraph");

  const doctorHelp = run(["doctor", "-h"], ws);
  assert.equal(doctorHelp.code, 0);
  assert.match(doctorHelp.stdout, /doctor \[DIR\]/);
  assert.equal(run(["doctor", "--frob"], ws).code, 2);
});

test("--help lists both subcommands with their options; usage on no command, exit 2 on an unknown one", () => {
  const help = run(["--help"], tempDir());
  assert.equal(help.code, 0);
  for (const s of ["doctor [DIR]", "explore [--full] [--] <question...>", "--full", "-h, --help"]) {
    assert.ok(help.stdout.includes(s), `--help mentions ${s}`);
  }
  assert.equal(run([], tempDir()).code, 0);
  const r = run(["frobnicate"], tempDir());
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Usage:/);
});

test("SIGINT during explore aborts it and stops the CLI's process tree", async () => {
  const pidsFile = path.join(tempDir(), "pids.json");
  let pids;
  const r = await runAsync(
    ["explore", "q"],
    makeWorkspace(),
    { FAKE_CG_MODE: "hang", FAKE_CG_PIDS: pidsFile },
    (child) =>
      waitFor(() => fs.existsSync(pidsFile), { what: "the fake CLI" }).then(() => {
        pids = JSON.parse(fs.readFileSync(pidsFile, "utf8"));
        child.kill("SIGINT");
      }),
  );
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^CODEGRAPH_CANCELLED/);
  await processesDie([pids.self, pids.grandchild]);
});

test("doctor in a subdirectory of an indexed project (real addon): names the project's index", () => {
  const project = makeWorkspace();
  const sub = path.join(project, "src", "deep");
  fs.mkdirSync(sub, { recursive: true });
  const r = run(["doctor"], sub);
  assert.equal(r.code, 1);
  assert.match(r.stdout, new RegExp(`^ancestor\\s+${project}`, "m"));
  assert.match(r.stdout, /^fix\s+The enclosing project .* add it in Pi/m);
  assert.match(r.stdout.replace(/\n {2,}/g, " "), new RegExp(`/codegraph projects add ${project}\\).* start Pi there`));
});

test("doctor in a directory whose name holds an escape sequence, a bidi control and a newline: one row, nothing raw", () => {
  // A name that would set the terminal's title, reverse the row and forge a "status ready" row.
  const parent = tempDir("pi-codegraph-cli-evil-");
  const evil = path.join(parent, "x\u001b]0;pwned\u0007\u202eesrever\nstatus     ready");
  fs.mkdirSync(evil);
  const r = run(["doctor"], evil);
  assert.equal(r.code, 1);
  for (const [label, raw] of [
    ["ESC", "\u001b"],
    ["BEL", "\u0007"],
    ["U+202E", "\u202e"],
  ]) {
    assert.ok(!r.stdout.includes(raw) && !r.stderr.includes(raw), `no raw ${label} reaches the terminal`);
  }
  const lines = r.stdout.split("\n");
  assert.equal(lines.filter((l) => l.startsWith("status")).length, 1, r.stdout);
  assert.match(rows(r.stdout).status, /^not ready/);
  assert.equal(lines.filter((l) => l.startsWith("workspace")).length, 1);
  assert.ok(rows(r.stdout).workspace.includes("\\x1b]0;pwned\\x07\\u{202e}esrever\\nstatus"), rows(r.stdout).workspace);
});

test("a usage error echoing an argument with an escape sequence prints it escaped", () => {
  const r = run(["doctor", "--\u001b]52;c;cHduZWQ=\u0007"], makeWorkspace());
  assert.equal(r.code, 2);
  assert.ok(!r.stderr.includes("\u001b"), JSON.stringify(r.stderr));
  assert.match(r.stderr, /unknown option --\\x1b\]52;c;cHduZWQ=\\x07/);
});

test("the Node.js floor is engines' whole version, not its major: a 22 below 22.19 is below it", () => {
  const { testedHosts } = createRequire(import.meta.url)("../../lib/contract/hosts.js");
  const { belowNodeFloor, nodeFloor } = testedHosts(pkg);
  assert.deepEqual(nodeFloor.version, pkg.engines.node.replace(/^>=/, "").split(".").map(Number));
  const [major, minor, patch] = nodeFloor.version;
  const below = [`v${major}.${minor - 1}.9`, `${major - 1}.99.99`, `v${major}.${minor}.${patch - 1}`, "v18.0.0"];
  const notBelow = [`v${major}.${minor}.${patch}`, `v${major}.${minor + 1}.0`, `v${major + 2}.0.0`, "v24.1.0"];
  for (const v of below.filter((x) => !x.includes("-1"))) assert.equal(belowNodeFloor(v), true, v);
  for (const v of notBelow) assert.equal(belowNodeFloor(v), false, v);
});

const oldNode = ["/usr/bin/node", "/bin/node"].find((p) => {
  const v = spawnSync(p, ["--version"], { encoding: "utf8" }).stdout ?? "";
  return /^v(1\d|2[01])\./.test(v);
});
test("doctor on a Node.js below the supported floor names the floor and what is known to work", {
  skip: !oldNode && "no Node.js older than 22 on this machine (/usr/bin/node)",
}, () => {
  const ws = makeWorkspace();
  const r = spawnSync(oldNode, [cli, "doctor"], { cwd: ws, env: env(), encoding: "utf8" });
  const runtime = rows(r.stdout).runtime;
  assert.match(runtime, /^Node\.js v(1\d|2[01])\./);
  assert.match(runtime, /below the supported floor, Node\.js 22/);
  assert.match(runtime, /known to work: Node\.js 22 and 24/);
  assert.match(runtime, /`nvm install 22`.*`npm install --prefix ~\/\.node22 node@22`/, "how to get it");
  assert.doesNotMatch(rows(run(["doctor"], ws).stdout).runtime, /below the supported floor/, "not on this Node");
});
