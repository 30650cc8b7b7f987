// Drives the real Pi CLI (the pinned devDependency) as a child process: isolated agent dir and
// HOME, JSON-mode runs, an RPC session, and bookkeeping so every spawned Pi can be killed.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startFakeOpenAI } from "./fake-openai.mjs";
import { isAlive, root, tempDir, waitFor } from "./index.mjs";

/**
 * The Pi the real-Pi suites run: the pinned devDependency, or the installed
 * `@earendil-works/pi-coding-agent` package directory PI_CODEGRAPH_TEST_PI names (CI's other Pi).
 */
export const PI_DIR =
  process.env.PI_CODEGRAPH_TEST_PI || path.join(root, "node_modules", "@earendil-works", "pi-coding-agent");
/** Its `pi` command (package.json `bin`; Pi 1.x's is a bundled runtime, dist/bundle/cli.js). */
export const PI_CLI = (() => {
  try {
    return path.join(PI_DIR, JSON.parse(fs.readFileSync(path.join(PI_DIR, "package.json"), "utf8")).bin.pi);
  } catch {
    return path.join(PI_DIR, "dist", "cli.js");
  }
})();
export const piMissing = fs.existsSync(PI_CLI) ? false : `Pi's CLI is not installed (${PI_CLI}); run npm install`;

/**
 * `codegraph init` with the pinned CLI in `dir` (the tests' own explicit indexing step: the
 * extension never indexes), after copying the shop fixture there unless `copy` is false.
 */
export function indexShop(dir, { copy = true } = {}) {
  if (copy) fs.cpSync(path.join(root, "__test__", "fixtures", "shop"), dir, { recursive: true });
  const nodeDir = path.dirname(process.execPath);
  execFileSync(path.join(root, "node_modules", ".bin", "codegraph"), ["init", "-y", "."], {
    cwd: dir,
    env: { ...process.env, DO_NOT_TRACK: "1", PATH: [nodeDir, process.env.PATH].join(path.delimiter) },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30000,
  });
  assert.ok(fs.existsSync(path.join(dir, ".codegraph", "codegraph.db")), "codegraph init made an index");
  return dir;
}

/** Pi's arguments for one offline json-mode run of `prompt` on the fake provider's `model` (no session, no context files). */
export const jsonModeArgs = (model, prompt) => [
  "--mode",
  "json",
  "--offline",
  "--no-session",
  "--no-context-files",
  "--provider",
  "fake",
  "--model",
  model,
  prompt,
];

/** A temp dir for one Pi run: `{ scratch, home, agentDir }`, `home/` made (Pi never reads ~/.pi). */
export function piScratch(prefix) {
  const scratch = tempDir(prefix);
  const home = path.join(scratch, "home");
  fs.mkdirSync(home);
  return { scratch, home, agentDir: path.join(scratch, "agent") };
}

/**
 * A real-Pi suite's scratch world: a temp dir with `tmp/` and `home/`, an indexed copy of the shop
 * fixture, the loopback model server answering with a call of `request` (or with all of `calls` in
 * one message: see startFakeOpenAI), and an agent dir whose models.json lists `models`.
 * `tearDownPiSuite` undoes it.
 */
export async function startPiSuite(prefix, { request, calls, models }) {
  const { scratch, home, agentDir } = piScratch(prefix);
  fs.mkdirSync(path.join(scratch, "tmp"));
  // The test's own explicit indexing step (the extension never indexes).
  const indexed = indexShop(path.join(scratch, "shop"));
  const server = await startFakeOpenAI({ request, calls });
  writeModelsJson(agentDir, server.baseUrl, models);
  return { scratch, home, indexed, server, agentDir };
}

/**
 * A real-Pi suite's teardown: every Pi child, every stray CLI pid still alive (SIGKILL), the fake
 * model server, and the scratch directories.
 */
export async function tearDownPiSuite({ strayPids, server, dirs }) {
  killAllPi();
  for (const pid of strayPids) {
    if (isAlive(pid)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  }
  await server?.close();
  for (const dir of dirs) if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

/** Every Pi child still running; `killAllPi()` ends them (by pid, SIGKILL). */
const running = new Set();
export function killAllPi() {
  for (const child of running) {
    try {
      child.kill("SIGKILL");
    } catch {}
  }
  running.clear();
}

/**
 * An agent dir whose models.json offers the fake server's models under provider "fake"; `compat`:
 * what the models take besides (e.g. `supportsMidConvoSystemMessages`).
 */
export function writeModelsJson(agentDir, baseUrl, modelIds, compat = {}) {
  fs.mkdirSync(agentDir, { recursive: true });
  const models = {
    providers: {
      fake: {
        baseUrl,
        api: "openai-completions",
        apiKey: "fake-key",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false, ...compat },
        models: modelIds.map((id) => ({ id, reasoning: false })),
      },
    },
  };
  fs.writeFileSync(path.join(agentDir, "models.json"), `${JSON.stringify(models, null, 2)}\n`);
}

/**
 * A minimal environment: nothing from the caller's Pi or CodeGraph configuration leaks in (the
 * suite may itself run inside a Pi session), and HOME is a temp dir so ~/.pi is never read.
 */
export function piEnv({ agentDir, home, pathDirs, extra = {} }) {
  const env = {
    PATH: pathDirs.join(path.delimiter),
    HOME: home,
    USERPROFILE: home,
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: "1",
    DO_NOT_TRACK: "1",
    NO_COLOR: "1",
  };
  for (const k of ["TMPDIR", "TMP", "TEMP", "LANG", "SYSTEMROOT"]) if (process.env[k]) env[k] = process.env[k];
  return { ...env, ...extra };
}

/**
 * Spawns `node <PI_CLI> ...args`, or, with `piCommand` (an executable's path, e.g. Pi compiled with
 * Bun into one binary), `<piCommand> ...args`.
 */
function spawnPi(args, { cwd, env, stdin = "ignore", piCommand }) {
  const [file, argv] = piCommand ? [piCommand, args] : [process.execPath, [PI_CLI, ...args]];
  const child = spawn(file, argv, { cwd, env, stdio: [stdin, "pipe", "pipe"] });
  running.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise((resolve) => {
    child.on("close", (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    child,
    exited,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

/** Rejects (after killing the child) when `promise` does not settle within `ms`. */
function bounded(promise, ms, what, child) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => {
        child?.kill("SIGKILL");
        reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      }, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Pi's JSONL framing is LF only (docs/rpc.md: not readline, which also splits on U+2028/9). */
export function parseJsonl(text) {
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return { type: "__unparsable__", line: l };
      }
    });
}

/** A Pi run in one line for an assertion's message: its exit (and signal) and the end of its stderr. */
export const explainRun = (run) =>
  `exit ${run.code}${run.signal ? ` (${run.signal})` : ""}; stderr:\n${run.stderr.slice(-4000)}`;

/**
 * Runs Pi to completion: `{ code, signal, stdout, stderr, events }` (`piCommand`: see spawnPi;
 * `onSpawn` gets the child process as soon as it is started).
 */
export async function runPi(args, { cwd, env, timeoutMs = 30000, piCommand, onSpawn }) {
  const run = spawnPi(args, { cwd, env, piCommand });
  onSpawn?.(run.child);
  const { code, signal } = await bounded(run.exited, timeoutMs, `pi ${args.join(" ")}`, run.child);
  return { code, signal, stdout: run.stdout, stderr: run.stderr, events: parseJsonl(run.stdout) };
}

/** A `pi --mode rpc` session: send commands, wait for events, end stdin (`piCommand`: see spawnPi). */
export function startPiRpc(args, { cwd, env, piCommand }) {
  const run = spawnPi(["--mode", "rpc", ...args], { cwd, env, stdin: "pipe", piCommand });
  const events = [];
  const waiters = new Set();
  let buffered = "";
  run.child.stdout.on("data", (d) => {
    buffered += d;
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) events.push(...parseJsonl(line));
      nl = buffered.indexOf("\n");
    }
    for (const w of waiters) w();
  });
  return {
    child: run.child,
    events,
    get stderr() {
      return run.stderr;
    },
    send(command) {
      run.child.stdin.write(`${JSON.stringify(command)}\n`);
    },
    /** Resolves with the first event matching `predicate`; rejects after `timeoutMs`. */
    waitForEvent(predicate, { timeoutMs = 15000, what = "event" } = {}) {
      const found = events.find(predicate);
      if (found) return Promise.resolve(found);
      let check;
      const waiting = new Promise((resolve, reject) => {
        check = () => {
          const hit = events.find(predicate);
          if (hit) resolve(hit);
        };
        waiters.add(check);
        run.exited.then(() => {
          check();
          reject(new Error(`pi exited before ${what}; stderr:\n${run.stderr}`));
        });
      });
      return bounded(waiting, timeoutMs, what).finally(() => waiters.delete(check));
    },
    /** Closes stdin (Pi's RPC mode shuts down on EOF) and waits for the exit. */
    async end({ timeoutMs = 15000 } = {}) {
      run.child.stdin.end();
      return bounded(run.exited, timeoutMs, "pi to exit after stdin EOF", run.child);
    },
  };
}

/** Text of an OpenAI chat message's content (a string or an array of parts). */
export function contentText(message) {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("");
  return "";
}

/** What the assistant said, over a json-mode run's events (one line per message). */
export function assistantText(events) {
  return events
    .filter((e) => e.type === "message_end" && e.message?.role === "assistant")
    .map((e) => contentText(e.message))
    .join("\n");
}

/**
 * The one codegraph_explore call of a json-mode run, as the model got it (the tool message of its
 * second request, `bodies[1]`) and as Pi reported it (the one `tool_execution_end`): asserts there
 * is one of each, that the end's isError is `isError`, and that both carry the same text.
 */
export function oneToolCall(run, bodies, { isError }) {
  const toolMsgs = bodies[1].messages.filter((m) => m.role === "tool");
  assert.equal(toolMsgs.length, 1);
  assert.equal(toolMsgs[0].tool_call_id, "call_cg_1");
  const sent = contentText(toolMsgs[0]);
  const ends = run.events.filter((e) => e.type === "tool_execution_end" && e.toolName === "codegraph_explore");
  assert.equal(ends.length, 1);
  assert.equal(ends[0].isError, isError, contentText(ends[0].result));
  assert.equal(contentText(ends[0].result), sent, "what Pi reported is what the model got");
  return { sent, end: ends[0] };
}

/** Names of the function tools in one chat-completions request body. */
export function toolNames(body) {
  return (body?.tools ?? []).map((t) => t?.function?.name ?? t?.name);
}

/**
 * The RPC abort scenario, for any Pi: the prompt starts the tool, the fake CLI (FAKE_CG_MODE=hang,
 * FAKE_CG_PIDS=pidsFile) reports its pid and its grandchild's, the abort ends the tool with
 * CODEGRAPH_CANCELLED, and the whole tree is gone. The pids go to `strayPids` for cleanup.
 */
export async function abortMidTool(rpc, { prompt, pidsFile, strayPids, tool = "codegraph_explore" }) {
  rpc.send({ id: "p1", type: "prompt", message: prompt });
  const accepted = await rpc.waitForEvent((e) => e.type === "response" && e.id === "p1", {
    timeoutMs: 30000,
    what: "prompt accepted",
  });
  assert.equal(accepted.success, true, JSON.stringify(accepted));
  await rpc.waitForEvent((e) => e.type === "tool_execution_start" && e.toolName === tool, {
    what: "tool_execution_start",
  });
  // The fake writes its pid file once it and its grandchild run: the tool is mid-flight.
  const pids = await waitFor(() => fs.existsSync(pidsFile) && JSON.parse(fs.readFileSync(pidsFile, "utf8")), {
    timeoutMs: 15000,
    what: "the fake codegraph to start",
  });
  strayPids.push(pids.self, pids.grandchild);
  assert.ok(isAlive(pids.self) && isAlive(pids.grandchild), "codegraph and its grandchild are running");

  rpc.send({ id: "a1", type: "abort" });
  const end = await rpc.waitForEvent((e) => e.type === "tool_execution_end" && e.toolName === tool, {
    what: "tool_execution_end after abort",
  });
  assert.equal(end.isError, true);
  assert.match(contentText(end.result), /^CODEGRAPH_CANCELLED:/);
  const aborted = await rpc.waitForEvent((e) => e.type === "response" && e.id === "a1", { what: "abort response" });
  assert.equal(aborted.success, true);
  await waitFor(() => !isAlive(pids.self) && !isAlive(pids.grandchild), {
    timeoutMs: 5000,
    what: "codegraph and its grandchild to be gone",
  });
}
