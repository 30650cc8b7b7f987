// The words of a call path (codegraph_relations, relation "path"; lib/api/call-path.js finds it):
// each hop with its definition's file:line and the call's, `A (src/a.rs:10) → calls B at
// src/a.rs:14 → B (src/b.rs:3)`; a hop the graph lacks and the source shows, marked "text match";
// where no path is found, where the walk from `from` stops and what the source shows from there.

const { cutByBound } = require("../contract/definitions.js");
const { cutText, reasonText } = require("./blind-spots.js");
const { shownPath } = require("./paths.js");

const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** A written name's last part: `Inventory.add` → `add`. */
const lastName = (name) =>
  String(name)
    .split(/::|[./#]/u)
    .filter(Boolean)
    .at(-1) ?? name;
const nameOf = (node) => String(node.name).replace(/\s+/gu, " ");
/** `spawn (src/task/spawn.rs:168)`. */
const place = (node) => `${nameOf(node)} (${shownPath(node.filePath)}:${node.startLine})`;
/** `src/a.rs:14`, or the file alone when CodeGraph gave no line. */
const at = (file, line) => (Number.isInteger(line) ? `${shownPath(file)}:${line}` : shownPath(file));

/**
 * One hop's words, from the definition `source` over `edge` to `target`: a call, a reference (a
 * function passed as a value), an implementation CodeGraph linked to its interface's method,
 * or a name the source shows in `source`'s body and the graph lacks ("text match").
 */
function hopWords(source, edge, target) {
  const name = nameOf(target);
  if (edge.text) {
    const verb = edge.call ? "calls" : "names";
    if (edge.callback)
      return `is given, at ${at(edge.file, edge.line)}, a function that calls ${name} (text match: not in CodeGraph's graph; namesakes share the name)`;
    return `${verb} ${name} at ${at(edge.file, edge.line)} (text match: not in CodeGraph's graph; namesakes share the name)`;
  }
  if (edge.implementation) return "is implemented by";
  // A call whose line does not name the callee (CodeGraph's line is where the expression starts).
  const where = edge.starts ? "in an expression starting at" : "at";
  if (edge.kind === "references") return `passes ${name} as a value ${where} ${at(source.filePath, edge.line)}`;
  return `calls ${name} ${where} ${at(source.filePath, edge.line)}`;
}

/** A path (`{ nodes, edges }`, edges[i] from nodes[i] to nodes[i + 1]) on one line. */
function pathLine(path) {
  const start = path.nodes[0];
  const why = start.unindexed ? reasonText(start.unindexed) : null;
  const parts = [why ? `${place(start).slice(0, -1)}; not in CodeGraph's index: ${why})` : place(start)];
  for (let i = 0; i < path.edges.length; i += 1)
    parts.push(hopWords(path.nodes[i], path.edges[i], path.nodes[i + 1]), place(path.nodes[i + 1]));
  return parts.join(" → ");
}

/** What a text search that a bound cut did not read, said after what it found. */
function scanCut(scan) {
  if (!scan || !cutByBound(scan.stopped)) return "";
  return ` The text search stopped ${cutText(scan)}; the files it did not read may hold more.`;
}

/**
 * The answer when paths were found (`paths`, shortest first): how they were found (`impactOf`,
 * `calleesOf`: the names CodeGraph was asked, a qualified one's last part where it lacked it as
 * written), then one numbered line each.
 */
function pathsText({ from, to, definitions, paths, depth, bridged, scan, impactOf = to, calleesOf = from }) {
  const how = bridged
    ? `from CodeGraph's graph (impact of ${impactOf}, depth ${depth}) and, where it has no edge, the source: a hop marked "text match" is a call by name that the source shows and the graph lacks; read it to be sure`
    : `from CodeGraph's graph (impact of ${impactOf}, depth ${depth}, and the callees of ${calleesOf})`;
  const starts = new Set(paths.map((p) => p.nodes[0].id)).size;
  const among =
    definitions > 1
      ? ` (${from} names ${definitions} definitions; ${starts === 1 ? "this starts at one" : `these start at ${starts}`})`
      : "";
  const head = `${count(paths.length, "call path")} from ${from} to ${to}${among}, shortest first, ${how}:`;
  const lines = paths.map((p, i) => `${i + 1}. ${pathLine(p)}`);
  return `${head}\n${lines.join("\n")}${bridged ? scanCut(scan) : ""}`;
}

/** `a, b, c and 4 more`. */
function someNames(nodes, most = 6) {
  const shown = nodes.slice(0, most).map(nameOf);
  return nodes.length > most ? `${shown.join(", ")} and ${nodes.length - most} more` : shown.join(", ");
}

/**
 * The answer when neither the graph nor the source joins them: what reaches `to` (`reaching`),
 * what `from` reaches (`reached`: the walk's bound in `levels`), where it stops (`stops`: those
 * nearest `to` first, `route`: the path to the first), and what the source of those shows.
 */
function noPathText({ from, to, depth, levels, reaching, reached, stops, route, scan, scanned }) {
  const lines = [
    `No call path from ${from} to ${to} in CodeGraph's graph: ${count(reaching.length, "definition")} ${reaching.length === 1 ? "reaches" : "reach"} ${to} within ${depth} hops${reaching.length > 0 ? ` (${someNames(reaching)})` : ""}${reached.length === 0 ? `, and CodeGraph's graph has no callee of ${from}.` : `, and ${from} reaches ${count(reached.length, "definition")} within ${count(levels, "hop")}, none of them among those.`}`,
  ];
  if (stops.length > 0) {
    lines.push(
      `Where it stops (what ${from} reaches, those in ${to}'s files or folders first): ${stops.map(place).join(", ")}.`,
    );
    if (route && route.edges.length > 0) lines.push(`The way there: ${pathLine(route)}`);
  }
  if (scanned)
    lines.push(
      `The source of what ${from} reaches calls or names none of the definitions that reach ${to} (a text search for their names).${scanCut(scan)}`,
    );
  else
    lines.push(
      `The source of what ${from} reaches was not searched${reaching.length === 0 ? ` (nothing reaches ${to})` : ""}.`,
    );
  lines.push(`To look further: codegraph_node on ${stops[0] ? nameOf(stops[0]) : from} shows its source and callees.`);
  return lines.join("\n");
}

/** The answer when CodeGraph's index has no symbol of that name (`which`: "from" or "to"), with CodeGraph's own line. */
function notFoundText({ name, said }) {
  const cli = said ? ` (CodeGraph: ${said.trim().slice(0, 200)})` : "";
  return `CodeGraph's index has no symbol named ${name}${cli}, so no call path can be read from its graph. codegraph_search finds symbols by part of their name.`;
}

/** Said first when none of the definitions CodeGraph has of a qualified name's last part is the qualified one. */
const otherSymbolText = ({ asked, count: n }) =>
  `None of CodeGraph's ${count(n, "definition")} named ${lastName(asked)} is ${asked} by its qualified name or file (another symbol): the answer below reads ${n === 1 ? "it" : "all of them"}.`;

/** The answer when `from` is `to` itself. */
const samePathText = ({ from, to }) => `${from} and ${to} name the same definition: there is no call path to find.`;

/** The answer when CodeGraph's JSON could not be read (cut past its bound, or not JSON). */
const unreadableText = ({ subcommand }) =>
  `CodeGraph's answer to ${subcommand} could not be read as its JSON (cut at its bound or not JSON), so no call path is given. codegraph_relations impact of the target lists what reaches it.`;

module.exports = { noPathText, notFoundText, otherSymbolText, pathLine, pathsText, samePathText, unreadableText };
