// The Node runner's walk for changed source files, the twin of crates/core/src/source_changes.rs:
// the same walk (source-walk.js), metadata only, the same bounds in the same order, the same
// result. Where the optional `ignore` package is not installed, no `.gitignore` is read and the
// outcome says `gitignoreUnread: true`.

const fsp = require("node:fs/promises");
const { gitignoreReadable, shownPath, sourceFiles } = require("./source-walk.js");

/**
 * The files of `walk.extensions` under `cwd` written after `walk.sinceMs` (lib/contract/definitions.js
 * builds the request): `{ paths (the first maxPaths), changed, filesSeen, stopped }`.
 */
async function changedSource(cwd, walk) {
  const started = Date.now();
  const extensions = new Set(walk.extensions.map((e) => e.toLowerCase()));
  // Rounded up to a whole millisecond, as the addon takes it.
  const sinceMs = Number.isFinite(walk.sinceMs) && walk.sinceMs > 0 ? Math.ceil(walk.sinceMs) : 0;
  const out = { paths: [], changed: 0, filesSeen: 0 };
  if (!gitignoreReadable()) out.gitignoreUnread = true;
  for await (const { abs, extension, stopped } of sourceFiles(cwd, walk.skipDirs, started, walk.deadlineMs)) {
    if (stopped) {
      out.stopped = stopped;
      break;
    }
    if (!extensions.has(extension)) continue;
    if (out.filesSeen >= walk.maxFiles) {
      out.stopped = "files";
      break;
    }
    out.filesSeen += 1;
    const modified = await fsp.stat(abs).then(
      (s) => s.mtimeMs,
      () => null,
    );
    if (modified === null || modified <= sinceMs) continue;
    out.changed += 1;
    if (out.paths.length < walk.maxPaths) out.paths.push(shownPath(cwd, abs));
  }
  return out;
}

module.exports = { changedSource };
