// codegraph_relations' `path` where neither CodeGraph's graph nor one text hop joins `from` to
// `to`: the reverse graph of `to` is extended backward through the source, a level at a time.
// Each line the source search found calling a name of the graph by name (in code, not a
// definition) sits in a definition (the scan's `within`, from the runner's outline); a definition
// not yet in the graph becomes a node one hop further from `to`, its edge a text match at that
// line (a call through a manager's copied method, a backend taken from settings, a scheduler's
// flavour: what a static index cannot link). The next search looks for their names in the bodies
// `from` reached (lib/api/call-graph.js's bridges). Which definition a call by name goes to is the
// source's nearest guess: the same file's namesake first, then one in the file its qualifier
// names (`context::defer`, `hashers.check_password`), then the nearest to `to`; every such hop
// is said as a text match (lib/words/call-path.js).

const path = require("node:path");
const { isScannableName } = require("../contract/definitions.js");
const { pathNames } = require("./answer-subject.js");
const { isCommentLine } = require("./blind-spots.js");
const { mention } = require("./call-graph.js");

/** Namesakes of a called name one definition may go to. */
const MOST_NAMESAKES = 3;
/** Names a level adds to the search, those nearest the definitions `from` reached first. */
const MOST_NAMES = 48;

/**
 * What is written before a call of `name` on `text`: `{ scope: "context", attribute: false }` of
 * `context::defer(`, `{ scope: "user", attribute: true }` of `user.check(`; null for a bare call.
 */
function qualifierOf(text, name) {
  const n = name.replace(/\$/gu, "\\$");
  const m = new RegExp(`([A-Za-z_$][\\w$]*)\\s*(::|\\.)\\s*${n}\\s*[(<:]`, "u").exec(text);
  return m ? { scope: m[1], attribute: m[2] === "." } : null;
}

/**
 * Adds to `graph` (nodes, out, dist) the definitions the search's `matches` show calling one of
 * `names` that the graph lacks, each one hop further from `to` than the namesakes it goes to.
 * `near(node)`: how near the definitions `from` reached a node is (higher nearer). Returns their
 * names not yet searched, nearest first, at most MOST_NAMES.
 */
function extendedByText(graph, matches, names, { searched, near }) {
  const named = new Map();
  for (const n of graph.nodes.values()) if (graph.dist.has(n.id)) named.set(n.name, [...(named.get(n.name) ?? []), n]);
  const added = new Map(); // id → { node, calls: [{ name, line, qualifier }] }
  for (const m of matches) {
    if (typeof m?.text !== "string" || typeof m.within !== "string" || m.code === false) continue;
    if ((Array.isArray(m.tags) && m.tags.includes("defines")) || isCommentLine(m.text)) continue;
    if (m.within.startsWith("impl ") || !isScannableName(m.within)) continue;
    const known = named.get(m.within)?.some((n) => n.filePath === m.path);
    if (known) continue; // the graph's own definition: its edges are CodeGraph's
    for (const name of names) {
      if (!named.has(name) || !mention(m.text, name)?.call) continue;
      const id = `text:${m.path}#${m.within}`;
      // Its kind is not known (the scan names the definition a line sits in).
      const node = added.get(id)?.node ?? { id, name: m.within, kind: "definition", filePath: m.path, startLine: null };
      const calls = added.get(id)?.calls ?? [];
      if (!calls.some((c) => c.name === name))
        calls.push({ name, line: m.line, file: m.path, qualifier: qualifierOf(m.text, name) });
      added.set(id, { node, calls });
    }
  }
  for (const { node } of added.values()) named.set(node.name, [...(named.get(node.name) ?? []), node]);
  // Each new definition's namesakes, the same file's first; its distance from theirs, settled in rounds.
  const targets = new Map();
  for (const [id, { node, calls }] of added) {
    const edges = [];
    for (const call of calls) {
      const all = (named.get(call.name) ?? []).filter((t) => t.id !== id);
      const own = all.filter((t) => t.filePath === node.filePath);
      const scoped = call.qualifier ? all.filter((t) => pathNames(t.filePath, call.qualifier.scope)) : [];
      // `user.check_password(…)` on a value is a method's call: not a module's function, when another may be meant.
      const methods = call.qualifier?.attribute ? all.filter((t) => t.kind !== "function") : [];
      const chosen = own.length ? own : scoped.length ? scoped : methods.length ? methods : all;
      for (const t of chosen.slice(0, MOST_NAMESAKES))
        edges.push({ source: id, target: t.id, text: true, call: true, file: call.file, line: call.line });
    }
    targets.set(id, edges);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [id, edges] of targets) {
      const ds = edges.map((e) => graph.dist.get(e.target)).filter((d) => d !== undefined);
      const d = ds.length ? Math.min(...ds) + 1 : undefined;
      if (d !== undefined && (!graph.dist.has(id) || d < graph.dist.get(id))) {
        graph.dist.set(id, d);
        changed = true;
      }
    }
  }
  const fresh = [];
  for (const [id, edges] of targets) {
    if (!graph.dist.has(id)) continue;
    graph.nodes.set(id, added.get(id).node);
    graph.out.set(id, edges);
    fresh.push(added.get(id).node);
  }
  fresh.sort((a, b) => near(b) - near(a) || graph.dist.get(a.id) - graph.dist.get(b.id));
  const more = [...new Set(fresh.map((n) => n.name))].filter((n) => !searched.has(n));
  return more.slice(0, MOST_NAMES);
}

/** How near a node is to the definitions `reached`: 2 in one of their files, 1 in one of their folders. */
function nearReached(reached) {
  const files = new Set([...reached.values()].map((r) => r.node.filePath));
  const dirs = new Set([...files].map((f) => path.posix.dirname(f)));
  return (n) => (files.has(n.filePath) ? 2 : dirs.has(path.posix.dirname(n.filePath)) ? 1 : 0);
}

/**
 * `paths` with the first line of each text node (`startLine: null`) from its file's outline: the
 * innermost definition that holds the line of its call, when it has the node's name. A path with
 * a node the outline does not place so (no outline, a definition that ends before the line, a
 * nested one that holds it) is left out: no line is said to be in a definition that does not hold it.
 */
async function placedTextNodes(paths, { cwd, outline, deadlineMs }) {
  const open = paths.flatMap((p) => p.nodes).filter((n) => n.startLine === null);
  if (open.length === 0) return paths;
  if (typeof outline !== "function") return [];
  const files = [...new Set(open.map((n) => n.filePath))];
  const found = await Promise.resolve()
    .then(() => outline(cwd, { paths: files, deadlineMs }))
    .catch(() => null);
  const defs = new Map();
  for (const f of Array.isArray(found?.files) ? found.files : [])
    if (f && Array.isArray(f.definitions)) defs.set(f.path, f.definitions);
  const lineOf = (n, at) => {
    let inner = null;
    for (const d of defs.get(n.filePath) ?? [])
      if (d.line <= at && at <= d.endLine && (!inner || d.line >= inner.line)) inner = d;
    return inner?.name === n.name && typeof inner.macro !== "string" ? inner.line : null;
  };
  const place = (p) => ({
    ...p,
    nodes: p.nodes.map((n, i) =>
      n.startLine === null && p.edges[i] ? { ...n, startLine: lineOf(n, p.edges[i].line) } : n,
    ),
  });
  return paths.map(place).filter((p) => p.nodes.every((n) => n.startLine !== null));
}

module.exports = { extendedByText, nearReached, placedTextNodes, qualifierOf };
