// Sync that follows the agent, when the user turns it on (`/codegraph sync auto`; `manual` turns
// it off; off by default): after a turn in which files of the languages CodeGraph indexes changed
// under the workspace (Pi's edits and writes, a shell command, the user's editor: the session's
// ledger, lib/api/edit-ledger.js), CodeGraph's incremental sync runs in the background through the
// same runner and the same one-write-at-a-time rule as a typed `/codegraph sync` (so
// `/codegraph cancel` stops it, and a typed write meanwhile is refused as busy). The model's calls
// started meanwhile wait for it, at most as long as a read waits for any writer
// (WRITER_WAIT_MS), then answer from the index as it is (their stale-files line says what is
// behind). Another writer on the index (a second Pi, the user's CLI) is left alone: that turn
// syncs nothing. A failure is said once and turns it back to manual. The choice is the user's,
// kept per project in Pi's agent directory (never in the repository): the model never writes the
// index.

const path = require("node:path");
const { readSaved, savedFile, saveJson } = require("./tools/choice.js");
const { runningWrites } = require("./commands/running-writes.js");
const { coveringDir } = require("../api/edit-ledger.js");
const { isIndexedLanguage } = require("../api/git-diff.js");
const { staleCheckBy } = require("../api/staleness.js");
const { WRITER_WAIT_MS } = require("../contract/limits.js");
const { verbCommand } = require("../contract/verbs.js");
const { autoSyncCancelledText, autoSyncFailedText } = require("../words/auto-sync.js");

/** The kind of saved choice (lib/pi/tools/choice.js savedFile): one small file per project. */
const SYNC_KIND = "sync";
/** The sync modes the user types after `/codegraph sync`. */
const SYNC_MODES = ["auto", "manual"];

/** Whether auto sync is saved on for `cwd`: `{ on }`, with `problem` when the saved file could not be used (then off). */
function loadSyncMode(agentDir, cwd) {
  const { file, data, absent, problem } = readSaved(agentDir, cwd, SYNC_KIND);
  if (absent) return { on: false };
  if (problem) return { on: false, problem };
  const mode = data?.sync;
  return SYNC_MODES.includes(mode) ? { on: mode === "auto" } : { on: false, problem: `${file}: no sync mode` };
}

/** Saves the mode for `cwd` (temp file, then rename). Returns the file or throws. */
function saveSyncMode(agentDir, cwd, on) {
  const data = { project: path.resolve(cwd), sync: on ? "auto" : "manual", savedAt: new Date().toISOString() };
  return saveJson(savedFile(agentDir, cwd, SYNC_KIND), data);
}

/** The problem codes after which auto sync stays on: another writer (nothing was run), and the user's cancel. */
const NOT_FAILURES = new Set(["CODEGRAPH_INDEX_BUSY", "CODEGRAPH_CANCELLED"]);

/**
 * What auto sync keeps while it is on, ended (auto sync off, failed, or the session's end): the
 * watches of large trees, and the long-lived CodeGraph (resolves once its whole tree is stopped).
 */
function releaseKept(glue) {
  glue.unwatchChanges?.();
  return glue.stopWarm?.();
}

/**
 * The session's auto sync over `state` (lib/pi/session-state.js: the ledger, readiness, the
 * roots, refresh and walkChanges), `glue` (run) and `say(ctx, text, type)`; `slot(ctx)` redraws
 * the status slot. `on` starts as saved for `cwd`.
 */
function createAutoSync({ state, glue, cwd, on, say, slot }) {
  const ws = path.resolve(cwd);
  // The session may have ended while a sync ran: Pi's ctx is stale then, and nobody is left to tell.
  const tell = (ctx, text, type) => {
    try {
      say(ctx, text, type);
    } catch {}
  };
  const redraw = (ctx) => {
    try {
      slot(ctx);
    } catch {}
  };
  /** When the last sync began: an edit noted before it was that sync's to bring in. */
  let lastStarted = Number.NEGATIVE_INFINITY;
  /** A turn ended while a decision or a sync was under way. */
  let again = false;
  const sync = {
    on,
    /** The background sync running now (its decision included), or null. */
    running: null,
    /** Whether a CodeGraph sync process of ours runs now (for the status slot). */
    syncing: false,
    /** What the last decision after a turn came to (`{ outcome, durationMs? }`), for /codegraph doctor; none yet: undefined. */
    last: undefined,
    /** Resolves once no sync of ours runs, or after `ms`, whichever comes first, with the milliseconds waited (0: none ran); never rejects. */
    async settled(ms = WRITER_WAIT_MS) {
      if (!sync.running) return 0;
      const started = performance.now();
      await staleCheckBy(() => sync.running, ms, undefined);
      return Math.max(1, Math.round(performance.now() - started));
    },
    /**
     * After a turn: a sync in the background when auto is on and the workspace's indexed files
     * changed. Asked again while one decides or runs, it decides once more after it (what changed
     * meanwhile was not that sync's).
     */
    afterTurn(ctx) {
      if (!sync.on) return;
      if (sync.running) {
        again = true;
        return;
      }
      // Nothing new under the workspace and no walk under way: decided at once, nothing started.
      if (!state.walkInFlight() && !changedHere()) {
        sync.last = { outcome: "unchanged" };
        return;
      }
      sync.running = (async () => {
        try {
          do {
            again = false;
            await syncIfChanged(ctx).catch(() => {});
          } while (again && sync.on);
        } finally {
          // In the same step as the last check of `again`: a turn ending now starts a new run.
          sync.running = null;
        }
      })();
    },
    /** The user turned it on or off (`/codegraph sync auto|manual`): the slot says so at once. */
    set(on, ctx) {
      sync.on = on;
      // Off: no CodeGraph outlives a call again, and nothing is watched.
      if (!on) releaseKept(glue);
      redraw(ctx);
    },
  };

  /** Whether the ledger holds a file of an indexed language under the workspace's own index, noted since the last sync began. */
  function changedHere() {
    const dirs = [ws, ...state.toolRoots().map((r) => path.resolve(r.dir))];
    const ours = (file) => coveringDir(dirs, file) === ws && isIndexedLanguage(file);
    return state.ledger.filesNotedAfter(lastStarted).some(ours);
  }

  /** Why no sync starts now (another writer, an index not ready, nothing changed), or null. */
  function skipReason() {
    // As last checked (after every call): another writer then, or not ready (no index of its own,
    // untrusted, no CLI). A writer that started since is the runner's to refuse (CODEGRAPH_INDEX_BUSY).
    if (state.diagnosis?.problemCode === "CODEGRAPH_INDEX_BUSY") return "busy";
    if (!state.diagnosis?.ready || runningWrites.has(ws)) return "notReady";
    return changedHere() ? null : "unchanged";
  }

  async function syncIfChanged(ctx) {
    // A walk under way (after a shell command, before the turn): what it finds counts. Bounded by its own deadline.
    await state.walkInFlight();
    const skipped = skipReason();
    if (skipped) {
      sync.last = { outcome: skipped };
      return;
    }
    const controller = new AbortController();
    runningWrites.set(ws, { verb: "sync", controller, auto: true });
    lastStarted = Date.now();
    sync.syncing = true;
    redraw(ctx);
    let error;
    const started = performance.now();
    try {
      await glue.run(verbCommand("sync"), ws, controller.signal);
    } catch (err) {
      error = err;
    } finally {
      runningWrites.delete(ws);
      sync.syncing = false;
    }
    const outcome = !error
      ? "synced"
      : error.code === "CODEGRAPH_INDEX_BUSY"
        ? "busy"
        : error.code === "CODEGRAPH_CANCELLED"
          ? "cancelled"
          : "failed";
    sync.last = { outcome, durationMs: Math.round(performance.now() - started) };
    state.indexWritten();
    await state.refresh(ctx);
    if (error?.code === "CODEGRAPH_CANCELLED") tell(ctx, autoSyncCancelledText(), "warning");
    else if (error && !NOT_FAILURES.has(error.code)) {
      sync.on = false; // said once: the next turn runs nothing
      releaseKept(glue);
      let saved = true;
      try {
        saveSyncMode(state.agentDir, ws, false);
      } catch {
        saved = false;
      }
      tell(ctx, autoSyncFailedText(error, saved, sync.last.durationMs), "error");
    }
    redraw(ctx);
  }

  return sync;
}

module.exports = { SYNC_MODES, createAutoSync, loadSyncMode, releaseKept, saveSyncMode };
