// One process 'exit' hook for the whole backend, registered lazily on first use: running CLI
// groups are SIGKILLed and full-output files deleted when the host exits (process.exit()
// included). Node differs: a host killed by SIGKILL runs no code at all, so its CLI group then
// lives on until it ends by itself (the addon arms a watchdog, crates/core/src/host_watch.rs).

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

module.exports = { onHostExit };
