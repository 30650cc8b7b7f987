// Which files CodeGraph would see as changed since its index was written, as a walk can tell
// without opening the index: the files of the extensions CodeGraph 1.6.1 indexes
// (dist/extraction/grammars.js EXTENSION_MAP; `__test__/source-changes.test.mjs` compares this
// list with the pinned CLI's), outside what its indexer skips, modified after the index's last
// write. Both runners' `changedSource` take this request (crates/core/src/source_changes.rs).

const { skippedDirs } = require("./definitions.js");

// biome-ignore format: one list, in CodeGraph's order
const CODEGRAPH_EXTENSIONS = [
  "ts", "tsx", "mts", "cts", "ets", "js", "mjs", "cjs", "xsjs", "xsjslib", "jsx", "py", "pyw",
  "go", "rs", "java", "c", "h", "cpp", "cc", "cxx", "hpp", "hxx", "cs", "cshtml", "razor", "php",
  "module", "install", "theme", "inc", "yml", "yaml", "twig", "rb", "rake", "swift", "kt", "kts",
  "dart", "liquid", "svelte", "vue", "astro", "r", "pas", "dpr", "dpk", "lpr", "dfm", "fmx",
  "scala", "sc", "lua", "luau", "m", "mm", "sol", "cfc", "cfm", "cfs", "metal", "cu", "cuh", "nix",
  "xml", "cbl", "cob", "cobol", "cpy", "vb", "erl", "hrl", "escript", "properties", "tf", "tfvars",
  "tofu",
];

/** The walk's bounds: it runs after shell commands and before turns, so it must cost next to nothing. */
const CHANGE_WALK_LIMITS = { maxFiles: 50000, maxPaths: 1000, deadlineMs: 300 };

/**
 * The request (`changedSource`'s second argument) for the files written after `sinceMs`; with
 * `paths` (the candidates git names, lib/api/disk-changes.js), those alone are looked at, no walk.
 */
function sourceChangesRequest(sinceMs, { indexDir, paths } = {}) {
  const only = Array.isArray(paths) ? { paths } : {};
  return { extensions: CODEGRAPH_EXTENSIONS, ...skippedDirs(indexDir), sinceMs, ...CHANGE_WALK_LIMITS, ...only };
}

module.exports = { CHANGE_WALK_LIMITS, CODEGRAPH_EXTENSIONS, sourceChangesRequest };
