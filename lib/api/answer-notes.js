// What a focused call's answer is about, where CodeGraph's own text does not say it: `codegraph
// node` answers with its closest name when it has none by the name asked; any answer about
// another symbol or file than asked (lib/api/answer-subject.js: a `file` none of its definitions
// is in, a qualified name none or only some match, a search none of whose hits has the name) says
// so, and where the source defines the asked one; `codegraph callers` lists files that only
// import the symbol among its callers (tagged `[imports]`); and any not-found answer is checked
// against the source (lib/api/blind-spots.js). Read from the command that ran and the text it
// printed (CodeGraph 1.6.1's shapes), worded once (lib/words/), led into the answer by
// lib/api/answer.js.

const { answerNoteLines, askedSourceLine } = require("../words/answer-notes.js");
const { blindSpotLines, cutSearchLine } = require("../words/blind-spots.js");
const { callSiteLine } = require("../words/call-sites.js");
const { askedParts, scopeOpens, subjectFacts, whereAsked } = require("./answer-subject.js");
const { definitionsOf, unindexedDefinitions } = require("./blind-spots.js");
const { unlistedUses } = require("./call-sites.js");

/** A callers row's kind, name and tag: `file        checkout.ts [imports]`. */
const CALLER_ROW = /^[a-z_]+ {2,}\S.*?(?: \[(\w+)\])?$/u;
/** The callers list's head: `Callers of "charge" (4):`. */
const CALLERS_HEAD = /^Callers of "/mu;

/** callers' answer: how many of its rows are imports only (`[imports]`), of how many. */
function callersFacts(command, text) {
  if (!CALLERS_HEAD.test(text)) return {};
  let rows = 0;
  let imports = 0;
  for (const line of text.split("\n")) {
    const row = CALLER_ROW.exec(line);
    if (!row) continue;
    rows += 1;
    if (row[1] === "imports") imports += 1;
  }
  return imports > 0 ? { importRows: { symbol: command.positional, imports, rows } } : {};
}

/**
 * The facts of `command`'s answer `text` that CodeGraph's text leaves unsaid: `{ otherSymbol?,
 * otherFile?, otherQualifier?, unnamedHits?, importRows? }` (answer-subject.js's subjectFacts,
 * callersFacts); `{}` when it has none.
 */
async function answerFacts(command, text, { scopes, indexDir } = {}) {
  try {
    if (typeof text !== "string") return {};
    const callers = command?.subcommand === "callers" ? callersFacts(command, text) : {};
    // A node answer shows no qualified name: whether its files open the scope asked is the scope search's.
    const opens = command?.subcommand === "node" ? await scopeOpens(scopes, indexDir) : null;
    return { ...subjectFacts(command, text, opens), ...callers };
  } catch {} // a description that cannot be read: nothing to add
  return {};
}

/**
 * The source's definitions of the asked name's parts (`[last part, scope?]`) in the order to say
 * them: the scope's first, then the last part's in a file that defines the scope, then the rest.
 */
function inOrder(definitions, [name, scope]) {
  const scopeFiles = new Set(definitions.filter((d) => d.name === scope).map((d) => d.path));
  const rank = (d) => (d.name === scope ? 0 : scopeFiles.has(d.path) ? 1 : 2);
  return definitions.filter((d) => d.name === name || d.name === scope).sort((a, b) => rank(a) - rank(b));
}

/**
 * The note lines that lead `command`'s answer `text` ("" for none): what the answer is about
 * (answerFacts), where the index is blind to a name it lacks (lib/api/blind-spots.js), and the
 * calls, uses or implementations of a callers or impact answer's symbol that the source shows and
 * the answer does not list (lib/api/call-sites.js). `context`: `{ cwd, indexDir, scan, truncated,
 * early, scopes }` (`scan`: the runner's `scanSource`, if it has one; `early`: the search begun with
 * the call, lib/api/source-search.js; `scopes`: the scope search begun with it, answer-subject.js).
 */
async function answerNotes(command, text, context = {}) {
  const facts = await answerFacts(command, text, context);
  const qualified = facts.otherQualifier ?? facts.qualifiedMissing;
  const opens = qualified ? await scopeOpens(context.scopes, context.indexDir) : null;
  const keep = (m, name) => whereAsked(facts, m, name, opens);
  const [unindexed, unlisted, asked] = await Promise.all([
    unindexedDefinitions(command, text, context.cwd, { ...context, facts }),
    unlistedUses(command, text, context.cwd, context),
    definitionsOf(askedParts(facts), context.cwd, { ...context, keep }),
  ]);
  // A qualified name CodeGraph found nothing by, defined in its scope: by the name asked; a blind
  // spot where the index is known to lack it (a macro block, a file too large, …), else only where it is.
  const missed = facts.qualifiedMissing;
  const byAsked = missed ? asked.definitions.map((d) => ({ ...d, name: missed.asked })) : [];
  const blind = (d) => d.reason !== null || d.changed;
  const missing = byAsked.filter(blind);
  const source = askedSourceLine(
    facts,
    missed ? byAsked.filter((d) => !blind(d)) : inOrder(asked.definitions, askedParts(facts)),
  );
  const explore = command?.subcommand === "explore";
  const uses = callSiteLine(unlisted);
  const cut = unindexed.definitions.length === 0 ? cutSearchLine(unindexed.names, unindexed.cut) : "";
  return [
    ...answerNoteLines(facts),
    ...(source ? [source] : []),
    ...blindSpotLines([...missing, ...unindexed.definitions], { explore }),
    ...(cut ? [cut] : []),
    ...(uses ? [uses] : []),
  ].join("\n");
}

module.exports = { answerFacts, answerNotes };
