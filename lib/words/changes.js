// codegraph_changes' answer, said from its facts (lib/api/changes.js): a headline with the counts,
// what the index's age means for the answer, then each changed file with its test files and each
// changed symbol with what depends on it, the direct dependents with the line of their call or
// import. Everything CodeGraph did not say is marked as the source scan's text match.

const { cutText } = require("./blind-spots.js");
const { headline } = require("./reasons.js");

/** At most this many dependents and text matches are named per symbol; the rest are counted. */
const MAX_NAMED = 8;
const MAX_MENTIONS = 8;
/** At most this many test files are named per changed file; the rest are counted. */
const MAX_TESTS = 10;

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const lines = (ranges) => ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(", ") || "none";
const changedWord = (ranges) => {
  const n = ranges.reduce((sum, [a, b]) => sum + b - a + 1, 0);
  return n === 1 ? `changed line ${lines(ranges)}` : `changed lines ${lines(ranges)}`;
};

const SOURCES = {
  git: "the working tree against HEAD (git: staged, unstaged and untracked files)",
  gitNoHead: "the working tree of a repository with no commit yet (git: every tracked and untracked file is new)",
  index: "the files written since the index (no git history to compare with)",
};

const STATES = {
  modified: "modified",
  added: "new",
  untracked: "new, untracked",
  deleted: "deleted",
  changedSinceIndex: "written since the index",
};

/** "when" an index was written, in UTC to the minute. */
const when = (ms) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** A symbol's own line: name, kind, place, what changed. */
function symbolLine(f, s) {
  const within = s.parent ? ` in ${s.parent}` : "";
  const macro = s.macro ? `, a macro_rules! template of ${s.macro}` : "";
  const changed = f.whole ? "" : `, ${changedWord(s.changed)}`;
  const span = s.endLine > s.line ? `${s.line}-${s.endLine}` : `${s.line}`;
  return `- ${s.name} (${s.kind}${within}${macro}, ${f.path}:${span})${changed}`;
}

/** What depends on a symbol, as CodeGraph's impact says. */
function impactLines(s, depth, stale) {
  const out = [];
  const i = s.impact;
  if (i === undefined) return out;
  if (i === null) return ["  dependents: CodeGraph's impact answer was cut or unreadable; not counted"];
  if (i.failed) return [`  dependents: codegraph impact failed (${i.failed}); not counted`];
  if (!i.found) {
    out.push(
      stale
        ? "  dependents: the index has no definition of it in this file (it is older than the change)"
        : "  dependents: the index has no definition of it in this file",
    );
    return out;
  }
  const n = i.dependents.length;
  if (n === 0) {
    out.push(`  dependents: none in CodeGraph's graph (impact, depth ${depth})`);
    return out;
  }
  const direct = i.dependents.filter((d) => d.callAt).length;
  out.push(
    `  dependents: ${n} in ${plural(i.files, "file")} (impact, depth ${depth}; ${direct} ${direct === 1 ? "uses" : "use"} it directly)`,
  );
  const named = i.dependents.slice(0, MAX_NAMED).map((d) => {
    const at = d.callAt ? `; uses it at ${d.callAt}` : "";
    return `${d.name} (${d.kind}, ${d.path}:${d.line}${at})`;
  });
  const more = n > MAX_NAMED ? `; and ${n - MAX_NAMED} more` : "";
  out.push(`    ${named.join("; ")}${more}`);
  return out;
}

/** The source scan's matches of a symbol's name, said as text. */
function mentionLines(s) {
  if (!Array.isArray(s.mentions)) return [];
  const c = s.mentionsCut;
  const how = c && (c.stopped === "matches" ? "at its bound on matches" : cutText(c));
  const cut = c ? ` (the search stopped ${how}: there may be more)` : "";
  if (s.mentions.length === 0)
    return [
      cut
        ? `  text search for "${s.name}": no other line it read mentions it${cut}`
        : `  text search for "${s.name}": no other line of the source mentions it`,
    ];
  const shown = s.mentions
    .slice(0, MAX_MENTIONS)
    .map((m) => `${m.path}:${m.line}${m.within ? ` in ${m.within.name}` : ""} \`${m.text}\``);
  const placed = s.mentions.some((m) => m.within)
    ? "; each in the definition that holds it, by the file's outline"
    : "";
  const more = s.mentions.length > MAX_MENTIONS ? `; and ${s.mentions.length - MAX_MENTIONS} more` : "";
  return [
    s.mentionsBeyond
      ? `  text search for "${s.name}": ${plural(s.mentions.length, "more line")} of the source ${s.mentions.length === 1 ? "mentions" : "mention"} it, not among the uses listed above (text matches, not the graph${placed})${cut}`
      : `  text search for "${s.name}" (text matches in the source, not the graph${placed}): ${plural(s.mentions.length, "line")}${cut}`,
    `    ${shown.join("; ")}${more}`,
  ];
}

/** The first MAX_TESTS of a file's test files, those that cover a changed symbol first (f.ranked). */
function testNames(f) {
  const r = f.ranked ?? { covering: [], named: [], rest: f.tests };
  let room = MAX_TESTS;
  const take = (list) => {
    const shown = list.slice(0, Math.max(0, room));
    room -= shown.length;
    return shown.join(", ");
  };
  const parts = [];
  const covering = take(r.covering);
  if (covering)
    parts.push(
      `${covering} (${r.covering.length === 1 ? "holds a dependent or mentions" : "hold a dependent or mention"} a changed name)`,
    );
  const named = take(r.named);
  if (named) parts.push(`named like the changed file or its dependents' files: ${named}`);
  const rest = take(r.rest);
  if (rest) parts.push(parts.length ? `others: ${rest}` : rest);
  return parts.join("; ");
}

/** The test files that mention a changed symbol's callers most (text matches). */
function callerTestsText(c) {
  if (!c?.top?.length) return "";
  const how = c.cut && (c.cut.stopped === "matches" ? "at its bound on matches" : cutText(c.cut));
  const cut = c.cut ? `; the search stopped ${how}: there may be more` : "";
  const names = c.names.join(", ");
  const top = c.top.map((t) => `${t.path} (${plural(t.count, "line")})`).join(", ");
  return `; the test files that mention its callers' names (${names}) most (text matches${cut}): ${top}`;
}

/** A file's header: its state, its test files (CodeGraph's affected). */
function fileLine(f) {
  const state = STATES[f.state] ?? f.state;
  let tests = "";
  if (Array.isArray(f.tests)) {
    const more = f.tests.length > MAX_TESTS ? `, and ${f.tests.length - MAX_TESTS} more` : "";
    tests = f.tests.length
      ? `; ${plural(f.tests.length, "test file")} ${f.tests.length === 1 ? "depends" : "depend"} on it (affected): ${testNames(f)}${more}`
      : "; no test file depends on it (affected)";
    const unlisted = f.ranked?.unlisted ?? [];
    if (unlisted.length)
      tests += `; ${unlisted.length === 1 ? "a test file" : "test files"} named like it that affected does not list (by name only): ${unlisted.join(", ")}`;
  } else if (f.tests === null) tests = "; its tests could not be read (affected's answer was cut)";
  else if (f.testsFailed) tests = `; its tests could not be read (codegraph affected failed: ${f.testsFailed})`;
  tests += callerTestsText(f.callerTests);
  const count = f.state === "deleted" ? "" : `, ${plural(f.symbols.length, "changed symbol")}`;
  return `${f.path} (${state}${count}${tests})`;
}

/** The answer's text from `facts` (lib/api/changes.js changesFacts). */
function changesText(facts) {
  const out = [];
  const symbols = facts.files.reduce((n, f) => n + f.symbols.length, 0);
  const dependents = facts.files.reduce(
    (n, f) => n + f.symbols.reduce((m, s) => m + (s.impact?.dependents?.length ?? 0), 0),
    0,
  );
  const tests = new Set(facts.files.flatMap((f) => f.tests ?? []));
  out.push(
    `Changes: ${SOURCES[facts.source]}: ${plural(facts.files.length, "file")}, ${plural(symbols, "changed symbol")}, ${plural(dependents, "dependent")}, ${plural(tests.size, "test file")}.`,
  );
  if (facts.gitProblem) out.push(`(${headline(facts.gitProblem.code, facts.gitProblem.facts)}.)`);
  if (facts.files.length === 0) {
    out.push(
      facts.source === "index"
        ? "No source file was written since the index."
        : "No file of a language CodeGraph indexes has changed.",
    );
    if (facts.otherFiles) out.push(`(${plural(facts.otherFiles, "other changed file")} not in CodeGraph's languages.)`);
    return out.join("\n");
  }
  if (facts.newerThanIndex?.length) {
    const shown = facts.newerThanIndex.slice(0, 5).join(", ");
    const more = facts.newerThanIndex.length > 5 ? ` and ${facts.newerThanIndex.length - 5} more` : "";
    out.push(
      `The index (written ${when(facts.indexMs)}) is older than the change to ${shown}${more}: its dependents and tests are as of then; the changed lines and definitions are the source's now, and a text search for the changed names follows each. /codegraph sync brings the index up to date.`,
    );
  }
  if (!facts.outlined)
    out.push("The changed files could not be outlined: changed lines are listed without their symbols.");
  const stale = new Set(facts.newerThanIndex ?? []);
  for (const f of facts.files) {
    out.push("", fileLine(f));
    for (const s of f.symbols) {
      out.push(symbolLine(f, s), ...impactLines(s, facts.depth, stale.has(f.path)), ...mentionLines(s));
    }
    if (f.outside?.length) out.push(`- changed lines outside any definition: ${lines(f.outside)}`);
    if (!facts.outlined && f.ranges?.length) out.push(`- changed lines: ${lines(f.ranges.map((r) => [r.from, r.to]))}`);
  }
  const notes = [];
  if (facts.impactsNotAsked > 0)
    notes.push(`${plural(facts.impactsNotAsked, "more symbol")} not asked about (ask codegraph_relations impact)`);
  if (facts.testsNotAsked > 0) notes.push(`the tests of ${plural(facts.testsNotAsked, "more file")} not asked about`);
  if (facts.filesNotListed > 0) notes.push(`${plural(facts.filesNotListed, "more changed file")} not listed`);
  if (facts.otherFiles > 0) notes.push(`${plural(facts.otherFiles, "changed file")} not in CodeGraph's languages`);
  if (facts.cut) notes.push("the list of changes was cut at its bound (more files changed)");
  if (notes.length) out.push("", `Not shown: ${notes.join("; ")}.`);
  return out.join("\n");
}

module.exports = { changesText };

/** The last line of an answer cut at its caps. */
const cutLine = (bytes, maxBytes) =>
  `[cut: the answer ran ${Math.round(bytes / 1024)} KB, past its ${Math.round(maxBytes / 1024)} KB; ask codegraph_relations impact about one symbol for the rest]`;

module.exports.cutLine = cutLine;
