// The CLI's process group dies with its host, however the host ends (Unix), as the addon's
// crates/core/src/host_watch.rs does it: once per host, a tiny reaper (/bin/sh) holds the read end of a pipe
// whose write end only the host holds. The runner tells it which process groups are live
// ("w <pgid>" / "u <pgid>" lines); when the host dies (SIGKILL included, which runs no code),
// the kernel closes the write end, the reaper reads EOF and SIGKILLs every group still live.
// One process per host and two short pipe writes per run. The reaper gets an empty environment
// and does not keep the host alive.

const { spawn } = require("node:child_process");
const { IS_WINDOWS } = require("./limits.js");

const REAPER_SCRIPT = [
  'g=" "',
  'while read -r op pg; do case "$op" in w) g="$g$pg " ;; u) case "$g" in *" $pg "*) g="${g%% $pg *} ${g#* $pg }" ;; esac ;; esac; done',
  'for pg in $g; do kill -9 -"$pg" 2>/dev/null; done',
].join("\n");
/** The reaper's stdin, null until started, false if it could not be. */
let reaperInput = null;

function reaper() {
  if (reaperInput !== null) return reaperInput;
  reaperInput = false;
  if (IS_WINDOWS) return reaperInput;
  try {
    const child = spawn("/bin/sh", ["-c", REAPER_SCRIPT], {
      detached: true, // its own group: a kill of a CLI group never reaches it
      stdio: ["pipe", "ignore", "ignore"],
      env: {},
    });
    child.on("error", () => {
      reaperInput = false;
    });
    child.stdin.on("error", () => {
      reaperInput = false;
    });
    child.unref();
    child.stdin.unref?.();
    reaperInput = child.stdin;
  } catch {
    reaperInput = false;
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

module.exports = { watchGroup, unwatchGroup };
