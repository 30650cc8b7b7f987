// The lines that tell the model where CodeGraph's index is blind to a name the source defines
// (lib/api/blind-spots.js finds the definitions): where to read it, and why the index lacks it
// where that is known. One line per name.

const { shownPath } = require("./paths.js");
const { CODEGRAPH_MAX_FILE_BYTES } = require("../contract/definitions.js");

const count = (n) => n.toLocaleString("en-US");

/** Why the index lacks a definition, by lib/api/blind-spots.js's reason. */
function reasonText(d) {
  if (d.reason === "macro-block") return `inside a ${d.macro}! macro block, which CodeGraph does not index`;
  if (d.reason === "file-too-large") {
    return `in a file of ${count(d.bytes)} bytes; CodeGraph skips files over ${count(CODEGRAPH_MAX_FILE_BYTES)} bytes`;
  }
  if (d.reason === "large-file")
    return `far into a ${count(d.lines)}-line file, where CodeGraph 1.6.1 can miss declarations`;
  return null;
}

/** One definition: "src/a.rs:12 (inside a cfg_rt! macro block, …; its file changed after …)". */
function definitionText(d) {
  const why = [reasonText(d), d.changed ? "its file changed after the index was written" : null].filter(Boolean);
  return `${shownPath(d.path)}:${d.line}${why.length ? ` (${why.join("; ")})` : ""}`;
}

/** How far a cut search read: "after reading 20,000 files, its bound". */
function cutText(cut) {
  const files = `${count(cut.filesScanned ?? 0)} ${cut.filesScanned === 1 ? "file" : "files"}`;
  if (cut.stopped === "files") return `after reading ${files}, its bound`;
  if (cut.stopped === "bytes") return `after reading ${files}, its bound on bytes read`;
  return `at its time bound, after reading ${files}`;
}

/**
 * The line for a search for `names` that a bound cut before it found any definition ("" for
 * none): 'The source search for "spawn_inner" stopped after reading 20,000 files, its bound,
 * and found no definition; the files it did not read may hold one.'
 */
function cutSearchLine(names, cut) {
  if (!cut || names.length === 0) return "";
  const quoted = names.map((n) => `"${n}"`).join(", ");
  const how = cutText(cut);
  return `The source search for ${quoted} stopped ${how}${how.includes(",") ? "," : ""} and found no definition; the files it did not read may hold one.`;
}

/**
 * The lines for `definitions` (`[{ name, path, line, reason, changed }]`, at most a few per name):
 * 'Not in CodeGraph's index: "spawn_inner" is defined at tokio/src/task/spawn.rs:183 (inside a
 * cfg_rt! macro block, which CodeGraph does not index); read it there.' After an explore, whose
 * answer may leave out a name the index has, the line says only what is sure: the answer does
 * not mention it.
 */
function blindSpotLines(definitions, { explore = false } = {}) {
  const byName = new Map();
  for (const d of definitions) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
  const lines = [];
  for (const [name, defs] of byName) {
    const more = defs.some((d) => d.more) ? " and more" : "";
    const where = `${defs.map(definitionText).join(", ")}${more}`;
    const lead = explore
      ? `CodeGraph's answer does not mention "${name}"; the source defines it at ${where}`
      : `Not in CodeGraph's index: "${name}" is defined at ${where}`;
    // A file changed after the index is also in the answer's stale-files line, which says what to run.
    lines.push(`${lead}; read it there.`);
  }
  return lines;
}

module.exports = { blindSpotLines, cutSearchLine, cutText, definitionText, reasonText };
