// The Node runner's walk for changed source files, the twin of crates/core/src/source_changes.rs:
// the same walk (source-walk.js), metadata only, the same bounds in the same order, the same
// result; "written" is the earlier of a file's modification and change times (contract/files.js
// `writtenMs`: a modification time set in the future is not a write after the index). Runs in
// the source worker. Where the optional `ignore` package is not installed, no `.gitignore` is
// read and the outcome says `gitignoreUnread: true`.

const { writtenMs } = require("../../contract/files.js");
const { gitignoreReadable, shownPath, sourceFiles, stopper } = require("./source-walk.js");

/**
 * The files of `walk.extensions` under `cwd` written after `walk.sinceMs` (lib/contract/source-changes.js
 * builds the request): `{ paths (the first maxPaths), changed, filesSeen, ignoreFilesCut, stopped }`.
 */
function changedSource(cwd, walk, cancel = null) {
  const started = Date.now();
  const extensions = new Set(walk.extensions.map((e) => e.toLowerCase()));
  // Rounded up to a whole millisecond, as the addon takes it.
  const sinceMs = Number.isFinite(walk.sinceMs) && walk.sinceMs > 0 ? Math.ceil(walk.sinceMs) : 0;
  const out = { paths: [], changed: 0, filesSeen: 0, ignoreFilesCut: 0 };
  if (!gitignoreReadable()) out.gitignoreUnread = true;
  const state = {};
  const stop = stopper(started, walk.deadlineMs, cancel, state);
  for (const { abs, extension, stat } of sourceFiles(cwd, walk, stop, state)) {
    if (!extensions.has(extension)) continue;
    if (out.filesSeen >= walk.maxFiles) {
      out.stopped = "files";
      break;
    }
    out.filesSeen += 1;
    if (writtenMs(stat) <= sinceMs) continue;
    out.changed += 1;
    if (out.paths.length < walk.maxPaths) out.paths.push(shownPath(cwd, abs));
  }
  out.ignoreFilesCut = state.ignoreFilesCut ?? 0;
  out.stopped ??= state.stopped;
  if (!out.stopped) delete out.stopped;
  return out;
}

module.exports = { changedSource };
