// codegraph_relations' `path`, the walk (lib/api/call-path.js runs the commands and words the
// answer): the paths CodeGraph's graph gives from `from`'s definitions; else forward from them,
// level by level (`callees` of what they reached, those nearest `to` first), while the source is
// searched for the names of what reaches `to` (the runner's bounded `scanSource`): a name in the
// body of a definition `from` reached is a hop the graph lacks (lib/api/call-graph.js's bridges).
// Where none joins them, the graph of `to` grows backward through the source a level or two
// (lib/api/call-text-reach.js) and the bodies `from` reached are searched for those names.

const path = require("node:path");
const { mentionScan } = require("../contract/call-sites.js");
const { pathCalleesCommand } = require("../contract/commands.js");
const { isScannableName } = require("../contract/definitions.js");
const { bridges, forwardStep, joined, outlinedOf, pathsWithin, shortestFirst } = require("./call-graph.js");
const { extendedByText, nearReached, placedTextNodes } = require("./call-text-reach.js");
const { textStep } = require("./call-text-step.js");
const { begun } = require("./source-search.js");

/** At most this many paths are given. */
const MOST_PATHS = 3;
/** Hops the forward walk takes from `from` (the first is its own callees, read beside impact). */
const FORWARD_LEVELS = 3;
/** Definitions a further level reads the callees of: those nearest `to` first. */
const STEP_WIDTH = 6;
/** A further level starts only while this share of the budget is left. */
const STEP_BUDGET_SHARE = 0.5;
/** Names of what reaches `to` the source is searched for, nearest first. */
const MAX_SCAN_NAMES = 24;
/** The search reads every line naming them, up to this many (mentionScan's bounds otherwise). */
const SCAN_MATCHES = 2000;
/** Levels the graph of `to` may grow backward through the source, while this share of the budget is left. */
const TEXT_LEVELS = 2;
const TEXT_BUDGET_SHARE = 0.25;
/** How long the outlines of the matches' files may take. */
const OUTLINE_DEADLINE_MS = 1000;

/** How near `to` a definition `from` reached looks: in a file, then a folder, of what reaches `to`; deeper first. */
function nearness(graph) {
  const files = new Set([...graph.nodes.values()].map((n) => n.filePath));
  const dirs = new Set([...files].map((f) => path.posix.dirname(f)));
  const score = (r) => (files.has(r.node.filePath) ? 2 : dirs.has(path.posix.dirname(r.node.filePath)) ? 1 : 0);
  return (a, b) => score(b) - score(a) || b.level - a.level;
}

/** The names of what reaches `to`, nearest first, that a text search can look for. */
function scanNames(graph) {
  const nodes = [...graph.nodes.values()].filter((n) => graph.dist.has(n.id));
  nodes.sort((a, b) => graph.dist.get(a.id) - graph.dist.get(b.id));
  return [...new Set(nodes.map((n) => n.name))].filter(isScannableName).slice(0, MAX_SCAN_NAMES);
}

/**
 * The walk: paths in the graph from `from`'s definitions; else forward from them, level by level,
 * with the source searched meanwhile for the names of what reaches `to`.
 */
async function walked(graph, step, { data, left, budget, cwd, scan, outline, lines, indexDir, started }) {
  const paths = step.roots.flatMap((r) => pathsWithin(graph, r, MOST_PATHS, { detour: true }));
  const reached = new Map(step.roots.map((r) => [r.id, { node: r, route: { nodes: [r], edges: [] }, level: 0 }]));
  if (paths.length > 0) return { paths: shortestFirst(paths, MOST_PATHS), reached, levels: 0 };
  const expand = (s, level) => {
    for (const root of s.roots) {
      const here = reached.get(root.id);
      if (!here || here.level !== level - 1) continue;
      for (const e of s.out.get(root.id) ?? []) {
        const node = graph.nodes.get(e.target) ?? s.nodes.get(e.target);
        if (!node || reached.has(node.id)) continue;
        const route = { nodes: [...here.route.nodes, node], edges: [...here.route.edges, e] };
        reached.set(node.id, { node, route, level });
        for (const rest of pathsWithin(graph, node, MOST_PATHS, { detour: true })) paths.push(joined(route, rest));
      }
    }
  };
  expand(step, 1);
  // The source search, begun now, while the walk goes on.
  const names = scanNames(graph);
  const search =
    typeof scan === "function" && names.length > 0 && paths.length === 0
      ? begun((signal) => scan(cwd, { ...mentionScan(names, { indexDir }), maxMatches: SCAN_MATCHES }, signal))
      : null;
  started(search);
  const searching = search?.found ?? null;
  // `from`'s definitions the graph gives no callee: the names their bodies call, looked up (text matches).
  const bare = step.roots.filter((r) => (step.out.get(r.id) ?? []).length === 0);
  if (bare.length > 0 && left() > budget * STEP_BUDGET_SHARE) {
    const lookup = (name) => data(pathCalleesCommand(name));
    for (const h of await textStep(bare, { cwd, outline, lines, lookup, forwardStep })) {
      const here = reached.get(h.root.id);
      if (reached.has(h.node.id) || !here) continue;
      const route = { nodes: [...here.route.nodes, h.node], edges: [...here.route.edges, h.edge] };
      reached.set(h.node.id, { node: h.node, route, level: 1 });
      for (const rest of pathsWithin(graph, h.node, MOST_PATHS)) paths.push(joined(route, rest));
    }
  }
  let levels = 1;
  const near = nearness(graph);
  while (paths.length === 0 && levels < FORWARD_LEVELS && left() > budget * STEP_BUDGET_SHARE) {
    const frontier = [...reached.values()]
      .filter((r) => r.level === levels)
      .sort(near)
      .slice(0, STEP_WIDTH);
    if (frontier.length === 0) break;
    const steps = await Promise.allSettled(frontier.map((r) => data(pathCalleesCommand(r.node.name, r.node.filePath))));
    const cancelled = steps.find((s) => s.status === "rejected" && s.reason?.code === "CODEGRAPH_CANCELLED");
    if (cancelled) throw cancelled.reason;
    levels += 1;
    for (const s of steps) if (s.status === "fulfilled" && s.value.json) expand(forwardStep(s.value.json), levels);
  }
  if (paths.length > 0) {
    search?.end();
    const bridged = paths.some((p) => p.edges.some((e) => e.text));
    return { paths: shortestFirst(paths, MOST_PATHS), reached, levels, bridged };
  }
  const found = searching ? await searching : null;
  const matches = Array.isArray(found?.matches) ? found.matches : [];
  const bridged = bridges(graph, reached, matches, names, await containers(reached, matches, cwd, outline));
  // No hop joins them: `grow()` grows the graph of `to` backward through the source, a level at a
  // time (the caller's last resort, after `from`'s own bodies are read).
  const grow = async () => {
    const searched = new Set(names);
    let level = { matches, names };
    let grown = [];
    for (let l = 0; l < TEXT_LEVELS && grown.length === 0 && left() > budget * TEXT_BUDGET_SHARE; l += 1) {
      const more = extendedByText(graph, level.matches, level.names, { searched, near: nearReached(reached) });
      if (more.length === 0 || typeof scan !== "function") break;
      for (const n of more) searched.add(n);
      const deeper = begun((signal) =>
        scan(cwd, { ...mentionScan(more, { indexDir }), maxMatches: SCAN_MATCHES }, signal),
      );
      started(deeper);
      const next = await deeper.found;
      level = { matches: Array.isArray(next?.matches) ? next.matches : [], names: more };
      grown = bridges(graph, reached, level.matches, more, await containers(reached, level.matches, cwd, outline));
    }
    return placedTextNodes(shortestFirst(grown, MOST_PATHS), { cwd, outline, deadlineMs: OUTLINE_DEADLINE_MS });
  };
  return {
    paths: shortestFirst(bridged, MOST_PATHS),
    bridged: true,
    reached,
    levels,
    scan: found,
    scanned: found !== null,
    near,
    grow: bridged.length === 0 ? grow : null,
  };
}

/**
 * Which reached definition a match sits in: by the outlines of the matches' files that hold a
 * reached definition (the runner's `outlineSource`, exact where the file is read), else by the
 * scan's `within` (lib/api/call-graph.js).
 */
async function containers(reached, matches, cwd, outline) {
  if (typeof outline !== "function") return undefined;
  const files = new Set([...reached.values()].map((r) => r.node.filePath));
  const paths = [...new Set(matches.map((m) => m.path).filter((p) => files.has(p)))].slice(0, 500);
  if (paths.length === 0) return undefined;
  const found = await Promise.resolve()
    .then(() => outline(cwd, { paths, deadlineMs: OUTLINE_DEADLINE_MS }))
    .catch(() => null);
  return Array.isArray(found?.files) ? outlinedOf(reached, found.files) : undefined;
}

module.exports = { MOST_PATHS, STEP_BUDGET_SHARE, walked };
