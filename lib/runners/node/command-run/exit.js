// What a failed run means (crates/core/src/command_run/exit.rs): a vanished or locked workspace, an
// index this user cannot access, one the CLI cannot use, or a failure with its stderr tail.

const os = require("node:os");
const path = require("node:path");
const { indexBlocked, workspaceBlocked } = require("../access.js");
const { Problem, indexReadOnly, noIndex } = require("../../../contract/problems.js");
const { CLI_NO_INDEX_MARKER, COMMON_SIGNALS } = require("../../../contract/limits.js");
const { STDOUT_EXCERPT_BYTES, isContinuation } = require("../../../contract/limits.js");

/** What CodeGraph 1.6.1 prints when it cannot open its index read-write. */
const CLI_READONLY_MARKERS = ["attempt to write a readonly database", "SQLITE_READONLY"];
/**
 * SQLite's SQLITE_CANTOPEN: the database (or its directory, -wal, -shm) cannot be opened, as on a
 * read-only mount, for a file this user may not read, or once the workspace is gone.
 */
const CLI_CANTOPEN_MARKERS = ["unable to open database file", "SQLITE_CANTOPEN"];
/** SQLite's SQLITE_CORRUPT and SQLITE_NOTADB: a valid header over truncated or damaged pages. */
const CLI_CORRUPT_MARKERS = [
  "database disk image is malformed",
  "file is not a database",
  "SQLITE_CORRUPT",
  "SQLITE_NOTADB",
];

/** How long the checks after a failure may take (a hung mount must not hold the answer). */
const CAUSE_WAIT_MS = 1000;

/**
 * After a failed spawn or exit: whether the workspace vanished or was locked (and, with `dir`,
 * whether the index paths are accessible); null when the filesystem does not answer within
 * CAUSE_WAIT_MS (command_run/checks.rs `blocked_cause`).
 */
function blockedCause(workspace, dir) {
  return withinCauseWait(dir ? indexBlocked(workspace, dir) : workspaceBlocked(workspace));
}

/** What `probe` finds, or null when it fails or takes longer than CAUSE_WAIT_MS. */
function withinCauseWait(probe) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, CAUSE_WAIT_MS, null);
  });
  return Promise.race([probe.catch(() => null), late]).finally(() => clearTimeout(timer));
}

/**
 * What a non-zero exit means: a vanished workspace, an index this user cannot access, one the CLI
 * cannot use, or a failure with its stderr tail.
 */
async function classifyExit(out, workspace, index) {
  const said = (markers) => markers.some((m) => out.stderrTail.includes(m));
  // Whatever the CLI said, a workspace that vanished or an index this user cannot access is the
  // cause (its own words for them are "unable to open database file" or uv_cwd's ENOENT).
  const readonly = said(CLI_READONLY_MARKERS);
  const cannotOpen = readonly || said(CLI_CANTOPEN_MARKERS) || said([CLI_NO_INDEX_MARKER]);
  const blocked = await blockedCause(workspace, cannotOpen ? index.dir : undefined);
  if (blocked) return blocked;
  if (said([CLI_NO_INDEX_MARKER, ...CLI_CORRUPT_MARKERS])) {
    // Our preflight saw a database file, but the CLI could not use it (a corrupt file, say).
    const db = path.join(index.dir, "codegraph.db");
    return noIndex(workspace, { is: "cliCannotUse", path: db }, { is: "unusable", db });
  }
  if (readonly) return indexReadOnly(index.dir, { is: "cliSaid" });
  const { code, signal } = out.status;
  const signum = signal ? (os.constants.signals[signal] ?? null) : null;
  const signalName = COMMON_SIGNALS.includes(signal) ? signal : undefined;
  // The start of stdout, for when stderr said nothing (the CLI prints its validation errors there).
  let stdoutExcerpt;
  if (out.stdout.text.trim()) {
    const buf = Buffer.from(out.stdout.text);
    let end = Math.min(buf.length, STDOUT_EXCERPT_BYTES);
    while (isContinuation(buf[end])) end -= 1;
    stdoutExcerpt = buf.subarray(0, end).toString();
  }
  return new Problem("CODEGRAPH_EXIT", {
    exitCode: code,
    signal: signum,
    signalName,
    stderrTail: out.stderrTail,
    stdoutExcerpt,
  });
}

module.exports = { blockedCause, classifyExit, withinCauseWait };
