// Real interactive Pi in a tmux terminal, for the tests that assert on the screen: the package
// installed (`pi install <root>`) into an isolated agent dir and HOME, a loopback model, and one
// tmux server per test file (killed by `stop`).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { installPacked } from "./packed.mjs";
import { PI_CLI, writeModelsJson } from "./pi-harness.mjs";

export const tmuxMissing = spawnSync("tmux", ["-V"]).status === 0 ? false : "tmux is not installed";

/**
 * Starts Pi in `cwd` inside a detached 160×50 tmux session named `name`. `scratch` holds the
 * agent dir and HOME; `baseUrl` is the model server (never called by command-only tests);
 * `pathDirs` the PATH; `env` extra variables; with `session`, Pi keeps its session (in the agent
 * dir) instead of `--no-session`. Returns `{ tmux(...args), screen(), keys(...keys), type(text),
 * relaunch(...args), stop() }`: `relaunch` ends that Pi and starts another in its place, with `args`
 * (`-c`: the last session again). `rows`: the terminal's height (160 columns wide).
 */
export async function startTuiPi({
  name,
  scratch,
  cwd,
  baseUrl,
  pathDirs,
  env: extra = {},
  session = false,
  rows = 50,
}) {
  const tmux = (...args) => execFileSync("tmux", ["-L", name, ...args], { encoding: "utf8" });
  const agentDir = path.join(scratch, "agent");
  const home = path.join(scratch, "home");
  fs.mkdirSync(home, { recursive: true });
  writeModelsJson(agentDir, baseUrl, ["tui-model"]);
  const env = {
    PATH: pathDirs,
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: "1",
    TERM: "xterm-256color",
    ...extra,
  };
  const install = (await installPacked({ cwd: scratch, env })).result;
  assert.equal(install.code, 0, install.stderr);
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const pi = [process.execPath, PI_CLI, "--offline", ...(session ? [] : ["--no-session"])];
  const model = ["--provider", "fake", "--model", "tui-model"];
  tmux("new-session", "-d", "-s", name, "-x", "160", "-y", String(rows), "-c", cwd, "env", ...envArgs, ...pi, ...model);
  return {
    tmux,
    screen: () => tmux("capture-pane", "-p", "-J", "-S", "-400", "-t", name),
    keys: (...keys) => tmux("send-keys", "-t", name, ...keys),
    type: (text) => tmux("send-keys", "-t", name, "-l", text),
    relaunch: (...args) => {
      tmux("respawn-pane", "-k", "-t", name, "-c", cwd, "env", ...envArgs, ...pi, ...args, ...model);
      tmux("clear-history", "-t", name);
    },
    stop: () => {
      try {
        tmux("kill-server");
      } catch {}
    },
  };
}
