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

const { FOCUSED_CAPS, PATH_DEPTH, PATH_NEAR_DEPTH } = require("../contract/commands.js");
const { pathCalleesCommand, pathImpactCommand } = require("../contract/commands.js");
const { DEFAULT_TIMEOUT_MS, isTimeout } = require("../contract/limits.js");
const words = require("../words/call-path.js");
const { finishAnswer } = require("./answer.js");
const { answerNotes } = require("./answer-notes.js");
const { isAsked, isExactly, isQualified, lastPart } = require("./answer-subject.js");
const { forwardStep, parsed, reverseGraph } = require("./call-graph.js");
const { placedCalls } = require("./call-lines.js");
const { callReads } = require("./call-reads.js");
const { lackedDefinitions, sourcePaths, withSourcePaths } = require("./call-source-path.js");
const { MOST_PATHS, STEP_BUDGET_SHARE, walked } = require("./call-walk.js");
const { withStaleness } = require("./staleness.js");

const isSignal = (s) => s !== null && typeof s === "object" && typeof s.addEventListener === "function";

/**
 * Whether a definition of the graph (`node`) may be the one `name` asks for: a qualified name's
 * last part, its qualifier matched by the definition's qualified name or its file's path
 * (lib/api/answer-subject.js); any of the name's definitions for a plain name.
 */
const askedBy = (name) => (node) =>
  !isQualified(name) || isAsked(name, { name: node.name, qualified: node.qualified, path: node.filePath }) !== false;

/**
 * `{ text, details }` for `from` → `to` in `cwd` (`deps`: `run` (lib/api/calls.js), the runner's
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
  // What the call reads of the source (outlines, lines), read once.
  const reads = callReads(deps.outline);
  // The source's definitions of `from` the index lacks, searched for while CodeGraph answers.
  const lacking = new Map();
  if (typeof deps.outline === "function") lackedDefinitions(lastPart(from), { cwd, scan: deps.scan, lacking });
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
    const { outline, lines } = reads;
    const context = { cwd, scan: deps.scan, outline, lines, indexDir: first?.indexDir, keep, lacking };
    const graph = impact.json ? reverseGraph(impact.json, askedBy(to)) : null;
    const early = graph ? sourcePaths(graph, lastPart(from), context).catch(() => []) : Promise.resolve([]);
    const own = calls.json ? [] : await early;
    if (own.length > 0) {
      const asked = { impactOf: toName, calleesOf: fromName };
      const outcome = { paths: own.slice(0, MOST_PATHS), bridged: true, reached: new Map(), levels: 0 };
      text = await answerText({ from, to, graph, depth, definitions: 0, cwd, lines, asked, ...outcome });
    } else if (!impact.json || !calls.json) {
      const bad = !impact.json
        ? { answer: impact, name: to, command: pathImpactCommand(to, depth) }
        : { answer: calls, name: from, command: pathCalleesCommand(from) };
      const { subcommand } = bad.command;
      if (bad.answer.truncated) text = words.unreadableText({ subcommand });
      else {
        // Where the source defines the name the index lacks (a macro block, a file too large): lib/api/blind-spots.js.
        const context = { cwd, scan: deps.scan, indexDir: first?.indexDir };
        const notes = await answerNotes(bad.command, bad.answer.text, context).catch(() => "");
        text = [words.notFoundText({ name: bad.name, said: bad.answer.text }), notes].filter(Boolean).join("\n");
      }
    } else {
      await new Promise(setImmediate); // Pi's thread between reading the JSON and the graph
      const step = forwardStep(calls.json);
      // `from`'s definitions its qualifier matches; all of them when it matches none (said).
      const starts = step.roots.filter(askedBy(from));
      const fromOther = starts.length === 0 && step.roots.length > 0;
      // Those it names exactly first (`django.contrib.auth.authenticate`: the package's function, not a backend's method).
      const exact = starts.filter((n) => isExactly(from, { name: n.name, qualified: n.qualified, path: n.filePath }));
      if (!fromOther) step.roots = exact.length > 0 ? exact : starts;
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
          outline,
          lines,
          indexDir: first?.indexDir,
          started: (s) => (scanning = s),
        });
        // No path in the graph: `from`'s indexed bodies read from the source too (a call through an alias).
        const bodies = graphWalk.paths.length > 0 || left() < budget * STEP_BUDGET_SHARE ? [] : step.roots.slice(0, 3);
        const read = bodies.length ? await sourcePaths(graph, from, { ...context, roots: bodies }).catch(() => []) : [];
        let walk = withSourcePaths(graphWalk, [...(await early), ...read], MOST_PATHS);
        // Still none: the graph of `to` grown back through the source (lib/api/call-text-reach.js).
        const grown = walk.paths.length === 0 && graphWalk.grow ? await graphWalk.grow() : [];
        if (grown.length > 0) walk = { ...walk, paths: grown, bridged: true };
        const asked = { impactOf: toName, calleesOf: fromName };
        text = await answerText({ from, to, graph, depth, definitions: step.roots.length, cwd, lines, asked, ...walk });
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

/** The answer's text from the walk's outcome, each hop at the line that names its callee (lib/api/call-lines.js). */
async function answerText({
  from,
  to,
  graph,
  depth,
  definitions,
  cwd,
  lines,
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
      paths: await placedCalls(paths, cwd, lines),
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
    route: shown[0] ? (await placedCalls([shown[0].route], cwd, lines))[0] : undefined,
    scan,
    scanned,
  });
}

module.exports = { callPath };
