// Bun smoke test for the native explore(): run it with `bun __test__/bun/smoke.mjs`.
//
// Each case runs in its own Bun process, started by this script with the case's environment.
// Under Bun, assigning to process.env does not reach the C environment the addon reads
// (std::env), so the addon sees only the environment its process started with; the `env` case
// reports that as an info line.
//
// Output: one `ok <case> …` / `FAIL <case> …` / `info …` line per check, then a summary line;
// the exit code is non-zero on any failure. SMOKE_NODE names the Node.js used to run the real
// CodeGraph CLI and the fake one (default: `node` on PATH; CodeGraph wants Node < 25).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isAlive, makeWorkspace, readJsonFile, root, tempDir, waitFor } from "../helpers/index.mjs";

const self = fileURLToPath(import.meta.url);
const fixture = path.join(root, "__test__", "fixtures", "shop");
const cliBin = path.join(root, "node_modules", ".bin");
const REAL_REQUEST = "how does CheckoutService.checkout call charge";

function which(name) {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const file = path.join(dir, name);
    if (path.isAbsolute(dir) && fs.existsSync(file)) return file;
  }
  return null;
}

/** Settles `promise` into the error it rejects with; a resolution is a failure. */
async function rejection(promise) {
  return promise.then(
    (r) => {
      throw new Error(`expected a rejection, got a result: ${String(r?.text).slice(0, 200)}`);
    },
    (e) => e,
  );
}

function expectCode(err, code) {
  if (err?.code !== code) throw new Error(`expected ${code}, got ${err?.code}: ${err?.message}`);
  if (!String(err.message).startsWith(`${code}:`)) throw new Error(`message does not start with ${code}:`);
}

async function treeGone(pids) {
  await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), { timeoutMs: 3000, what: "the tree to die" });
}

// ---- the cases, each run in a child Bun process (argv: <case> <json args>) ----

const cases = {
  async load() {
    const pkg = createRequire(import.meta.url)("../../index.js");
    if (typeof pkg.explore !== "function" || typeof pkg !== "function") throw new Error("bad exports");
    return `bun=${process.versions.bun} index.js exports ok`;
  },

  async real({ ws }) {
    const { explore } = createRequire(import.meta.url)("../../index.js");
    const { text, details } = await explore(REAL_REQUEST, ws, null, { timeoutMs: 60000 });
    if (!text.includes("CheckoutService")) throw new Error(`no CheckoutService in: ${text.slice(0, 300)}`);
    if (details.exitCode !== 0) throw new Error(`exitCode ${details.exitCode}`);
    return `codegraph ${details.cliVersion} ${details.keptBytes}B ${details.durationMs}ms`;
  },

  async abort({ ws, pidsFile }) {
    const { explore } = createRequire(import.meta.url)("../../index.js");
    const ac = new AbortController();
    const pending = rejection(explore("q", ws, ac.signal));
    const pids = await waitFor(() => readJsonFile(pidsFile), { what: "the fake to start" });
    if (!isAlive(pids.self) || !isAlive(pids.grandchild)) throw new Error("the fake tree was not running");
    ac.abort();
    expectCode(await pending, "CODEGRAPH_CANCELLED");
    await treeGone(pids);
    return `CODEGRAPH_CANCELLED, tree ${pids.self}/${pids.grandchild} gone`;
  },

  async timeout({ ws, pidsFile }) {
    const { explore } = createRequire(import.meta.url)("../../index.js");
    const started = Date.now();
    const err = await rejection(explore("q", ws, null, { timeoutMs: 400 }));
    const elapsed = Date.now() - started;
    expectCode(err, "CODEGRAPH_TIMEOUT");
    if (elapsed < 400) throw new Error(`timed out after only ${elapsed}ms`);
    const pids = readJsonFile(pidsFile);
    if (!pids) throw new Error("the fake never started");
    await treeGone(pids);
    return `CODEGRAPH_TIMEOUT after ${elapsed}ms, tree ${pids.self}/${pids.grandchild} gone`;
  },

  async env({ ws }) {
    // Informational: does a process.env assignment reach the addon? (Node: yes.)
    const { explore } = createRequire(import.meta.url)("../../index.js");
    process.env.PI_CODEGRAPH_BIN = "/nonexistent/pi-codegraph-smoke/codegraph";
    const err = await explore("q", ws).then(
      () => null,
      (e) => e,
    );
    return `env-mutation-visible=${err?.code === "CODEGRAPH_NOT_FOUND"}`;
  },
};

if (process.argv[2]) {
  const name = process.argv[2];
  try {
    const detail = await cases[name](JSON.parse(process.argv[3] ?? "{}"));
    console.log(name === "env" ? `info ${detail}` : `ok ${name} ${detail}`);
  } catch (err) {
    console.log(`FAIL ${name} ${String(err?.message ?? err).split("\n")[0]}`);
    process.exitCode = 1;
  }
} else {
  await main();
}

// ---- the orchestrator ----

async function main() {
  if (!process.versions.bun) console.log("info not running under Bun");
  const node = process.env.SMOKE_NODE || which("node");
  if (!node) {
    console.log("FAIL setup no node on PATH (set SMOKE_NODE)");
    process.exit(1);
  }
  const basePath = [path.dirname(node), process.env.PATH].join(path.delimiter);
  const scrubbed = { ...process.env };
  delete scrubbed.PI_CODEGRAPH_BIN;
  for (const k of Object.keys(scrubbed)) if (k.startsWith("FAKE_CG_")) delete scrubbed[k];

  // (a) a temp copy of the fixture, indexed here by the real CLI (never by the extension).
  const shop = tempDir("pi-codegraph-bun-shop-");
  fs.cpSync(fixture, shop, { recursive: true });
  const realEnv = { ...scrubbed, DO_NOT_TRACK: "1", PATH: [cliBin, basePath].join(path.delimiter) };
  let indexed = true;
  try {
    execFileSync(path.join(cliBin, "codegraph"), ["init", "-y", "."], { cwd: shop, env: realEnv, stdio: "ignore" });
  } catch (err) {
    indexed = false;
    console.log(`FAIL index codegraph init -y . failed: ${err.message.split("\n")[0]}`);
  }

  // (b), (c) the fake CLI under an absolute Node shebang, alone on PATH.
  const fakeBin = tempDir("pi-codegraph-bun-bin-");
  const fake = path.join(fakeBin, "codegraph");
  const fakeScript = path.join(root, "__test__", "helpers", "fake-codegraph.js");
  fs.writeFileSync(fake, `#!${node}\nrequire(${JSON.stringify(fakeScript)});\n`, { mode: 0o755 });
  const ws = makeWorkspace();
  const scratch = tempDir("pi-codegraph-bun-scratch-");
  const hang = (name) => ({
    args: { ws, pidsFile: path.join(scratch, `${name}-pids.json`) },
    env: { ...scrubbed, PATH: fakeBin, FAKE_CG_MODE: "hang", FAKE_CG_PIDS: path.join(scratch, `${name}-pids.json`) },
  });

  const plan = [
    ["load", { args: {}, env: scrubbed }],
    ...(indexed ? [["real", { args: { ws: shop }, env: realEnv }]] : []),
    ["abort", hang("abort")],
    ["timeout", hang("timeout")],
    ["env", { args: { ws }, env: { ...scrubbed, PATH: fakeBin } }],
  ];

  let failed = indexed ? 0 : 1;
  let passed = 0;
  for (const [name, { args, env }] of plan) {
    const r = spawnSync(process.execPath, [self, name, JSON.stringify(args)], {
      env,
      encoding: "utf8",
      timeout: 120000,
    });
    const out = r.stdout.trim();
    if (out) console.log(out);
    if (r.stderr.trim()) process.stderr.write(r.stderr);
    if (r.status === 0 && !out.includes("FAIL")) {
      if (name !== "env") passed += 1;
    } else {
      failed += 1;
      if (!out.includes("FAIL")) console.log(`FAIL ${name} child exited ${r.status ?? r.signal} ${r.error ?? ""}`);
    }
  }
  for (const dir of [shop, fakeBin, ws, scratch]) fs.rmSync(dir, { recursive: true, force: true });
  console.log(`smoke: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
