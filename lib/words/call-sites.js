// The line that tells the model what a callers or impact answer leaves out and the source shows
// (lib/api/call-sites.js finds the places): a text match of the same name, so it says where, in
// which definition, and that reading it is how to be sure.

const { cutByBound } = require("../contract/definitions.js");
const { cutText } = require("./blind-spots.js");
const { shownPath } = require("./paths.js");

const WHAT = { calls: "Calls of", uses: "Uses of", implementations: "Implementations of" };

/** Places in the same file and definition, one after another, as one: `src/a.rs:343, 350 in spawn`. */
function grouped(sites) {
  const groups = [];
  for (const s of sites) {
    const last = groups.at(-1);
    const same = (k) => last[k] === s[k];
    if (
      last &&
      !s.quote &&
      !s.shown &&
      same("path") &&
      same("within") &&
      same("macro") &&
      same("macroRules") &&
      same("textMatch")
    )
      last.lines.push(s.line);
    else groups.push({ ...s, lines: [s.line] });
  }
  return groups;
}

function placeText(g) {
  const where = `${shownPath(g.path)}:${g.lines.join(", ")}`;
  const text = g.textMatch ? " (text match)" : "";
  if (g.quote) return `${where} \`${g.quote}\`${text}`;
  const within = g.within ? ` in ${g.within}` : "";
  const template = g.macroRules
    ? ` in the template of macro_rules! ${g.macroRules} (the code it generates, which CodeGraph does not index)`
    : "";
  const macro = g.macro ? ` (inside a ${g.macro}! macro block, which CodeGraph does not index)` : "";
  const shown = g.shown ? ` (\`${g.shown}\`)` : "";
  return `${where}${within}${template}${macro}${shown}${text}`;
}

/** `, and 3 more`, `, and perhaps more (the search stopped …)`: what a list of places leaves out. */
function moreText(found, more, cut) {
  if (found.common)
    return `${more > 0 ? `, ${more} more there` : ""}, and more in other files (a name too common to list)`;
  if (more > 0) return `, and ${more} more`;
  if (cut) return `, and perhaps more (the search stopped ${cut})`;
  return found.stopped ? ", and perhaps more" : "";
}

const SEARCH_WORDS = { calls: "calls of", uses: "uses of", implementations: "implementations of" };

/**
 * The line for `found` (`{ name, search, sites, more, reads?, readsMore?, stopped, common,
 * filesScanned }` or null; "" for none): 'Calls of "enter_runtime" in the source that CodeGraph's
 * answer does not list (a text search for the name, which namesakes share; read them to be sure):
 * src/runtime/handle.rs:368 in block_on_inner, …', and on a line of its own the name's other uses
 * in code (`reads`), each with its line quoted. A search a bound cut says how far it read, found
 * something or not.
 */
function callSiteLine(found) {
  if (!found) return "";
  const cut = cutByBound(found.stopped) ? cutText({ stopped: found.stopped, filesScanned: found.filesScanned }) : null;
  const reads = found.reads ?? [];
  if (found.sites.length === 0 && reads.length === 0) {
    if (!cut) return "";
    return `The source search for ${SEARCH_WORDS[found.search]} "${found.name}" that CodeGraph's answer does not list stopped ${cut}${cut.includes(",") ? "," : ""} and found none; the files it did not read may hold some.`;
  }
  const lines = [];
  if (found.sites.length > 0) {
    const places = grouped(found.sites).map(placeText).join(", ");
    const why = found.unindexed ? "CodeGraph's index has no symbol by the name; " : "";
    lines.push(
      `${WHAT[found.search]} "${found.name}" in the source that CodeGraph's answer does not list (${why}a text search for the name, which namesakes share; read them to be sure): ${places}${moreText(found, found.more, cut)}.`,
    );
  }
  if (reads.length > 0) {
    const places = grouped(reads).map(placeText).join(", ");
    lines.push(
      `Uses of "${found.name}" in the source that CodeGraph's answer does not list, not calls (the name as a field or variable, or the function passed on; namesakes share it, read them to be sure): ${places}${moreText(found, found.readsMore ?? 0, cut)}.`,
    );
  }
  return lines.join("\n");
}

module.exports = { callSiteLine };
