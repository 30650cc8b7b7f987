// The registered Pi tools: codegraph_explore (one `request` field, bounded by the runner's
// MAX_REQUEST_CHARS) and the focused tools (lib/pi/tools/focused.js), each with its schema, its execute()
// over the runner, and its renderers.

const { FALLBACK_LINE, TOOL_NAME, guidance, toolDescription } = require("../guidance.js");
const { fallbackLineOf, focusedDescription, focusedGuidance } = require("../guidance.js");
const { failedAnswer } = require("../../api/answer.js");
const { exploreCaps, exploreCommand } = require("../../contract/commands.js");
const { invalidArgument: argumentError } = require("../../api/failures.js");
const { toolRenderers } = require("./renderers.js");
const { WORKSPACE_LABEL, pathFacts, rootFor } = require("../roots/roots.js");
const { focusedTool } = require("./focused.js");
const { pathLineText, projectArgText } = require("../../words/roots.js");

/**
 * The `project` property of every tool's schema while several roots exist: an enum of their
 * labels (never a path), required when the workspace has no index of its own. `{}` with one root
 * or none: the schema is as it was.
 */
function projectProperty(peers, roots) {
  if (roots.length <= 1) return {};
  const labels = roots.map((r) => r.label);
  const required = !labels.includes(WORKSPACE_LABEL);
  const schema = peers.StringEnum(labels, { description: projectArgText(required) });
  return { project: required ? schema : peers.Type.Optional(schema) };
}

/**
 * The call's root and its other arguments: `project` taken out of `params` (a lookup among the
 * session's roots, lib/pi/roots/roots.js rootFor) and the rest left as given (getters kept, for the
 * tool's own checks). A `project` where the schema has none (one root or none) must name that
 * root; with none at all it is an unknown argument.
 */
function callRoot(state, params, tool, names) {
  const roots = state.toolRoots?.() ?? [];
  let project;
  let rest = params;
  try {
    if (params !== null && typeof params === "object" && Object.hasOwn(params, "project")) {
      project = params.project;
      const descriptors = Object.getOwnPropertyDescriptors(params);
      delete descriptors.project;
      rest = Object.defineProperties({}, descriptors);
    }
  } catch {
    throw argumentError(tool, "project", "unreadable");
  }
  if (project !== undefined && roots.length === 0) throw argumentError(tool, "project", "unknown", { names });
  return { root: rootFor(roots, project, tool), rest };
}

/** The answer (or failure text) `text` from `root`, with the line saying where its paths start first. */
function withPathLine(text, root, workspace) {
  const facts = pathFacts(root, workspace);
  return facts ? `${pathLineText(facts)}\n${text}` : text;
}

/**
 * What every tool declares it does (MCP's hints, Pi ≥ 0.99 `annotations`): it only reads (the
 * index and the working tree; the model never writes the index), changes nothing, answers the
 * same call the same way, and reaches nothing beyond the workspace (no network). A permission
 * extension reads them to decide which calls to confirm.
 */
const ANNOTATIONS = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/**
 * The tool `name` (codegraph_explore by default, or a focused tool) for the session `state` (its
 * diagnosis and the focused tools on decide the guidance), built with Pi's peers (TypeBox's `Type`
 * and pi-ai's `StringEnum` for the schema; pi-tui's `Text` and Pi's `formatSize` and `keyHint` for
 * the renderers) over `api` (wrapRunner's calls and limits).
 */
function createTool(state, peers, api, name = TOOL_NAME) {
  if (name !== TOOL_NAME) return createFocusedTool(state, peers, api, focusedTool(name));
  const { Type } = peers;
  const limits = api.limits();
  const roots = state.toolRoots?.() ?? [];
  const active = state.activeFocused?.() ?? [];
  // The caps the description states are the ones its calls run with (registered again on a change).
  const caps = exploreCaps(active, limits);
  return {
    name: TOOL_NAME,
    label: "CodeGraph Explore",
    description: toolDescription(caps),
    annotations: { ...ANNOTATIONS },
    ...guidance(state.wordedReadiness?.() ?? state.diagnosis, active, roots),
    parameters: Type.Object({
      request: Type.String({
        description:
          "The Explore request: one natural-language question about the code's structure, naming the symbols or files it is about (e.g. 'how does CheckoutService.checkout reach PaymentProcessor.charge').",
        minLength: 1,
        ...(limits.MAX_REQUEST_CHARS ? { maxLength: limits.MAX_REQUEST_CHARS } : {}),
      }),
      ...projectProperty(peers, roots),
    }),

    execute: (_toolCallId, params, signal, onUpdate, ctx) =>
      // A cancel is the user's (Esc): no advice to the model to use other tools instead.
      executeCall(state, ctx, onUpdate, {
        pick: () => callRoot(state, params, TOOL_NAME, ["request"]),
        run: (options, { root }) =>
          api.run(exploreCommand(params?.request, caps), root?.dir ?? ctx?.cwd, signal, options),
        caps,
        // After a `project` the session does not have, the model picks one of the labels instead.
        trailer: (err) =>
          err.code === "CODEGRAPH_CANCELLED" || err.details?.argument === "project" ? "" : FALLBACK_LINE,
      }),

    ...toolRenderers(TOOL_NAME, peers),
  };
}

/** A focused tool (lib/pi/tools/focused.js `spec`): its schema, words and caps, over the same execute(). */
function createFocusedTool(state, peers, api, spec) {
  const base = spec.parameters(peers);
  const project = projectProperty(peers, state.toolRoots?.() ?? []);
  return {
    name: spec.name,
    label: spec.label,
    description: focusedDescription(spec.name, spec.caps),
    annotations: { ...ANNOTATIONS },
    ...focusedGuidance(spec.name, state.wordedReadiness?.() ?? state.diagnosis),
    parameters: project.project ? peers.Type.Object({ ...base.properties, ...project }) : base,
    execute: (_toolCallId, params, signal, onUpdate, ctx) =>
      executeCall(state, ctx, onUpdate, {
        pick: () => callRoot(state, params, spec.name, Object.keys(base.properties)),
        // The workspace is Pi's, never the model's: `file` is an index lookup key (lib/contract/arguments.js),
        // and a root is one of the session's, picked by its label.
        run: (options, { root, rest }) => api[spec.call](rest, root?.dir ?? ctx?.cwd, signal, options),
        caps: spec.caps,
        // After a bad argument the model fixes the call; after a cancel, nothing to advise.
        trailer: (err) =>
          err.code === "CODEGRAPH_CANCELLED" || err.code === "CODEGRAPH_INVALID_REQUEST"
            ? ""
            : fallbackLineOf(spec.name),
      }),
    ...toolRenderers(spec.name, peers),
  };
}

/**
 * One call of any of the tools: `pick()` its root and other arguments (callRoot), then
 * `run(options, { root, rest })` with the progress and queue listeners Pi's `onUpdate` gets; the
 * answer as Pi's tool result, a failure as a thrown Error whose message is what the model reads
 * (within `caps`, then `trailer(err)`), each after the path line of a root other than the workspace.
 */
async function executeCall(state, ctx, onUpdate, { pick, run, caps, trailer }) {
  // Partial output while the CLI prints (bounded by the same caps, at most every 250 ms),
  // and, before that, the call's place in the index's queue when it has to wait.
  const update = typeof onUpdate === "function" ? onUpdate : undefined;
  const onProgress =
    update &&
    ((p) =>
      update({
        content: [{ type: "text", text: p.text }],
        details: { partial: true, seenBytes: p.seenBytes, seenLines: p.seenLines, elapsedMs: p.elapsedMs },
      }));
  const onQueue =
    update &&
    ((q) =>
      update({
        content: [{ type: "text", text: "" }],
        details: { queued: true, ahead: q.ahead, limit: q.limit, waitedMs: q.waitedMs },
      }));
  // The session this call belongs to: one that ended meanwhile released its files already,
  // and a later session must not release this call's (it stays until the process exits).
  const sessionFiles = state.fullOutputs;
  let root = null;
  // An auto sync of this session's edits running now: the answer waits for it (bounded), and says how long.
  const syncWaitMs = (await state.autoSync?.settled()) || undefined;
  try {
    // The workspace is Pi's, never the model's: no tool has a path parameter, and `project` is a
    // label of one of the session's roots.
    const picked = pick();
    // The workspace's own index is Pi's workspace, as it always was: ctx.cwd. Without a
    // workspace no root is used either (the runner refuses the missing cwd, as it always did).
    root = picked.root?.source === "workspace" || typeof ctx?.cwd !== "string" ? null : picked.root;
    // In another root, on behalf of Pi's workspace: code inside either is kept from the child.
    const workspace = root ? { workspace: ctx?.cwd } : {};
    // Auto sync on: the user has said CodeGraph may write the workspace's index, so one
    // long-lived CodeGraph may answer there (the runner's, stopped at the session's end).
    const warm = !root && state.autoSync?.on === true ? { warm: true } : {};
    const result = await run({ onProgress, onQueue, ...workspace, ...warm }, { root, rest: picked.rest });
    state.callEnded();
    const file = result.details.fullOutputPath;
    if (file && sessionFiles === state.fullOutputs) sessionFiles.push(file);
    const project = root ? { project: { label: root.label, dir: root.dir } } : {};
    const text = withPathLine(result.text, root, ctx?.cwd);
    return {
      content: [{ type: "text", text }],
      details: { ...result.details, ...project, ...(syncWaitMs ? { syncWaitMs } : {}) },
    };
  } catch (err) {
    state.callEnded(err);
    // Pi hands the model only the message: it carries what a stopped CLI had printed.
    const text = withPathLine(failedAnswer(err, caps, trailer(err)), root, ctx?.cwd);
    const toolError = new Error(text, { cause: err });
    Object.assign(toolError, { code: err.code, remediation: err.remediation, details: err.details });
    throw toolError;
  } finally {
    // What the call showed may have changed readiness (an index made or removed meanwhile).
    state.refresh?.(ctx);
  }
}

module.exports = { createTool };
