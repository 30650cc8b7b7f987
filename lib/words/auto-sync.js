// The words of auto sync (lib/pi/auto-sync.js, `/codegraph sync auto|manual`:
// lib/pi/commands/sync-mode.js): loaded with the session, so apart from lib/words/verbs.js.

const { shownPath } = require("./paths.js");

/** `/codegraph sync `'s modes, as the completion lists them. */
const SYNC_MODE_LINES = {
  auto: "Sync the index after every turn that changes indexed files (kept for this workspace)",
  manual: "Sync only when /codegraph sync is typed (the default)",
};

/** How the status slot says auto sync: on, or syncing now. */
const autoSlotText = (sync) => (sync?.syncing ? " · syncing (auto)" : sync?.on ? " · auto" : "");

/** `/codegraph sync auto` done (`file`: where the choice was kept, or null when it could not be). */
function autoOnText(file, why) {
  return [
    "/codegraph sync auto: on. After each turn that changes files CodeGraph indexes, the index is synced in the background; the tools' calls meanwhile wait for it. Where the native addon runs, one CodeGraph kept running for the session answers explore and node (faster than a process per call); while it runs, CodeGraph refuses another of its servers, or a `codegraph index` typed outside Pi, on this project.",
    file
      ? `Kept for this workspace (${shownPath(file)}). /codegraph sync manual turns it off; /codegraph cancel stops a sync.`
      : `Not kept for later sessions (${why}); on for this session. /codegraph sync manual turns it off.`,
  ].join("\n");
}

/** `/codegraph sync auto` where nothing may run (an untrusted project: `problem`, the diagnosis' words). */
const autoRefusedText = (problem) => `/codegraph sync auto: not turned on: ${String(problem ?? "").split("\n")[0]}`;

/** `/codegraph sync manual` done. */
function autoOffText(file, why) {
  return [
    "/codegraph sync manual: auto sync off. /codegraph sync brings the index up to date when you ask.",
    file ? `Kept for this workspace (${shownPath(file)}).` : `Not kept for later sessions (${why}).`,
  ].join("\n");
}

/** An auto sync the user stopped: auto stays on. */
const autoSyncCancelledText = () =>
  "Auto sync: cancelled, CodeGraph stopped mid-write; the index may be partial until /codegraph sync finishes the update. Auto stays on (/codegraph sync manual turns it off).";

/**
 * An auto sync that failed: said once, in the words of a typed sync's failure (lib/words/verbs.js,
 * loaded only now); auto is off (`saved`: that was kept for the workspace too).
 */
function autoSyncFailedText(err, saved, durationMs) {
  const { failedText } = require("./verbs.js");
  return [
    `Auto sync, after the last turn: ${failedText("sync", err, { durationMs, subcommand: "sync" })}`,
    `Auto sync is off${saved ? "" : " for this session"}: /codegraph sync runs it by hand; /codegraph sync auto turns it on again.`,
  ].join("\n");
}

/** What the last decision after a turn came to (lib/pi/auto-sync.js `last.outcome`). */
const LAST_OUTCOMES = {
  synced: (ms) => `synced in ${ms} ms`,
  busy: () => "another CodeGraph process was writing the index, so none was started",
  notReady: () => "the index was not ready (see above), so none was started",
  unchanged: () => "no file CodeGraph indexes had changed",
  cancelled: () => "the sync was cancelled",
  failed: () => "the sync failed",
};

/**
 * What `/codegraph doctor` says of the mode, of the last decision when auto is on, and of the
 * long-lived CodeGraph that answers explore and node meanwhile (`servers`: `[{ cwd, pid }]`).
 */
function autoReportLine(sync, servers = []) {
  if (!sync?.on) return "sync: manual (/codegraph sync auto to follow edits)";
  const last = sync.last && LAST_OUTCOMES[sync.last.outcome]?.(sync.last.durationMs);
  const mode = `sync: auto${last ? `; after the last turn: ${last}` : " (after each turn that changes indexed files)"}`;
  const [server] = servers;
  return server
    ? `${mode}; explore and node answered by one CodeGraph kept running for this session (pid ${server.pid}; it holds the index until the session ends)`
    : mode;
}

module.exports = {
  SYNC_MODE_LINES,
  autoOffText,
  autoOnText,
  autoRefusedText,
  autoReportLine,
  autoSlotText,
  autoSyncCancelledText,
  autoSyncFailedText,
};
