// `/codegraph sync auto` and `/codegraph sync manual`: the user's choice of whether the
// workspace's index follows the agent's edits (lib/pi/auto-sync.js), kept for the workspace in
// Pi's agent directory. Turning it on needs what a typed sync needs (a trusted project, a CLI with
// sync, the workspace's own index); turning it off always works.

const { saveSyncMode } = require("../auto-sync.js");
const { ownIndexPath } = require("./index-files.js");
const { cliUnusable, verbSupport } = require("./verb-rules.js");
const { autoOffText, autoOnText, autoRefusedText } = require("../../words/auto-sync.js");
const { noCliText, noOwnIndexText, unsupportedText } = require("../../words/verbs.js");

/** Saves the mode; `{ file }`, or `{ why }` when it could not be kept. */
function kept(agentDir, cwd, on) {
  try {
    return { file: saveSyncMode(agentDir, cwd, on) };
  } catch (err) {
    return { why: String(err?.code ?? err?.message ?? err) };
  }
}

/** `/codegraph sync <mode>` (`mode`: "auto" or "manual") in the workspace of `ctx`; env as lib/pi/commands/verbs.js has it. */
async function setSyncMode(mode, ctx, env) {
  const { state } = env;
  const say = (text, type = "info") => env.say(ctx, text, type);
  const verb = `sync ${mode}`;
  if (mode === "manual") {
    state.autoSync.set(false, ctx);
    const saved = kept(state.agentDir, ctx.cwd, false);
    return say(autoOffText(saved.file, saved.why));
  }
  await env.refresh(ctx);
  const d = state.diagnosis ?? {};
  // Untrusted, no CLI: the same refusal a typed sync gets, before anything is kept.
  if (d.problemCode === "CODEGRAPH_UNTRUSTED") return say(autoRefusedText(d.problem), "warning");
  if (cliUnusable(d)) return say(noCliText(verb, d.problem), "error");
  const support = verbSupport("sync", d.cliVersion);
  if (!support.ok) return say(unsupportedText(verb, support.why), "warning");
  if (!ownIndexPath(d)) return say(noOwnIndexText(verb, { cwd: ctx.cwd, ancestorIndex: d.ancestorIndex }), "warning");
  state.autoSync.set(true, ctx);
  const saved = kept(state.agentDir, ctx.cwd, true);
  say(autoOnText(saved.file, saved.why));
  // What changed before it was turned on is synced now, in the background, as after a turn.
  state.autoSync.afterTurn(ctx);
}

module.exports = { setSyncMode };
