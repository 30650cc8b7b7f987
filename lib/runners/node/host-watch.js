// The CLI's process group dies with its host, however the host ends (Unix), as the addon's
// crates/core/src/host_watch.rs does it: once per host, a tiny reaper (/bin/sh) holds the read end of a pipe
// whose write end only the host holds. The runner tells it which process groups are live
// ("w <pgid>" / "u <pgid>" lines); when the host dies (SIGKILL included, which runs no code),
// the kernel closes the write end, the reaper reads EOF and SIGKILLs every group still live.
// One process per host and two short pipe writes per run. The reaper gets an empty environment
// and does not keep the host alive. On a normal exit (process.exit() included) one 'exit' hook
// also SIGKILLs the running groups and deletes full-output files at once (`onHostExit`); on
// Windows, where no reaper runs, that hook is the only guard.

const { spawn } = require("node:child_process");
const { IS_WINDOWS } = require("../../contract/limits.js");

const hostExitTasks = [];
let hostExitHooked = false;

/** Runs `task` (once per registration) when this process exits. */
function onHostExit(task) {
  if (!hostExitTasks.includes(task)) hostExitTasks.push(task);
  if (hostExitHooked) return;
  hostExitHooked = true;
  process.once("exit", () => {
    for (const t of hostExitTasks) {
      try {
        t();
      } catch {} // one failing task must not stop the others
    }
  });
}

const REAPER_SCRIPT = [
  'g=" "',
  'while read -r op pg; do case "$op" in w) g="$g$pg " ;; u) case "$g" in *" $pg "*) g="${g%% $pg *} ${g#* $pg }" ;; esac ;; esac; done',
  'for pg in $g; do kill -9 -"$pg" 2>/dev/null; done',
].join("\n");
/**
 * The reaper's stdin, null while none runs. One that could not be started (no descriptor or
 * process left) or has gone is started again by the next run.
 */
let reaperInput = null;

function reaper() {
  if (reaperInput !== null || IS_WINDOWS) return reaperInput;
  try {
    const child = spawn("/bin/sh", ["-c", REAPER_SCRIPT], {
      detached: true, // its own group: a kill of a CLI group never reaches it
      stdio: ["pipe", "ignore", "ignore"],
      env: {},
    });
    child.on("error", () => {
      if (reaperInput === child.stdin) reaperInput = null;
    });
    if (child.pid === undefined || !child.stdin) return null; // the 'error' event follows
    child.stdin.on("error", () => {
      if (reaperInput === child.stdin) reaperInput = null;
    });
    child.unref();
    child.stdin.unref?.();
    reaperInput = child.stdin;
  } catch {
    reaperInput = null;
  }
  return reaperInput;
}

/** Registers a live process group with the reaper (starting it on first use). */
function watchGroup(pgid) {
  const input = reaper();
  if (input && pgid) input.write(`w ${pgid}\n`);
}

/** The group has been killed: the reaper forgets it. */
function unwatchGroup(pgid) {
  if (reaperInput && pgid) reaperInput.write(`u ${pgid}\n`);
}

module.exports = { onHostExit, watchGroup, unwatchGroup };
