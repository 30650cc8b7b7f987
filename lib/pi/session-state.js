// What one Pi session of the extension knows, as one object with named fields. Only the session
// (lib/pi/session.js) sets what it learns (readiness, the roots, the peers); the commands and the
// tool change it through the methods below, each named for what happened.

const { createEditLedger } = require("../api/edit-ledger.js");
const { DEFAULT_TOOLS } = require("./tools/choice.js");

class SessionState {
  /** The workspace's own diagnosis (lib/api/calls.js diagnose) as last checked. */
  diagnosis = undefined;
  /** The last tool call's failure (`{ at, message }`), for the report; none after a success. */
  lastError = undefined;
  /** Full-output files this session's answers left, released at session end. */
  fullOutputs = [];
  /** Pi's modules the glue draws with (index.d.ts Peers), from session_start on. */
  peers = undefined;
  /** Pi's agent directory, where the tools' choice and the added roots are saved. */
  agentDir = undefined;
  /** Pi's own edits and writes newer than the index (lib/api/staleness.js). */
  ledger = createEditLedger();
  /** The focused tools this copy registered (a name another extension took stays theirs). */
  focused = [];
  /** The tools registered before ours: name → whose. */
  taken = new Map();
  /** The user's choice of focused tools: `{ names, source }` (default, env, saved, session). */
  choice = { names: [...DEFAULT_TOOLS], source: "default" };
  /** The last scan below the workspace (lib/pi/roots/scan.js), and the one running, if any. */
  scan = undefined;
  scanning = undefined;
  /** The directories the user added (/codegraph projects add). */
  added = { dirs: [] };
  /** The roots now, each with `indexed`, and the diagnosis of each one other than the workspace. */
  roots = [];
  rootDiagnoses = new Map();
  /** Auto sync (lib/pi/auto-sync.js): `on`, `syncing`, `settled()`, `afterTurn(ctx)`; set at the start. */
  autoSync = undefined;
  /** The status slot's text as last shown (only a change reaches the UI). */
  shownStatus = undefined;
  /** The readiness the tools' words were last registered with (wordedReadiness). */
  worded = undefined;

  /** The roots a tool can answer from (those with an index now that the model is offered). */
  toolRoots() {
    return this.roots.filter((r) => r.indexed && r.offered);
  }
  /** The roots a verb can name: every one with an index now, offered to the model or not. */
  verbRoots() {
    return this.roots.filter((r) => r.indexed);
  }
  /** A root's readiness: the workspace's own diagnosis for ".", else its own. */
  diagnosisOf(root) {
    return root.source === "workspace" ? this.diagnosis : (this.rootDiagnoses.get(root.dir) ?? this.diagnosis);
  }
  /**
   * The readiness the tools' words follow: the workspace's (no roots, or only its own), the only
   * root's, or with several the first ready one (each call says its own root's problem).
   */
  serving() {
    const roots = this.toolRoots();
    if (roots.length === 0) return this.diagnosis;
    const all = roots.map((r) => this.diagnosisOf(r));
    return all.find((d) => d?.ready) ?? all[0];
  }
  /**
   * The readiness the tools' words follow: serving(), but a write running on an index that was
   * ready (a sync, a rebuild) keeps the ready words, so a write the user started does not change
   * the prompt twice for nothing; a call meanwhile says the index is busy. (From no index, an
   * init's "indexing" words tell the model more than the words before it.)
   */
  wordedReadiness() {
    const now = this.serving();
    return now?.problemCode === "CODEGRAPH_INDEX_BUSY" && this.worded?.ready ? this.worded : now;
  }
  /** The focused tools on: chosen and registered by this copy. */
  activeFocused() {
    return this.focused.filter((n) => this.choice.names.includes(n));
  }

  /** /codegraph tools chose `names` (`saved`: kept for the project; else for this session only). */
  toolsChosen(names, saved) {
    this.choice = { names, source: saved ? "saved" : "session" };
  }
  /** /codegraph projects add or remove left these added directories. */
  addedRootsAre(dirs) {
    this.added = { dirs };
  }
  /** An index was written: the slot is said again whatever it showed. */
  indexWritten() {
    this.shownStatus = undefined;
  }
  /** A tool call ended: `err` its failure, or none. */
  callEnded(err) {
    this.lastError = err ? { at: new Date().toISOString(), message: err.message } : undefined;
  }
}

module.exports = { SessionState };
