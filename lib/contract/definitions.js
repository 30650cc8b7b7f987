// What a definition of a name looks like in the source, and the bounded scan that looks for one
// (both runners' `scanSource`: crates/core/src/source_scan.rs).
// The patterns keep to the regex syntax Rust's `regex` and JavaScript read alike (`\b`, `\s`,
// classes, non-capturing groups). What the scan skips is CodeGraph 1.6.1's indexer's
// (dist/extraction/index.js DEFAULT_IGNORE_DIRS and DEFAULT_IGNORE_PATTERNS; .gitignore at every
// depth and .git/info/exclude, which the runners' walks read); its extensions are those
// CodeGraph parses for symbols in the languages a pattern below knows (dist/extraction/grammars.js).

const path = require("node:path");
const { DEFAULT_INDEX_DIR } = require("./index-dir.js");

/** CodeGraph 1.6.1 skips a file larger than this (dist/extraction/file-limits.js). */
const CODEGRAPH_MAX_FILE_BYTES = 1024 * 1024;

/** Directory names CodeGraph's indexer never enters, `.git` and the index's own directory added by the caller. */
// biome-ignore format: one list, in CodeGraph's order
const CODEGRAPH_SKIPPED_DIRS = [
  "node_modules", "bower_components", "jspm_packages", "web_modules", ".yarn", ".pnpm-store",
  ".next", ".nuxt", ".svelte-kit", ".turbo", ".vite", ".parcel-cache", ".angular", ".docusaurus",
  "storybook-static", ".vinxi", ".nitro", "out-tsc", ".vercel", ".netlify", ".wrangler",
  "dist", "build", "out", ".output", "coverage", ".nyc_output",
  "__pycache__", "__pypackages__", ".venv", "venv", ".pixi", ".pdm-build", ".mypy_cache",
  ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".hypothesis", ".ipynb_checkpoints", ".eggs",
  "target", ".gradle", "obj", "vendor", ".build", "Pods", "Carthage", "DerivedData", ".swiftpm",
  ".dart_tool", ".pub-cache", ".cxx", ".externalNativeBuild", "vcpkg_installed", ".bloop", ".metals",
  "lua_modules", ".luarocks", "__history", "__recovery", ".cache",
  "*.egg-info", "cmake-build-*", "bazel-*",
];

/** The scan's bounds: it helps an answer, so it must never cost much. */
const SCAN_LIMITS = {
  maxFiles: 20000,
  /** Larger files are not read: CodeGraph skips those over 1 MiB; this reads 8 times that. */
  maxFileBytes: 8 * CODEGRAPH_MAX_FILE_BYTES,
  maxTotalBytes: 256 * 1024 * 1024,
  maxMatches: 12,
  deadlineMs: 1500,
};

/** Whether a scan's `stopped` is a bound that cut it before the end of the tree (its time, files or bytes). */
const cutByBound = (stopped) => stopped === "deadline" || stopped === "files" || stopped === "bytes";

/** A name the scan looks for: a plain identifier (a qualified name is never split into a guess). */
const isScannableName = (name) => typeof name === "string" && /^[A-Za-z_$][\w$]{1,99}$/u.test(name);

const escapeName = (name) => name.replace(/\$/gu, "\\$");

// The keywords that introduce a named definition, per family of languages. A local variable is no
// definition the index would have: `let`, `var` and a JavaScript `const` count only at the top of a
// file (no indentation); Rust has no top-level `let`.
const RUST = "fn|struct|enum|trait|type|mod|union|const|static|macro_rules!";
const SCRIPT = "function\\*?|class|interface|namespace|enum|type";
const PYTHON = "def|class";
const GO = "func|type";
// Kotlin, Swift, Scala, Ruby, PHP, C#, Java, Dart, Lua: their declarations of types and functions.
const OTHER =
  "class|interface|enum|struct|trait|object|protocol|extension|record|module|namespace|def|func|fun|function";

/** The extensions of each family of languages a pattern here knows (CodeGraph parses them for symbols). */
const FAMILY_EXTENSIONS = {
  rust: ["rs"],
  script: ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"],
  python: ["py", "pyw"],
  go: ["go"],
  other: ["java", "kt", "kts", "scala", "sc", "swift", "rb", "php", "cs", "dart", "lua", "luau"],
};

/** The family of `extension` (lowercase, without the dot), or undefined. */
const familyOf = (extension) => Object.keys(FAMILY_EXTENSIONS).find((f) => FAMILY_EXTENSIONS[f].includes(extension));

/** `names` (plain identifiers) as one alternation, `$` escaped for both regex engines. */
const nameAlternation = (names) => `(?:${names.map(escapeName).join("|")})`;

/** The rules for `names` (plain identifiers): one pattern per family of languages. */
function definitionRules(names) {
  const n = nameAlternation(names);
  const keyword = (words) => `\\b(?:${words})\\s+${n}\\b`;
  const modifiers =
    "(?:(?:export|default|declare|public|private|protected|static|async|readonly|override|abstract|get|set)\\s+)*";
  return [
    { extensions: FAMILY_EXTENSIONS.rust, pattern: keyword(RUST) },
    {
      extensions: FAMILY_EXTENSIONS.script,
      pattern: [
        keyword(SCRIPT),
        // A top-level variable: `export const runPromise = …`
        `^(?:export\\s+)?(?:declare\\s+)?(?:const|let|var)\\s+${n}\\b`,
        // A method: `  async runPromise<A>(effect: Effect<A>): Promise<A> {`
        `^\\s*${modifiers}\\*?${n}\\s*(?:<[^>]*>)?\\s*\\([^;]*\\)\\s*(?::[^;={]+)?\\{\\s*$`,
        // A property or field holding a function: `runPromise: function (`, `run = async (a) =>`
        `\\b${n}\\s*[:=]\\s*(?:async\\s+)?(?:function\\b|\\([^()]*\\)\\s*(?::[^=]+)?=>)`,
      ].join("|"),
    },
    { extensions: FAMILY_EXTENSIONS.python, pattern: `${keyword(PYTHON)}|^${n}\\s*(?::[^=]+)?=[^=]` },
    {
      extensions: FAMILY_EXTENSIONS.go,
      pattern: `${keyword(GO)}|^(?:var|const)\\s+${n}\\b|\\bfunc\\s*\\([^)]*\\)\\s*${n}\\b`,
    },
    {
      extensions: FAMILY_EXTENSIONS.other,
      pattern: keyword(OTHER),
    },
  ];
}

/**
 * The directories a walk of the source never enters: `skipExact`, names as written (`.git`, the
 * index directory's own name: `indexDir` as the runner found it, the default name without one; a
 * `CODEGRAPH_DIR` of `*` is a name, not a pattern), and `skipDirs`, CodeGraph's skipped ones,
 * where `*` stands for any run of characters.
 */
function skippedDirs(indexDir) {
  const indexDirName = typeof indexDir === "string" && indexDir !== "" ? path.basename(indexDir) : DEFAULT_INDEX_DIR;
  return { skipExact: [".git", indexDirName], skipDirs: CODEGRAPH_SKIPPED_DIRS };
}

/** Each match's text is at most this many characters of its line. */
const LINE_CHARS = 400;

/**
 * The scan request (`scanSource`'s second argument) for definitions of `names`: each match with
 * its context (its line, the file's line count, when it was written, its Rust macro block).
 */
function definitionScan(names, { indexDir } = {}) {
  const rules = definitionRules(names);
  return {
    rules,
    ...skippedDirs(indexDir),
    ...SCAN_LIMITS,
    context: { lineChars: LINE_CHARS, tags: [{ tag: "defines", rules }] },
  };
}

module.exports = {
  CODEGRAPH_MAX_FILE_BYTES,
  CODEGRAPH_SKIPPED_DIRS,
  FAMILY_EXTENSIONS,
  LINE_CHARS,
  SCAN_LIMITS,
  cutByBound,
  definitionRules,
  definitionScan,
  familyOf,
  isScannableName,
  nameAlternation,
  skippedDirs,
};
