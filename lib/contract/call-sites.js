// What a use of a name looks like in the source, for the places CodeGraph's graph leaves out (a
// call inside a Rust macro block, one it did not resolve, an `impl Trait for Type` it did not
// link): the scan request for the lines that mention a name, the patterns that pick its call
// sites, its other uses, or the types that implement or extend it (the runners read where a line
// sits from their lexer's outline of its file). The scan is the runners'
// `scanSource` (lib/contract/definitions.js has the walk's skips and bounds); the patterns keep to
// the syntax Rust's `regex` and JavaScript read alike (no look-around, so a name's edges are
// written `(?:^|[^\w$])`).

const {
  FAMILY_EXTENSIONS,
  LINE_CHARS,
  SCAN_LIMITS,
  definitionRules,
  nameAlternation,
  skippedDirs,
} = require("./definitions.js");

/**
 * The search reads every line that mentions the name (its calls, uses or implementations are
 * told apart afterwards, lib/api/call-sites.js): more than a definition's few, namesakes included.
 */
const MENTION_LIMITS = { ...SCAN_LIMITS, maxMatches: 256 };

/**
 * The first line of each definition a callers, callees or impact answer is about: `method
 * Registration::poll_ready (rust) — src/a.rs:144`; with several, each ends with its count (` (2):`,
 * ` — 3 affected symbols:`). Groups: kind, name, file, line. One line (no flags beyond `u`).
 */
const RELATION_HEAD = /^([a-z_]+) (\S+) \([\w#+-]+\) — (.+?):(\d+)(?: \(\d+\):| — \d+ affected symbols?:)?$/u;

/** What to look for, by the kind CodeGraph gives the symbol (its answer's first line). */
const SEARCH_BY_KIND = {
  calls: new Set(["function", "method", "constructor"]),
  uses: new Set(["constant", "variable", "property", "field", "static"]),
  implementations: new Set(["trait", "interface", "class"]),
};

/** The answers a search follows: callers and impact. */
const SEARCHED_SUBCOMMANDS = new Set(["callers", "impact"]);

/** The search for a symbol of `kind` in a `subcommand`'s answer: "calls", "uses", "implementations" or null. */
function searchFor(subcommand, kind) {
  if (!SEARCHED_SUBCOMMANDS.has(subcommand)) return null;
  if (SEARCH_BY_KIND.calls.has(kind)) return "calls";
  if (SEARCH_BY_KIND.uses.has(kind)) return "uses";
  // What implements a type is an impact question (relations' words: impact at depth 1).
  if (subcommand === "impact" && SEARCH_BY_KIND.implementations.has(kind)) return "implementations";
  return null;
}

const before = "(?:^|[^\\w$])";
const after = "(?:[^\\w$]|$)";

/** The rules for `search` of `name` (a plain identifier, or several): one pattern per family of languages. */
function useRules(search, name) {
  const n = nameAlternation([name].flat());
  const rule = (family, pattern) => ({ extensions: FAMILY_EXTENSIONS[family], pattern });
  if (search === "calls") {
    return [
      // `spawn_inner(x)`, `Self::spawn_inner::<T>(x)`
      rule("rust", `${before}${n}\\s*(?:::\\s*<[^>]*>\\s*)?\\(`),
      // `forkOrCreate(ctx)`, `make<A>(x)`
      rule("script", `${before}${n}\\s*(?:<[^>()]*>\\s*)?\\(`),
      ...["python", "go", "other"].map((f) => rule(f, `${before}${n}\\s*\\(`)),
    ];
  }
  if (search === "uses") return Object.keys(FAMILY_EXTENSIONS).map((f) => rule(f, `${before}${n}${after}`));
  return [
    // `impl task::Schedule for Arc<Handle> {`, `impl<T: Kill> Kill for &mut T`
    rule("rust", `\\bimpl\\b[^{;]*${before}${n}\\s*(?:<[^{;]*>)?\\s+for\\s`),
    // `class MixedScheduler implements Scheduler {`, `interface A extends B, Scheduler`
    rule("script", `\\b(?:extends|implements)\\b[^{]*${before}${n}${after}`),
    // `class DummyCache(BaseCache):`
    rule("python", `^\\s*class\\s+\\w+\\s*\\([^)]*${before}${n}${after}`),
    // `class A extends B implements N`, `class A : N` (Kotlin, Swift, C#)
    rule("other", `\\b(?:extends|implements|class\\s+\\w+[^{:]*:)[^{]*${before}${n}${after}`),
  ];
}

/**
 * The scan request (`scanSource`'s second argument) for every line that mentions any of `names`
 * (plain identifiers): it can start before CodeGraph has answered, and serves both the places a
 * callers or impact answer leaves out (lib/api/call-sites.js) and the definitions the index lacks
 * (lib/api/blind-spots.js). Each match carries its context (the runners read it from the file,
 * off the host's thread): its line, tagged `defines` (a definition of a name), `calls` (a call
 * of the first name) and `implementations` (a type implementing or extending it), read on its
 * code where the runner's lexer knows the language; whether the match is code at all; the
 * definition or `macro_rules!` template it sits in (the first name's own is not a container); its
 * Rust macro block.
 */
function mentionScan(names, { indexDir } = {}) {
  const list = [names].flat();
  return {
    rules: useRules("uses", list),
    ...skippedDirs(indexDir),
    ...MENTION_LIMITS,
    context: {
      lineChars: LINE_CHARS,
      tags: [
        { tag: "defines", rules: definitionRules(list) },
        { tag: "calls", rules: useRules("calls", list[0]) },
        { tag: "implementations", rules: useRules("implementations", list[0]) },
      ],
      ownName: list[0],
    },
  };
}

module.exports = { MENTION_LIMITS, RELATION_HEAD, SEARCHED_SUBCOMMANDS, mentionScan, searchFor, useRules };
