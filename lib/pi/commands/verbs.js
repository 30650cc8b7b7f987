// The `/codegraph <verb>` commands the user types (the model never runs one: a tool result
// cannot trigger a command): status, init, sync, rebuild, uninit, unlock, cancel and changes (read-only). Each write
// is one command description (lib/contract/commands.js) run through the glue's run(), the same hardened
// runner as explore; this module decides whether to run it (the workspace's own index, the
// installed CLI, one write at a time, the user's consent), shows its progress and lets the user
// stop it, and says what happened. Words: lib/words/verbs.js.

const path = require("node:path");
const { verbCommand } = require("../../contract/verbs.js");
const { lockFileIn, lockState, ownIndexPath, unfinishedRebuild } = require("./index-files.js");
const {
  NEED_YES,
  VERB_FEATURES,
  asksFirst,
  cliUnusable,
  parseVerbArgs,
  verbSupport,
  watchOff,
} = require("./verb-rules.js");
const { parseIndexStatus, writeOutcome } = require("../../contract/index-status.js");
const { spokenRoot, verbTarget } = require("./verb-target.js");
const { withProgress } = require("./write-progress.js");
const { notOwnRefusal } = require("./verb-refusal.js");
const { changedFileNames } = require("../../api/changed-files.js");
const { VERB_LINES } = require("../../words/command.js");
const { closestWord } = require("./did-you-mean.js");
const { askEnclosing } = require("./enclosing-choice.js");
const { askWorktreeStart, copyAndSync } = require("./worktree-init.js");
const { runningWrites } = require("./running-writes.js");
const { SYNC_MODES } = require("../auto-sync.js");
const { CANCELLED_NOTHING, alreadyIndexedText, busyText } = require("../../words/verbs.js");
const { cancellingText, confirmText, doneText, failedText, hooksWhy } = require("../../words/verbs.js");
const { indexReport, unreadableStatusText } = require("../../words/index-report.js");
const { liveWriterText, needsYesText, noCliText, noOwnIndexText } = require("../../words/verbs.js");
const { nothingToCancelText, unknownVerbText } = require("../../words/verbs.js");
const { bugText, noIndexDirText, unsupportedText } = require("../../words/verbs.js");
const { pickProjectText, pickTitleText, projectHeadText } = require("../../words/verbs.js");
const { typeLabelText, unknownProjectText } = require("../../words/verbs.js");

/**
 * The end of a finished write's output, from its own result: the whole text, or when the caps cut
 * it the runner's tail (the end of the cleaned output past the caps; both runners give it). Its
 * full-output file is released unread: nobody reads it.
 */
function outputEnd(result, glue) {
  const d = result.details ?? {};
  if (d.fullOutputPath) glue.releaseFullOutputs([d.fullOutputPath]);
  return d.truncated ? String(d.outputTail ?? "") : result.text;
}

/**
 * `/codegraph <args>` with a verb: `env` is `{ glue, state, peers, refresh(ctx), say(ctx, text,
 * type) }` from lib/pi/session.js. Never throws: a bug of ours is said, not left to Pi.
 */
async function handleVerb(args, ctx, env) {
  try {
    await verbOf(args, ctx, env);
  } catch (err) {
    env.say(ctx, bugText(parseVerbArgs(args).verb, err), "error");
  }
}

async function verbOf(args, ctx, env) {
  const { verb, yes, extra } = parseVerbArgs(args);
  const plainSay = (text, type = "info") => env.say(ctx, text, type);
  if (verb === "cancel") return cancelWrite(extra, ctx, env);
  // `sync auto` / `sync manual`: the workspace's mode, not a project's label.
  if (verb === "sync" && extra.length === 1 && SYNC_MODES.includes(extra[0].toLowerCase()))
    return require("./sync-mode.js").setSyncMode(extra[0].toLowerCase(), ctx, env);
  // One word may follow a verb: a project's label (an option other than --yes is not ours to pass).
  if (!Object.hasOwn(VERB_FEATURES, verb) || extra.length > 1 || extra[0]?.startsWith("-")) {
    const guess = Object.hasOwn(VERB_FEATURES, verb) ? undefined : closestWord(verb, Object.keys(VERB_LINES));
    return plainSay(unknownVerbText(args.trim(), guess), "warning");
  }
  await env.refresh(ctx);
  const target = verbTarget(verb, extra[0], env.state);
  if (target.unknown) return plainSay(unknownProjectText(verb, extra[0], target.unknown), "warning");
  if (target.pick) {
    // A choice to make: Pi's select where there is a UI to ask in, else the labels to type.
    if (!ctx.hasUI || typeof ctx.ui?.select !== "function")
      return plainSay(pickProjectText(verb, target.pick), "warning");
    let label;
    try {
      label = await ctx.ui.select(pickTitleText(verb), target.pick);
    } catch {}
    if (!target.pick.includes(label)) return plainSay(CANCELLED_NOTHING(verb));
    return verbOf(`${verb} ${label}${yes ? " --yes" : ""}`, ctx, env);
  }
  if (target.typeLabel) return plainSay(typeLabelText(verb, target.typeLabel), "warning");
  const root = target.root && target.root.source !== "workspace" ? target.root : null;
  const cwd = root ? root.dir : ctx.cwd;
  // What is said about another root, or by a write while there are others, begins with the root it is about.
  const named = spokenRoot(verb, root, env.state, ctx.cwd);
  const headed = (text) => (named ? `${projectHeadText(named)}\n${text}` : text);
  const say = (text, type = "info") => env.say(ctx, headed(text), type);
  const show = (_c, name, text, type) => env.show(ctx, name, headed(text), type);
  const rootEnv = { ...env, say: (_c, text, type) => say(text, type), show };
  const d = root ? await env.glue.diagnose(cwd, ctx.cwd) : (env.state.diagnosis ?? {});
  const support = verbSupport(verb, d.cliVersion);
  if (!support.ok) return say(unsupportedText(verb, support.why), "warning");
  if (cliUnusable(d)) return say(noCliText(verb, d.problem), "error");
  // Every verb acts on the index directory the diagnosis found; without one it says why, never guesses.
  if (typeof d.indexDir !== "string" || d.indexDir === "") return say(noIndexDirText(verb, d), "warning");
  // The index not the workspace's own: every verb says so alike, before any dialog.
  if (notOwnRefusal(verb, d)) return say(notOwnRefusal(verb, d), "warning");

  if (verb === "status") return indexStatus(ctx, rootEnv, d, cwd);
  if (verb === "changes") return showChanges(ctx, rootEnv, cwd);

  const running = runningWrites.get(cwd);
  if (running) return say(busyText(verb, { running: running.verb }), "warning");
  const own = ownIndexPath(d);
  if (verb === "init") {
    if (own) return say(alreadyIndexedText({ indexDir: own }), "warning");
  } else if (!own) {
    return say(noOwnIndexText(verb, { cwd, ancestorIndex: d.ancestorIndex }), "warning");
  }
  if (d.problemCode === "CODEGRAPH_INDEX_BUSY")
    return say(liveWriterText(verb, d.indexProblem ?? d.problem), "warning");

  // A choice to make, not a consent to give: in a git worktree, another worktree's index (copied
  // and synced) or a new one; else the enclosing project's index (never another worktree's), or a new one here.
  const asking = !yes && verb === "init" && !root;
  const start = asking ? await askWorktreeStart(ctx, env, cwd) : null;
  if (start?.copy) {
    const to = path.join(cwd, path.basename(start.copy.diagnosis.indexDir));
    return copyAndSync(ctx, rootEnv, cwd, to, start.copy);
  }
  if (start?.none) return say(CANCELLED_NOTHING(verb));
  const choice = start?.fresh
    ? "here"
    : asking
      ? await askEnclosing(ctx, { cwd, ancestorIndex: d.ancestorIndex })
      : null;
  if (choice === "enclosing") return require("./roots.js").handleRoots(` add ${d.ancestorIndex}`, ctx, env);
  if (choice === "none") return say(CANCELLED_NOTHING(verb));
  if (!yes && !choice && asksFirst(verb, d.indexDir)) {
    if (ctx.hasUI) {
      const { title, body } = confirmText(verb, {
        cwd,
        indexDir: d.indexDir,
        hooks: verb === "init" ? hooksWhy(watchOff(cwd)) : null,
        // Where CodeGraph's init installs and its uninit removes its git hooks: the workspace's
        // own .git/hooks, or (without one) nowhere, as the runner pins them.
        gitHooksDir: d.gitHooksDir,
        ancestorIndex: d.ancestorIndex,
        indexBytes: d.indexBytes,
        lock: verb === "unlock" ? lockFileIn(d.indexDir) : null,
      });
      let ok = false;
      try {
        ok = await ctx.ui.confirm(title, body);
      } catch {}
      if (!ok) return say(CANCELLED_NOTHING(verb));
    } else if (NEED_YES.has(verb)) {
      return say(needsYesText(verb, root?.label), "warning");
    }
  }
  // Another write may have started while a dialog (the choice or the confirm) was open.
  const meanwhile = runningWrites.get(cwd);
  if (meanwhile) return say(busyText(verb, { running: meanwhile.verb }), "warning");
  return runWrite(verb, ctx, rootEnv, cwd);
}

/**
 * `/codegraph cancel [label]`: stops the write running in one of this session's roots (the
 * workspace's, or the labelled root's; without a label, the only one running).
 */
function cancelWrite(extra, ctx, env) {
  const roots = env.state?.roots ?? [];
  const dirs = [ctx.cwd, ...roots.map((r) => r.dir)];
  let running = dirs.filter((dir, i) => dirs.indexOf(dir) === i && runningWrites.has(dir));
  if (extra.length > 0) {
    const root = roots.find((r) => r.label === extra[0]);
    if (!root)
      return env.say(
        ctx,
        unknownProjectText(
          "cancel",
          extra[0],
          roots.map((r) => r.label),
        ),
        "warning",
      );
    running = running.filter((dir) => dir === root.dir);
  }
  if (running.length === 0) return env.say(ctx, nothingToCancelText(extra[0]), "info");
  if (running.length > 1) {
    const labels = roots.filter((r) => running.includes(r.dir)).map((r) => r.label);
    return env.say(ctx, pickProjectText("cancel", labels), "warning");
  }
  const write = runningWrites.get(running[0]);
  env.say(ctx, cancellingText(write.verb), "info");
  write.controller.abort();
}

/** In a root other than Pi's workspace, the run is on its behalf: code inside either is kept from the child. */
const onBehalf = (cwd, ctx) => (cwd === ctx.cwd ? {} : { workspace: ctx.cwd });

/** Runs the write `verb` in `cwd` (consent given), shows its progress and result, and refreshes readiness. */
async function runWrite(verb, ctx, env, cwd) {
  const controller = new AbortController();
  runningWrites.set(cwd, { verb, controller });
  const started = performance.now();
  let outcome;
  try {
    outcome = await withProgress(verb, ctx, env.peers, controller, (onProgress) =>
      env.glue.run(verbCommand(verb), cwd, controller.signal, { onProgress, ...onBehalf(cwd, ctx) }),
    );
  } finally {
    runningWrites.delete(cwd);
  }
  const durationMs = performance.now() - started;
  // Readiness at once: the tool is registered again with the new guidance, the slot follows.
  env.state?.indexWritten();
  await env.refresh(ctx);
  const d = cwd === ctx.cwd ? (env.state.diagnosis ?? {}) : await env.glue.diagnose(cwd, ctx.cwd);
  if (outcome.error?.code === "CODEGRAPH_NO_INDEX" && notOwnRefusal(verb, d))
    return env.say(ctx, notOwnRefusal(verb, d), "warning");
  if (outcome.error) {
    const err = outcome.error;
    const type = err?.code === "CODEGRAPH_CANCELLED" ? "warning" : "error";
    const facts = { durationMs, cwd, ancestorIndex: d.ancestorIndex, subcommand: verbCommand(verb).subcommand };
    return env.say(ctx, failedText(verb, err, facts), type);
  }
  const text = doneText(verb, {
    ...writeOutcome(outputEnd(outcome.value, env.glue)),
    durationMs,
    lockLeft: verb === "unlock" ? lockFileIn(d.indexDir) : null,
    unfinished: unfinishedRebuild(d),
    ready: d.ready,
    problemCode: d.problemCode,
  });
  return env.say(ctx, text, d.ready || verb === "uninit" ? "info" : "warning");
}

/** `/codegraph status`: CodeGraph's own report of the index in `cwd` (read-only). */
async function indexStatus(ctx, env, d, cwd) {
  let result;
  try {
    result = await env.glue.run(verbCommand("status"), cwd, undefined, onBehalf(cwd, ctx));
  } catch (err) {
    if (err?.code === "CODEGRAPH_NO_INDEX")
      return env.say(ctx, noOwnIndexText("status", { cwd, ancestorIndex: d.ancestorIndex }), "warning");
    return env.say(ctx, failedText("status", err, { durationMs: err?.details?.durationMs ?? 0, cwd }), "error");
  }
  const facts = parseIndexStatus(result.text);
  if (!facts) return env.say(ctx, unreadableStatusText(result.text), "warning");
  const changedNames = await changedFileNames(env.glue.run, cwd, facts, onBehalf(cwd, ctx));
  const report = indexReport(facts, {
    cwd,
    cliVersion: d.cliVersion,
    lock: lockState(d),
    unfinished: unfinishedRebuild(d),
    changedNames,
  });
  return env.show(ctx, "status", report, "info");
}

/** `/codegraph changes`: codegraph_changes' own answer, shown to the user (read-only). */
async function showChanges(ctx, env, cwd) {
  let result;
  try {
    result = await env.glue.changes({}, cwd, undefined, onBehalf(cwd, ctx));
  } catch (err) {
    return env.say(ctx, failedText("changes", err, { durationMs: err?.details?.durationMs ?? 0, cwd }), "error");
  }
  return env.say(ctx, result.text, "info");
}

module.exports = { handleVerb, parseVerbArgs, watchOff };
