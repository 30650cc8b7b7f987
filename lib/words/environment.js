// Why the child's environment did not get a variable's entry, worded from the tag a runner
// returns (crates/core/src/environment/code_paths.rs `DropReason`, on both runners):
// the `envDropped` rows of `details`, `diagnose()`, doctor and /codegraph.

const { shownPath } = require("./paths.js");

const DROP_REASONS = {
  empty: () => "empty: it means the working directory, the workspace",
  relative: () => "relative: it resolves against the workspace",
  inside: () => "inside the workspace",
  perProcess: () => "it names the reading process's own files (/proc/self/cwd is the workspace)",
  nodeOptionsUnreadable: () => "not readable as Node reads NODE_OPTIONS",
  readsWorkspaceFile: () => "reads a file from the workspace",
  loadsInside: () => "loads a file inside the workspace",
  loadsRelative: () => "loads a module by a relative path or bare name, found from the workspace",
};

/** `[{ variable, entry, reason: tag }]` as shown: the entry printable and bounded, the reason worded. */
function wordedDropped(list) {
  if (!Array.isArray(list)) return list;
  return list.map(({ variable, entry, reason }) => {
    const words = DROP_REASONS[reason];
    return {
      variable,
      entry: shownPath(entry),
      reason: words ? words() : `(unnamed reason ${JSON.stringify(reason)})`,
    };
  });
}

/** `obj` with its `envDropped` worded (the object itself when it has none). */
function withWordedDropped(obj) {
  return obj && Array.isArray(obj.envDropped) ? { ...obj, envDropped: wordedDropped(obj.envDropped) } : obj;
}

module.exports = { DROP_REASONS, wordedDropped, withWordedDropped };
