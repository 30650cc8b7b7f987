// A write's progress while it runs (`/codegraph init`, `sync`, `rebuild`…, and init's copy of
// another worktree's index): Pi's bordered loader in the terminal (Esc stops it), elsewhere the
// status slot once a second, which `/codegraph cancel` names.

const { lastLines, writeProgress } = require("../../contract/index-status.js");
const { canBuildProgressBox, progressBox } = require("./progress-box.js");
const { loaderText, progressText } = require("../../words/verbs.js");

/** How often the progress line is redrawn (our own clock; the CLI may print nothing for long). */
const PROGRESS_TICK_MS = 1000;

/**
 * Runs `work(onProgress)` while showing its progress: in the TUI a bordered loader (progress-box.js; Esc aborts
 * `controller`), elsewhere with a UI the status slot at most once a second. Resolves with the
 * outcome `{ value } | { error }`.
 */
async function withProgress(verb, ctx, peers, controller, work) {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  let latest = {};
  let redraw = () => {};
  const onProgress = (p) => {
    const now = writeProgress(typeof p?.tail === "string" ? p.tail : lastLines(p?.text));
    // A count whose phase line has left the tail is still that phase's: the label stays.
    latest = now.phase === undefined && latest.phase !== undefined ? { ...now, phase: latest.phase } : now;
    redraw();
  };
  const outcome = work(onProgress).then(
    (value) => ({ value }),
    (error) => ({ error }),
  );
  if (!ctx.hasUI) return outcome;
  const ui = ctx.ui;
  let inTui = false;
  // The terminal UI only (Pi's rule: custom() is for ctx.mode "tui"; a host without mode is judged
  // by whether it has custom()).
  const tui = ctx.mode === undefined || ctx.mode === "tui";
  if (tui && typeof ui.custom === "function" && canBuildProgressBox(peers)) {
    try {
      await ui.custom((tuiHost, theme, _keybindings, done) => {
        inTui = true;
        const box = progressBox(peers, tuiHost, theme, loaderText(verb, latest, 0), () => controller.abort());
        redraw = () => box.setMessage(loaderText(verb, latest, elapsed()));
        const tick = setInterval(redraw, PROGRESS_TICK_MS);
        outcome.then(() => {
          clearInterval(tick);
          box.dispose();
          done(undefined);
        });
        return box.component;
      });
    } catch {}
  }
  if (inTui) return outcome;
  // No custom UI (rpc: custom() returns undefined): the status slot, which `/codegraph cancel` names.
  let shown;
  redraw = () => {};
  const post = () => {
    const text = progressText(verb, latest, elapsed(), true);
    if (text !== shown) ui.setStatus("codegraph", text);
    shown = text;
  };
  post();
  const tick = setInterval(post, PROGRESS_TICK_MS);
  try {
    return await outcome;
  } finally {
    clearInterval(tick);
  }
}

module.exports = { withProgress };
