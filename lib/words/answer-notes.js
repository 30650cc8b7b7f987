// The lines that lead an answer whose subject CodeGraph's own text leaves unsaid
// (lib/api/answer-notes.js and answer-subject.js find the facts): one sentence each, for the model.

const { definitionText } = require("./blind-spots.js");
const { shownPath } = require("./paths.js");

/** At most this many of an answer's definitions are named in a note; the rest are counted. */
const MAX_NAMED = 3;

const at = (a) => (a ? ` (${shownPath(a.path)}:${a.line})` : "");
const place = (d) => `${shownPath(d.path)}:${d.line}`;
/** `LocalRuntime::block_on (src/a.rs:220)` or `src/a.rs:220`, the first few, and how many more (of `count`). */
function named(defs, show, count = defs.length) {
  const shown = defs.slice(0, MAX_NAMED).map(show);
  const more = count - shown.length;
  return `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}
const lastOf = (name) =>
  name
    .split(/::|[./#]/u)
    .filter(Boolean)
    .at(-1) ?? name;

/** The file note: `--file` holds none of the answer's definitions. */
function otherFileLine({ asked, file, defs, count = defs.length }) {
  const lead = `Note: CodeGraph's index has no "${asked}" in ${shownPath(file)};`;
  if (count === 1) return `${lead} this answer is its definition in ${place(defs[0])}.`;
  return `${lead} this answer is about its ${count} definitions elsewhere: ${named(defs, place, count)}.`;
}

/** The qualifier note: none, or only some, of the answer's definitions are the qualified name asked. */
function otherQualifierLine({ asked, defs, of }) {
  const list = named(defs, (d) => `${d.qualified ?? d.name}${at(d)}`);
  const short = lastOf(asked);
  const scope = asked.slice(0, asked.lastIndexOf(short)).replace(/(?:::|[./#])$/u, "");
  if (defs.length === of) {
    const which = defs.length === 1 ? "which is not" : "none of which is";
    return `Note: this answer is not about "${asked}": CodeGraph answered with ${list}, ${which} in "${scope}".`;
  }
  const are = defs.length === 1 ? "is" : "are";
  return `Note: of the ${of} definitions below, ${list} ${are} not "${asked}" but ${defs.length === 1 ? "another" : "other"} "${short}".`;
}

/** The note lines for `facts` (`{ otherSymbol?, otherFile?, otherQualifier?, unnamedHits?, importRows? }`), in that order. */
function answerNoteLines(facts) {
  const lines = [];
  const { otherSymbol, otherFile, otherQualifier, unnamedHits, importRows } = facts;
  if (otherSymbol)
    lines.push(
      `Note: CodeGraph's index has no symbol named "${otherSymbol.asked}"; this answer is about "${otherSymbol.got}"${at(otherSymbol.at)}, the closest name it has.`,
    );
  if (otherFile) lines.push(otherFileLine(otherFile));
  if (otherQualifier) lines.push(otherQualifierLine(otherQualifier));
  if (unnamedHits) {
    const { asked, count } = unnamedHits;
    const name = `"${lastOf(asked)}"`;
    lines.push(
      count === 1
        ? `Note: CodeGraph's one search result below is not named ${name} and does not contain it; it is another name.`
        : `Note: none of CodeGraph's ${count} search results below is named ${name} or contains it; they are other names.`,
    );
  }
  if (importRows) {
    const { imports, rows, symbol } = importRows;
    const one = imports === 1;
    const which = imports === rows ? `The ${one ? "caller" : `${rows} callers`}` : `${imports} of the ${rows} callers`;
    const are = one ? "is a file that only imports" : "are files that only import";
    lines.push(`Note: ${which} below ${are} "${symbol}" ([imports]), not ${one ? "a call" : "calls"}.`);
  }
  return lines;
}

/**
 * Where the source defines the asked one, after a note that the answer is about another symbol or
 * file ("" for none): 'The source defines "Runtime" at src/runtime/runtime.rs:95, and
 * "block_on" at src/runtime/runtime.rs:337; read them there.' `definitions`: `[{ name, path,
 * line, reason, changed, more? }]` (lib/api/blind-spots.js's definitionsOf), in the order to say.
 */
function askedSourceLine(facts, definitions) {
  const { otherFile, otherQualifier, unnamedHits, qualifiedMissing } = facts;
  if (!(otherFile || otherQualifier || unnamedHits || qualifiedMissing) || definitions.length === 0) return "";
  const byName = new Map();
  for (const d of definitions) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
  const parts = [...byName].map(([name, defs]) => {
    const more = defs.some((d) => d.more) ? " and more" : "";
    return `"${name}" at ${defs.map(definitionText).join(", ")}${more}`;
  });
  const one = definitions.length === 1 && !definitions[0].more;
  return `The source defines ${parts.join(", and ")}; read ${one ? "it" : "them"} there.`;
}

module.exports = { answerNoteLines, askedSourceLine };
