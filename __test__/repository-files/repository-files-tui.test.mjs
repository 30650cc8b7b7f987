// A repository that commits links to the terminal (`lib/.gitignore -> /dev/tty`, git stores the
// link and never follows it) never takes Pi's keyboard: real interactive Pi in tmux, the package
// installed, the fake CLI on PATH; the walk for changes runs at the start and before each turn.
// Every character typed reaches Pi's editor, /codegraph answers, and Ctrl+D still ends Pi.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { fakeBinDir, makeWorkspace, tempDir, waitFor } from "../helpers/index.mjs";
import { piMissing } from "../helpers/pi-harness.mjs";
import { startTuiPi, tmuxMissing } from "../helpers/tmux-pi.mjs";

let pi;
let scratch;
const name = `pi-codegraph-repo-tui-${process.pid}`;
const skip = piMissing || tmuxMissing || (process.platform === "win32" && "a POSIX terminal");

before(async () => {
  if (skip) return;
  scratch = tempDir("pi-codegraph-repo-tui-");
  const ws = makeWorkspace();
  for (const [dir, target] of [
    ["lib", "/dev/tty"],
    ["src", "/dev/stdin"],
    ["gen", "/proc/self/fd/0"],
  ]) {
    fs.mkdirSync(path.join(ws, dir));
    fs.symlinkSync(target, path.join(ws, dir, ".gitignore"));
    fs.writeFileSync(path.join(ws, dir, "a.ts"), "export const a = 1;\n");
  }
  fs.mkdirSync(path.join(ws, ".git", "info"), { recursive: true });
  fs.symlinkSync("/dev/tty", path.join(ws, ".git", "info", "exclude"));
  const pathDirs = [fakeBinDir(), path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);
  // The model is never called: the editor and commands only.
  pi = await startTuiPi({ name, scratch, cwd: ws, baseUrl: "http://127.0.0.1:9", pathDirs });
});

after(() => {
  pi?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

test("links to the terminal in the repository never take Pi's keyboard", { skip, timeout: 60000 }, async () => {
  const screen = () => pi.screen();
  await waitFor(() => /⬡ codegraph/u.test(screen()), { timeoutMs: 20000, what: "Pi's status bar" });
  const typed = "every one of these 43 characters reaches Pi";
  pi.type(typed);
  await waitFor(() => screen().includes(typed), { timeoutMs: 10000, what: "the typed text in Pi's editor" });
  pi.keys("C-u"); // the editor emptied again
  pi.type("/codegraph");
  pi.keys("Enter");
  await waitFor(() => /pi-codegraph: ready/u.test(screen()), { timeoutMs: 10000, what: "/codegraph's report" });
  pi.keys("C-d");
  const ended = () => spawnSync("tmux", ["-L", name, "has-session", "-t", name], { stdio: "ignore" }).status !== 0;
  await waitFor(ended, { timeoutMs: 10000, what: "Pi to end on Ctrl+D" });
});
