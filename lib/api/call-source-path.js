// codegraph_relations' `path` from the definitions of `from` CodeGraph's index lacks (inside a
// Rust macro block such as `cfg_rt! { … }`, far into a very large TypeScript file): the source
// is searched for them (lib/api/blind-spots.js's definitionsOf, each with why the index lacks
// it), each body read by the runner's outline (its lines, the file read bounded), and the names it
// calls followed: to a definition of the graph that reaches `to` (a path on from there), or to
// another definition of the same file (read the same way, a few levels); a re-export or alias
// (`export const forkChild = internal.forkChild`) to the definitions of the name it gives, the
// source's where the index lacks them. Every such hop is a text match (namesakes share the name). A help beside the graph's paths, never a failure.

const { definitionsOf, isCommentLine, reasonFor } = require("./blind-spots.js");
const { joined, pathsWithin, shortestFirst } = require("./call-graph.js");
const { linesOf } = require("./call-lines.js");
const { CALLED, NOT_CALLS } = require("./call-text-step.js");

/** Definitions of `from` the walk starts at, levels it reads through the source, paths it gives. */
const MOST_STARTS = 8;
/** Why the index lacks a definition whose body the source shows (lib/api/blind-spots.js). */
/** Definitions the scan may find of the name, most of them indexed ones. */
const SCAN_MATCHES = 400;
const UNINDEXED = new Set(["macro-block", "large-file"]);
const LEVELS = 6;
/** Definitions a level reads. */
const LEVEL_WIDTH = 12;
/** A value definition that is another's name: `= internal.forkChild`, `= completeWith as any`, at its end. */
const ALIAS = /=\s*(?:[A-Za-z_$][\w$]*\.)?([A-Za-z_$][\w$]*)\s*(?:as\s+any\s*)?;?\s*$/u;
const VALUES = new Set(["variable", "constant"]);
const MOST_PATHS = 3;
/** Definitions of one name the graph has that a call by that name may go to. */
const MOST_NAMESAKES = 3;
/** A body is read up to this many lines, each up to this length. */
const MOST_BODY_LINES = 300;
const MAX_LINE = 4000;
const OUTLINE_DEADLINE_MS = 1000;
/** What follows a call's `(` when it is given a function: `(clock) =>`, `x =>`, `function`, `|x|`, `move |x|`. */
const GIVEN_FUNCTION =
  /^\s*(?:async\s*)?(?:\([^()]*\)\s*(?::[^=]*)?=>|[A-Za-z_$][\w$]*\s*=>|function\b|(?:move\s*)?\|)/u;

/** Whether `index` on `text` is inside the parentheses opened just before `open`. */
function insideCall(text, open, index) {
  let depth = 1;
  for (let i = open; i < index; i += 1) {
    if (text[i] === "(") depth += 1;
    else if (text[i] === ")") depth -= 1;
    if (depth === 0) return false;
  }
  return true;
}

/**
 * Paths to `to` (the reverse `graph`) from the definitions named `name` that the index lacks
 * (`keep(node)` takes those `from` may ask for): `[{ nodes, edges }]`, the first node of each a
 * definition from the source (`unindexed`: why the index lacks it), its text hops marked `text`.
 * `roots`: definitions of the index to start at instead (where its graph has no path from them).
 */
async function sourcePaths(
  graph,
  name,
  { cwd, scan, outline, lines: readLines = linesOf, indexDir, keep = () => true, roots, lacking },
) {
  if (typeof scan !== "function" || typeof outline !== "function") return [];
  const unindexed = (n) => lackedDefinitions(n, { cwd, scan, indexDir, lacking });
  const starts = roots ?? (await unindexed(name)).filter(keep).slice(0, MOST_STARTS);
  if (starts.length === 0) return [];
  // The definitions of the graph that reach `to` (or are it), by name, nearest first.
  const reaching = new Map();
  for (const n of graph.nodes.values())
    if (graph.dist.has(n.id)) reaching.set(n.name, [...(reaching.get(n.name) ?? []), n]);
  for (const list of reaching.values()) list.sort((a, b) => graph.dist.get(a.id) - graph.dist.get(b.id));
  // One file's definitions (the call's outlines are read once: lib/api/call-reads.js).
  const outlineOf = (file) =>
    Promise.resolve()
      .then(() => outline(cwd, { paths: [file], deadlineMs: OUTLINE_DEADLINE_MS }))
      .then((f) => (Array.isArray(f?.files?.[0]?.definitions) ? f.files[0].definitions : []))
      .catch(() => []);
  const paths = [];
  const seen = new Set(starts.map((s) => s.id));
  let level = starts.map((node) => ({ node, route: { nodes: [node], edges: [] } }));
  for (let l = 0; l < LEVELS && level.length > 0 && paths.length < MOST_PATHS; l += 1) {
    const next = [];
    for (const { node, route } of level) {
      const defs = await outlineOf(node.filePath);
      const def = defs.find((d) => d.name === node.name && Math.abs(d.line - node.startLine) <= 3);
      const lines = def && Number.isInteger(def.endLine) ? await readLines(cwd, node.filePath) : null;
      if (!lines) continue;
      const nested = new Set(defs.map((d) => d.line)); // a nested definition's line names it, calls nothing
      const last = Math.min(def.endLine, lines.length, def.line + MOST_BODY_LINES);
      // A re-export or alias (`export const sleep: … = internal.sleep`, `done = completeWith as any`): its one name.
      const alias = VALUES.has(def.kind) ? ALIAS.exec(lines[def.endLine - 1]?.slice(0, MAX_LINE) ?? "") : null;
      const named = new Set();
      for (let line = alias ? def.endLine : def.line + 1; line <= last; line += 1) {
        const text = lines[line - 1].slice(0, MAX_LINE);
        if ((nested.has(line) && !alias) || isCommentLine(text)) continue;
        const wrappers = []; // calls on this line given a function: `clockWith((clock) => clock.sleep(…))`
        for (const m of alias ? [alias] : text.matchAll(CALLED)) {
          const callee = m[1];
          const wrapper = alias ? undefined : wrappers.find((w) => insideCall(text, w.at, m.index));
          if (!alias && GIVEN_FUNCTION.test(text.slice(m.index + m[0].length))) {
            const d = defs.find((x) => x.name === callee && x.line !== def.line && Number.isInteger(x.endLine));
            if (d) wrappers.push({ at: m.index + m[0].length, node: nodeAt(node.filePath, d.line, callee) });
          }
          if (NOT_CALLS.has(callee) || named.has(callee)) continue;
          named.add(callee);
          const hop = { source: node.id, text: true, call: !alias, file: node.filePath, line };
          // A call in the function given to a call of the same file's: through that definition, given it.
          const via = wrapper ? [wrapper.node, { ...hop, target: wrapper.node.id }] : null;
          const through = via ? { ...hop, source: wrapper.node.id, callback: true } : hop;
          const base = via ? { nodes: [...route.nodes, via[0]], edges: [...route.edges, via[1]] } : route;
          // The same file's definition of the name first (not yet walked), else the graph's namesakes.
          const local = defs.find((d) => d.name === callee && d.line !== def.line && Number.isInteger(d.endLine));
          const near = local ? nodeAt(node.filePath, local.line, callee) : null;
          const namesakes = reaching.get(callee) ?? [];
          const indexed =
            near && namesakes.find((t) => t.filePath === near.filePath && Math.abs(t.startLine - near.startLine) <= 3);
          const own = !indexed && near && !seen.has(near.id);
          const targets = indexed ? [indexed] : own ? [] : namesakes.slice(0, MOST_NAMESAKES);
          for (const t of targets) {
            const prefix = { nodes: [...base.nodes, t], edges: [...base.edges, { ...through, target: t.id }] };
            for (const rest of pathsWithin(graph, t, 1)) paths.push(joined(prefix, rest));
          }
          if (targets.length > 0 && !alias) continue; // an alias's own file's definition may be one the index lacks
          // What an alias names in another file: the source's definitions of it the index lacks.
          const tos = own ? [near] : alias ? await unindexed(callee) : [];
          for (const to of tos) {
            if (seen.has(to.id) || next.length >= LEVEL_WIDTH) continue;
            seen.add(to.id);
            const edge = { ...through, target: to.id };
            next.push({ node: to, route: { nodes: [...base.nodes, to], edges: [...base.edges, edge] } });
          }
        }
      }
    }
    level = next;
  }
  return paths;
}

const lacked = (m) => UNINDEXED.has(reasonFor(m).reason);

/**
 * The definitions of `name` the source shows and the index lacks (as the walk's nodes, each with
 * `unindexed`: why), found once per call: `lacking` (a Map the call holds) keeps each name's
 * search, so a call may begin one early and a name met again is not searched again. Never rejects.
 */
function lackedDefinitions(name, { cwd, scan, indexDir, lacking = new Map() }) {
  if (typeof scan !== "function") return Promise.resolve([]);
  if (!lacking.has(name)) {
    const request = { scan, indexDir, keep: lacked, most: MOST_STARTS, maxMatches: SCAN_MATCHES };
    const found = definitionsOf([name], cwd, request)
      .then((f) => f.definitions.map((d) => ({ ...nodeAt(d.path, d.line, name), unindexed: d })))
      .catch(() => []);
    lacking.set(name, found);
  }
  return lacking.get(name);
}

/** A definition the source shows, as the walk's nodes are. */
const nodeAt = (file, line, name) => ({
  id: `source:${file}:${line}`,
  name,
  kind: "function",
  filePath: file,
  startLine: line,
});

/** The walk's outcome with the paths from the source beside the graph's (at least one of them, when any). */
function withSourcePaths(walk, extra, most) {
  // A path through the same places as one before it (a source node where the graph has the definition) is not said twice.
  const placeKey = (p) => p.nodes.map((n) => `${n.filePath}:${n.startLine}`).join(" ");
  const said = new Set(walk.paths.map(placeKey));
  const fresh = shortestFirst(extra, extra.length).filter((p) => !said.has(placeKey(p)) && said.add(placeKey(p)));
  const own = fresh.slice(0, walk.paths.length > 0 ? most - 1 : most);
  if (own.length === 0) return walk;
  return { ...walk, paths: [...shortestFirst(walk.paths, most - own.length), ...own], bridged: true };
}

module.exports = { lackedDefinitions, sourcePaths, withSourcePaths };
