// Changes no Pi tool reported (a shell command, the user's editor): the source files written
// after each root's index, from the runner's bounded walk (`changedSource`: metadata only,
// lib/contract/source-changes.js's extensions and skipped directories). The index is only
// `stat`ed for its last write; a root whose index time is unknown, or whose walk fails, is left out.

const path = require("node:path");
const { sourceChangesRequest } = require("../contract/source-changes.js");
const { indexWrittenAt } = require("./staleness.js");

/**
 * `roots`: `[{ dir, indexDir }]` (the index directory each diagnosis found). Resolves with
 * `[{ dir, files, more, cut }]`: the changed files (absolute) under each root, whether the walk
 * found more than it lists or stopped at a bound before the end (then there may be more), and
 * `cut` (`{ stopped, filesSeen }`, or null) when a bound (its time, its files) ended the walk:
 * then changes past what it read are not counted.
 */
async function changedSinceIndex(changedSource, roots) {
  if (typeof changedSource !== "function") return [];
  const found = [];
  for (const { dir, indexDir } of roots) {
    const since = await indexWrittenAt(indexDir);
    if (since === null) continue;
    let walked;
    try {
      walked = await changedSource(dir, sourceChangesRequest(since, { indexDir }));
    } catch {
      continue;
    }
    const files = walked.paths.map((p) => path.resolve(dir, ...p.split("/")));
    const more = walked.changed > walked.paths.length || (walked.changed > 0 && Boolean(walked.stopped));
    const cut = walked.stopped ? { stopped: walked.stopped, filesSeen: walked.filesSeen } : null;
    found.push({ dir, files, more, cut });
  }
  return found;
}

module.exports = { changedSinceIndex };
