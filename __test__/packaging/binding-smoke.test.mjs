// The binding smoke test: what release.yml runs on every built artifact, on a machine of the
// artifact's own platform (Alpine for musl, arm64, macOS, Windows), before anything is
// published. It needs only Node and this checkout (no node_modules), and it checks the NATIVE
// addon: with PI_CODEGRAPH_RUNNER=native a binary that does not load fails here instead of
// falling back to the Node runner. In `npm test` it checks the local build the same way.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const fake = path.join(root, "__test__", "helpers", "fake-codegraph.js");
process.env.PI_CODEGRAPH_RUNNER = "native";
const pkg = createRequire(import.meta.url)(path.join(root, "index.js"));

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pi-codegraph-smoke-")));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A workspace with a minimal index (a SQLite header is all the preflight reads). */
function workspace(name, { index = true } = {}) {
  const dir = path.join(scratch, name);
  fs.mkdirSync(path.join(dir, ".codegraph"), { recursive: true });
  if (index) {
    const header = Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(4080)]);
    fs.writeFileSync(path.join(dir, ".codegraph", "codegraph.db"), header);
  } else fs.rmSync(path.join(dir, ".codegraph"), { recursive: true });
  return dir;
}

/** The test fake as an executable `codegraph`: a shebang script, or a .cmd on Windows. */
function fakeExecutable() {
  if (process.platform === "win32") {
    const file = path.join(scratch, "codegraph.cmd");
    fs.writeFileSync(file, `@"${process.execPath}" "${fake}" %*\r\n`);
    return file;
  }
  const file = path.join(scratch, "codegraph");
  fs.writeFileSync(file, `#!${process.execPath}\nrequire(${JSON.stringify(fake)});\n`, { mode: 0o755 });
  return file;
}
process.env.PI_CODEGRAPH_BIN = fakeExecutable();

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** Polls `ok` until it holds or `ms` pass (a bounded wait for a condition, not a sleep). */
async function until(ok, ms, what) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("the native binary for this platform loads", () => {
  const info = pkg.addonInfo();
  assert.equal(info.error, null);
  assert.match(path.basename(info.path), /^pi-codegraph\..+\.node$/);
});

test("explore answers through the binary, the request as one argument after --", async () => {
  const ws = workspace("ready");
  const { text, details } = await pkg.explore("how does a reach b", ws);
  const [first, json] = text.split("\n");
  assert.equal(first, "FAKE EXPLORE");
  assert.deepEqual(JSON.parse(json).argv, ["explore", "--", "how does a reach b"]);
  assert.equal(details.exitCode, 0);
  assert.equal(details.truncated, false);
});

test("an abort stops the CLI and its grandchild", async () => {
  const ws = workspace("abort");
  const pidFile = path.join(scratch, "pids.json");
  process.env.FAKE_CG_MODE = "hang";
  process.env.FAKE_CG_PIDS = pidFile;
  try {
    const controller = new AbortController();
    const call = pkg.explore("hang", ws, controller.signal);
    await until(() => fs.existsSync(pidFile), 10_000, "the fake to start");
    const pids = JSON.parse(fs.readFileSync(pidFile, "utf8"));
    controller.abort();
    await assert.rejects(call, (err) => err.code === "CODEGRAPH_CANCELLED");
    await until(() => !alive(pids.self) && !alive(pids.grandchild), 5_000, "the process tree to die");
  } finally {
    delete process.env.FAKE_CG_MODE;
    delete process.env.FAKE_CG_PIDS;
  }
});

test("diagnose reports ready, and a workspace without an index is refused before any run", async () => {
  const ready = await pkg.diagnose(workspace("diagnosed"));
  assert.equal(ready.ready, true, JSON.stringify(ready));
  const bare = workspace("bare", { index: false });
  await assert.rejects(pkg.explore("q", bare), (err) => err.code === "CODEGRAPH_NO_INDEX");
});
