// codegraph_relations' `path`: how `from` reaches `to`, in one call. CodeGraph's own graph first:
// `impact <to> --json` (the reverse graph, each edge with its call's line) and `callees <from>
// --json`, run side by side; a path is a walk from `from`'s definitions down the distances to `to`.
// When `from` is not in that graph, the walk goes forward from it (`callees` of what it reached,
// a few definitions a level, a few levels) while the source is searched for the names of what
// reaches `to` (the runner's bounded `scanSource`, each match with the definition it sits in): a
// name in the body of a definition `from` reached is a hop the graph lacks (a call through a
// variable, a callback, a dict), given as a text match. Without either, the answer says where
// the walk stops. Every command goes through run() (admission, caps, timeout, cancel) within the
// call's one time budget; the answer is cut once (lib/api/answer.js) within the relations caps.
// Worded by lib/words/call-path.js.

const path = require("node:path");
const { mentionScan } = require("../contract/call-sites.js");
const { FOCUSED_CAPS, PATH_DEPTH, PATH_NEAR_DEPTH } = require("../contract/commands.js");
const { pathCalleesCommand, pathImpactCommand } = require("../contract/commands.js");
const { isScannableName } = require("../contract/definitions.js");
const { DEFAULT_TIMEOUT_MS, isTimeout } = require("../contract/limits.js");
const words = require("../words/call-path.js");
const { finishAnswer } = require("./answer.js");
const { answerNotes } = require("./answer-notes.js");
const { placedCalls } = require("./call-lines.js");
const { sourcePaths, withSourcePaths } = require("./call-source-path.js");
const { textStep } = require("./call-text-step.js");
const { isAsked, isQualified, lastPart } = require("./answer-subject.js");
const {
  bridges,
  outlinedOf,
  forwardStep,
  joined,
  parsed,
  pathsWithin,
  reverseGraph,
  shortestFirst,
} = require("./call-graph.js");
const { begun } = require("./source-search.js");
const { withStaleness } = require("./staleness.js");

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
/** How long the outlines of the matches' files may take. */
const OUTLINE_DEADLINE_MS = 1000;

const isSignal = (s) => s !== null && typeof s === "object" && typeof s.addEventListener === "function";

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
 * Whether a definition of the graph (`node`) may be the one `name` asks for: a qualified name's
 * last part, its qualifier matched by the definition's qualified name or its file's path
 * (lib/api/answer-subject.js); any of the name's definitions for a plain name.
 */
const askedBy = (name) => (node) =>
  !isQualified(name) || isAsked(name, { name: node.name, qualified: node.qualified, path: node.filePath }) !== false;

/**
 * `{ text, details }` for `from` → `to` in `cwd` (`deps`: `run` (lib/api/calls.js), the backend's
 * `scan`, `outline` (its `outlineSource`, where it has one) and `release` of full-output files). A CodeGraph failure rejects as run() does.
 */
async function callPath(deps, { from, to }, cwd, signal, options) {
  const started = performance.now();
  const budget = isTimeout(options?.timeoutMs) ? Math.trunc(options.timeoutMs) : DEFAULT_TIMEOUT_MS;
  const left = () => budget - (performance.now() - started);
  // One signal for every command of the call: the caller's cancel, or the end of the call.
  const own = new AbortController();
  const forward = () => own.abort(signal.reason);
  if (isSignal(signal)) {
    if (signal.aborted) forward();
    else signal.addEventListener("abort", forward, { once: true });
  }
  const runSignal = signal === undefined || signal === null || isSignal(signal) ? own.signal : signal;
  const processes = [];
  let first;
  /** One command's JSON (null when its text is not JSON: a not-found line, a cut answer). */
  const data = async (command) => {
    const result = await deps.run(command, cwd, runSignal, {
      ...options,
      timeoutMs: Math.max(1, Math.floor(left())),
    });
    const d = result?.details ?? {};
    first ??= d;
    processes.push({ subcommand: command.subcommand, symbol: command.positional, runMs: d.runMs ?? 0 });
    if (d.fullOutputPath) Promise.resolve(deps.release?.([d.fullOutputPath])).catch(() => {});
    return { json: d.truncated ? null : parsed(result.text), text: result.text, truncated: d.truncated === true };
  };
  let scanning = null;
  try {
    let [impact, calls] = await Promise.all([data(pathImpactCommand(to)), data(pathCalleesCommand(from))]);
    // A qualified name CodeGraph does not know as written (`signing.dumps`, `Effect.sleep`) is asked
    // by its last part; its definitions are then held against the qualifier.
    let toName = to;
    const retry = async (answer, name, command) =>
      !answer.json && !answer.truncated && isQualified(name) ? command(lastPart(name)) : null;
    const [impactLast, callsLast] = await Promise.all([
      retry(impact, to, (n) => data(pathImpactCommand(n))),
      retry(calls, from, (n) => data(pathCalleesCommand(n))),
    ]);
    if (impactLast?.json || impactLast?.truncated) [impact, toName] = [impactLast, lastPart(to)];
    let fromName = from;
    if (callsLast?.json) [calls, fromName] = [callsLast, lastPart(from)];
    // A graph past its bound is read again, nearer `to`.
    let depth = PATH_DEPTH;
    if (impact.truncated) {
      depth = PATH_NEAR_DEPTH;
      impact = await data(pathImpactCommand(toName, depth));
    }
    let text;
    // `from`'s definitions the index lacks (a macro block, far into a large file): from the source.
    const keep = (n) => !isQualified(from) || isAsked(from, { name: n.name, path: n.filePath }) === true; // its file
    const context = { cwd, scan: deps.scan, outline: deps.outline, indexDir: first?.indexPath, keep };
    const graph = impact.json ? reverseGraph(impact.json, askedBy(to)) : null;
    const early = graph ? sourcePaths(graph, lastPart(from), context).catch(() => []) : Promise.resolve([]);
    const own = calls.json ? [] : await early;
    if (own.length > 0) {
      const asked = { impactOf: toName, calleesOf: fromName };
      const outcome = { paths: own.slice(0, MOST_PATHS), bridged: true, reached: new Map(), levels: 0 };
      text = await answerText({ from, to, graph, depth, definitions: 0, cwd, asked, ...outcome });
    } else if (!impact.json || !calls.json) {
      const bad = !impact.json
        ? { answer: impact, name: to, command: pathImpactCommand(to, depth) }
        : { answer: calls, name: from, command: pathCalleesCommand(from) };
      const { subcommand } = bad.command;
      if (bad.answer.truncated) text = words.unreadableText({ subcommand });
      else {
        // Where the source defines the name the index lacks (a macro block, a file too large): lib/api/blind-spots.js.
        const context = { cwd, scan: deps.scan, indexDir: first?.indexPath };
        const notes = await answerNotes(bad.command, bad.answer.text, context).catch(() => "");
        text = [words.notFoundText({ name: bad.name, said: bad.answer.text }), notes].filter(Boolean).join("\n");
      }
    } else {
      await new Promise(setImmediate); // Pi's thread between reading the JSON and the graph
      const step = forwardStep(calls.json);
      // `from`'s definitions its qualifier matches; all of them when it matches none (said).
      const starts = step.roots.filter(askedBy(from));
      const fromOther = starts.length === 0 && step.roots.length > 0;
      if (!fromOther) step.roots = starts;
      const others = [
        ...(fromOther ? [{ asked: from, count: step.roots.length }] : []),
        ...(graph.unmatched ? [{ asked: to, count: graph.roots.length }] : []),
      ];
      if (step.roots.some((r) => graph.dist.get(r.id) === 0)) text = words.samePathText({ from, to });
      else {
        const graphWalk = await walked(graph, step, {
          data,
          left,
          budget,
          cwd,
          scan: deps.scan,
          outline: deps.outline,
          indexDir: first?.indexPath,
          started: (s) => (scanning = s),
        });
        // No path in the graph: `from`'s indexed bodies read from the source too (a call through an alias).
        const bodies = graphWalk.paths.length > 0 || left() < budget * STEP_BUDGET_SHARE ? [] : step.roots.slice(0, 3);
        const read = bodies.length ? await sourcePaths(graph, from, { ...context, roots: bodies }).catch(() => []) : [];
        const walk = withSourcePaths(graphWalk, [...(await early), ...read], MOST_PATHS);
        const asked = { impactOf: toName, calleesOf: fromName };
        text = await answerText({ from, to, graph, depth, definitions: step.roots.length, cwd, asked, ...walk });
      }
      text = [...others.map(words.otherSymbolText), text].join("\n");
    }
    const caps = FOCUSED_CAPS.relations;
    const runMs = processes.reduce((sum, p) => sum + p.runMs, 0);
    const details = {
      ...first,
      truncated: false,
      totalBytes: Buffer.byteLength(text),
      totalLines: text.split("\n").length,
      totalsExact: true,
      keptBytes: Buffer.byteLength(text),
      keptLines: text.split("\n").length,
      fullOutputPath: undefined,
      processes,
      processRunMs: runMs,
    };
    delete details.fullOutputPath;
    const finished = finishAnswer({ text, details, answer: { subcommand: "path", printedNothing: false, ...caps } });
    const answer = await withStaleness(finished, cwd, { caps });
    return { text: answer.text, details: { ...answer.details, durationMs: Math.round(performance.now() - started) } };
  } finally {
    scanning?.end();
    if (isSignal(signal)) signal.removeEventListener("abort", forward);
    own.abort();
  }
}

/**
 * The walk: paths in the graph from `from`'s definitions; else forward from them, level by level,
 * with the source searched meanwhile for the names of what reaches `to`.
 */
async function walked(graph, step, { data, left, budget, cwd, scan, outline, indexDir, started }) {
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
    for (const h of await textStep(bare, { cwd, outline, lookup, forwardStep })) {
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
  return {
    paths: shortestFirst(bridged, MOST_PATHS),
    bridged: true,
    reached,
    levels,
    scan: found,
    scanned: found !== null,
    near,
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

/** The answer's text from the walk's outcome, each hop at the line that names its callee (lib/api/call-lines.js). */
async function answerText({
  from,
  to,
  graph,
  depth,
  definitions,
  cwd,
  asked,
  paths,
  bridged,
  reached,
  levels,
  scan,
  scanned,
  near,
}) {
  if (paths.length > 0)
    return words.pathsText({
      definitions,
      from,
      to,
      paths: await placedCalls(paths, cwd),
      depth,
      bridged: bridged && paths.some((p) => p.edges.some((e) => e.text)),
      scan,
      ...asked,
    });
  const reaching = [...graph.nodes.values()]
    .filter((n) => (graph.dist.get(n.id) ?? 0) > 0)
    .sort((a, b) => graph.dist.get(a.id) - graph.dist.get(b.id));
  const all = [...reached.values()];
  const stops = all.filter((r) => r.level > 0).sort(near ?? (() => 0));
  const shown = (stops.length > 0 ? stops : all).slice(0, 5);
  return words.noPathText({
    from,
    to,
    depth,
    levels,
    reaching,
    reached: stops,
    stops: shown.map((r) => r.node),
    route: shown[0] ? (await placedCalls([shown[0].route], cwd))[0] : undefined,
    scan,
    scanned,
  });
}

module.exports = { callPath };
