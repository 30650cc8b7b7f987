// The graph a call path is read from (lib/api/call-path.js runs the commands): CodeGraph 1.6.1's
// JSON of `impact <to> --json` (the reverse graph: definitions[].affected[] nodes, edges[] from
// caller to callee with the call's line in the caller's file) and of `callees <name> --json` (one
// forward step), the distance of each node to `to`, the shortest paths, and the hops the source
// shows where the graph has no edge (a text match of a name in a reached definition's body).

const { isCommentLine } = require("./blind-spots.js");

/** The edges a call path follows: calls and functions passed as values (a callback), not imports. */
const FOLLOWED = new Set(["calls", "references"]);

/** CodeGraph's JSON answer, or null when `text` is not JSON (its "Symbol … not found" line). */
function parsed(text) {
  if (typeof text !== "string" || !/^\s*\{/u.test(text)) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * What a path goes through: code that runs (a type, its parameters, an interface or an import is
 * referenced, never called: effect's signatures reference `R`, `E`, `Covariant`).
 */
const RUNS = new Set(["function", "method", "constructor", "variable", "constant", "property", "component", "route"]);
/** What a reference may pass as a callback. */
const CALLABLE = new Set(["function", "method", "constructor"]);

/**
 * A node as the answer uses it, or null for one a path does not go through (a file, a type, no
 * id); an `asked` definition (`from`'s, `to`'s) of any kind but a file.
 */
function nodeOf(raw, { asked = false } = {}) {
  if (!raw || typeof raw.id !== "string" || typeof raw.name !== "string") return null;
  if (raw.kind === "file" || (!asked && !RUNS.has(raw.kind))) return null;
  const startLine = Number.isInteger(raw.startLine) ? raw.startLine : null;
  const node = { id: raw.id, name: raw.name, kind: String(raw.kind), filePath: String(raw.filePath ?? ""), startLine };
  return typeof raw.qualifiedName === "string" ? { ...node, qualified: raw.qualifiedName } : node;
}

/** An edge as the answer uses it: its ends, kind, the call's line, whether CodeGraph made it from an interface. */
function edgeOf(raw) {
  if (!raw || !FOLLOWED.has(raw.kind) || typeof raw.source !== "string" || typeof raw.target !== "string") return null;
  const implementation = raw.metadata?.synthesizedBy === "interface-impl";
  return {
    source: raw.source,
    target: raw.target,
    kind: raw.kind,
    line: Number.isInteger(raw.line) ? raw.line : null,
    ...(implementation && { implementation: true }),
  };
}

/** An empty graph: nodes by id, edges by their source, the definitions asked about (`roots`). */
const emptyGraph = () => ({ nodes: new Map(), out: new Map(), roots: [] });

/** Adds CodeGraph's `definitions[]` (impact's or callees') to `graph`: their nodes, edges and definitions. */
function addDefinitions(graph, json, lists) {
  for (const d of Array.isArray(json?.definitions) ? json.definitions : []) {
    const root = nodeOf(d?.definition, { asked: true }); // the asked definition, whatever its kind
    if (root) {
      graph.nodes.set(root.id, root);
      graph.roots.push(root);
    }
    for (const list of lists)
      for (const raw of Array.isArray(d?.[list]) ? d[list] : []) {
        const node = nodeOf(raw);
        if (node && !graph.nodes.has(node.id)) graph.nodes.set(node.id, node);
      }
    for (const raw of Array.isArray(d?.edges) ? d.edges : []) {
      const edge = edgeOf(raw);
      if (!edge || !graph.nodes.has(edge.source) || !graph.nodes.has(edge.target)) continue;
      // A reference is a hop when it passes a function as a value (a callback), not a type's name.
      if (edge.kind === "references" && !CALLABLE.has(graph.nodes.get(edge.target).kind)) continue;
      const from = graph.out.get(edge.source) ?? [];
      // One edge per pair: the first call site.
      const same = from.find((e) => e.target === edge.target);
      if (!same) from.push(edge);
      else if (edge.line !== null && (same.line === null || edge.line < same.line)) same.line = edge.line;
      graph.out.set(edge.source, from);
    }
  }
  return graph;
}

/**
 * impact's reverse graph of `to`, with `dist`: each node's hops to one of `to`'s definitions, those
 * `keep` takes (all when it takes none: `unmatched`).
 */
function reverseGraph(json, keep = () => true) {
  const graph = addDefinitions(emptyGraph(), json, ["affected"]);
  const kept = graph.roots.filter(keep);
  const unmatched = kept.length === 0 && graph.roots.length > 0;
  if (!unmatched) graph.roots = kept;
  const into = new Map();
  for (const edges of graph.out.values()) for (const e of edges) into.set(e.target, [...(into.get(e.target) ?? []), e]);
  const dist = new Map(graph.roots.map((r) => [r.id, 0]));
  let level = graph.roots.map((r) => r.id);
  while (level.length > 0) {
    const next = [];
    for (const id of level)
      for (const e of into.get(id) ?? [])
        if (!dist.has(e.source)) {
          dist.set(e.source, dist.get(id) + 1);
          next.push(e.source);
        }
    level = next;
  }
  return { ...graph, dist, unmatched };
}

/** One forward step: callees' definitions (`roots`), the nodes they call and the edges. */
const forwardStep = (json) => addDefinitions(emptyGraph(), json, ["callees"]);

/**
 * Up to `most` shortest paths (`{ nodes, edges }`) in `graph` from `start` to one of its roots,
 * each edge one hop nearer (`dist`); with `detour`, when there are fewer, then those one hop
 * longer by one edge to a definition as near as the one before (offerUnsafe → scheduleReleaseTaker
 * → releaseTakers beside offerUnsafe → releaseTakers: another way the code goes). The enumeration
 * bounded.
 */
function pathsWithin(graph, start, most, { detour = false } = {}) {
  const found = [];
  const keys = new Set();
  let steps = 0;
  const walk = (nodes, edges, sideways) => {
    const here = nodes.at(-1).id;
    if (graph.dist.get(here) === 0) {
      const key = nodes.map((n) => n.id).join(" ");
      if (!keys.has(key)) found.push({ nodes, edges });
      keys.add(key);
      return;
    }
    for (const e of graph.out.get(here) ?? []) {
      steps += 1;
      if (found.length >= most || steps > 10_000) return;
      const d = graph.dist.get(e.target);
      const nearer = d === graph.dist.get(here) - 1;
      const aside = sideways > 0 && d === graph.dist.get(here) && !nodes.some((n) => n.id === e.target);
      if (nearer || aside) walk([...nodes, graph.nodes.get(e.target)], [...edges, e], aside ? sideways - 1 : sideways);
    }
  };
  if (graph.dist.has(start.id)) {
    const first = graph.nodes.get(start.id) ?? start;
    walk([first], [], 0);
    if (detour && found.length < most) walk([first], [], 1);
  }
  return found;
}

/** `prefix` (a path ending where `rest` starts) and `rest` as one path. */
const joined = (prefix, rest) => ({
  nodes: [...prefix.nodes, ...rest.nodes.slice(1)],
  edges: [...prefix.edges, ...rest.edges],
});

/** A test's file (`tests/`, `__tests__/`, `test_x.py`, `x_test.go`, `x.test.ts`, `x.spec.js`). */
const TEST_FILE = /(?:^|\/)(?:tests?|__tests__|spec)\/|(?:^|\/)test_[^/]*$|_test\.\w+$|\.(?:test|spec)\.\w+$/u;

/**
 * The paths by length; at equal length the graph's own before text matches, then those through
 * fewer tests' files; at most `most`, none twice.
 */
function shortestFirst(paths, most) {
  const seen = new Set();
  const textHops = (p) => p.edges.filter((e) => e.text).length;
  const inTests = (p) => p.nodes.filter((n) => TEST_FILE.test(n.filePath)).length;
  return paths
    .sort((a, b) => a.edges.length - b.edges.length || textHops(a) - textHops(b) || inTests(a) - inTests(b))
    .filter((p) => {
      const key = p.nodes.map((n) => n.id).join(" ");
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, most);
}

const before = "(?:^|[^\\w$])";
/** Whether `text` (one bounded line) names `name`, and whether as a call (`name(`, `name::<T>(`, `name<T>(`). */
function mention(text, name) {
  const n = name.replace(/\$/gu, "\\$");
  if (!new RegExp(`${before}${n}(?:[^\\w$]|$)`, "u").test(text)) return null;
  return { call: new RegExp(`${before}${n}\\s*(?:::\\s*<[^>]*>\\s*)?(?:<[^>()]*>\\s*)?\\(`, "u").test(text) };
}

/** A name's definitions a text match may mean, nearest `to` first: the hop is by name, and namesakes share it. */
const MOST_NAMESAKES = 3;

/**
 * The hops the source shows from the definitions `from` reached (`reached`: id → { node, route })
 * to the nodes that reach `to` (`graph`), by the scan's matches (`matches`: lines naming their
 * names, each with `within`, the definition it sits in): for each match inside a reached
 * definition's body that calls one of their names (not a comment, not a definition), a "text
 * match" edge to each of the nearest few nodes of that name (a call by name may mean any
 * namesake; the shortest paths are given first). A definition calling its own name on
 * something else (`backend.authenticate(…)` in `authenticate`) is a hop to another definition.
 */
function bridges(graph, reached, matches, names, containerOf = withinOf(reached)) {
  const named = new Map();
  for (const node of graph.nodes.values()) {
    if (!graph.dist.has(node.id)) continue;
    named.set(node.name, [...(named.get(node.name) ?? []), node]);
  }
  for (const list of named.values()) list.sort((a, b) => graph.dist.get(a.id) - graph.dist.get(b.id));
  const paths = [];
  for (const m of matches) {
    if (typeof m?.text !== "string") continue;
    // A definition of the name, or a comment, docstring or string that mentions it, is no call.
    if ((Array.isArray(m.tags) && m.tags.includes("defines")) || isCommentLine(m.text) || m.code === false) continue;
    const r = containerOf(m);
    if (!r || (r.node.startLine !== null && m.line <= r.node.startLine)) continue;
    for (const name of names) {
      const seen = named.has(name) && mention(m.text, name);
      if (!seen?.call) continue; // a name only mentioned (passed, compared) is no hop toward `to`
      const targets = named
        .get(name)
        .filter((t) => t.id !== r.node.id)
        .slice(0, MOST_NAMESAKES);
      for (const target of targets) {
        const edge = { source: r.node.id, target: target.id, text: true, call: seen.call, file: m.path, line: m.line };
        const prefix = { nodes: [...r.route.nodes], edges: [...r.route.edges, edge] };
        for (const rest of pathsWithin(graph, target, 1))
          paths.push(joined({ ...prefix, nodes: [...prefix.nodes, target] }, rest));
      }
    }
  }
  return paths;
}

/** The reached definition a match sits in by the scan's `within` (its name, in the same file). */
function withinOf(reached) {
  const byPlace = new Map();
  for (const r of reached.values()) byPlace.set(`${r.node.name}\0${r.node.filePath}`, r);
  return (m) => (typeof m.within === "string" ? (byPlace.get(`${m.within}\0${m.path}`) ?? null) : null);
}

/**
 * The reached definition a match sits in by the files' outlines (`outlines`: the runner's
 * `outlineSource` files): the innermost definition whose lines hold the match, when it is a reached
 * one (its name, its first line within a few of CodeGraph's, a decorator or attribute apart) and
 * no macro template; else, for a file without an outline, by `within`.
 */
function outlinedOf(reached, outlines) {
  const byFile = new Map();
  for (const f of outlines) if (f && !f.problem && Array.isArray(f.definitions)) byFile.set(f.path, f.definitions);
  const fallback = withinOf(reached);
  const inFile = new Map();
  for (const r of reached.values()) inFile.set(r.node.filePath, [...(inFile.get(r.node.filePath) ?? []), r]);
  return (m) => {
    const defs = byFile.get(m.path);
    if (!defs) return fallback(m);
    let inner = null;
    for (const d of defs) if (d.line <= m.line && m.line <= d.endLine && (!inner || d.line >= inner.line)) inner = d;
    if (!inner || typeof inner.macro === "string") return null;
    const near = (r) => r.node.startLine === null || Math.abs(r.node.startLine - inner.line) <= 3;
    return (inFile.get(m.path) ?? []).find((r) => r.node.name === inner.name && near(r)) ?? null;
  };
}

module.exports = {
  bridges,
  mention,
  outlinedOf,
  forwardStep,
  joined,
  parsed,
  pathsWithin,
  reverseGraph,
  shortestFirst,
};
