// `/codegraph init` in a git worktree that has no index while other worktrees of the repository
// have one: Pi's select offers to copy one of theirs and sync it (seconds) beside a new index
// (minutes). The copy is the runner's (lib/api/calls.js copyIndex: new files of this worktree,
// never a link, made whole beside the target, then renamed into place); then the copy's files must
// be this repository's (lib/api/worktrees.js indexFilesHere), then `codegraph sync` brings it to
// this worktree's code, with progress and cancel (Esc, `/codegraph cancel`). Any failure removes
// the copy: nothing is kept but a whole, synced index. The other worktree's index is only read.
// Where it came from is kept in Pi's agent directory (for /codegraph doctor), never in the repository.

const fs = require("node:fs");
const path = require("node:path");
const { verbCommand } = require("../../contract/verbs.js");
const { writeOutcome } = require("../../contract/index-status.js");
const { indexFilesHere, siblingIndexes } = require("../../api/worktrees.js");
const { readSaved, savedFile, saveJson } = require("../tools/choice.js");
const { runningWrites } = require("./running-writes.js");
const { withProgress } = require("./write-progress.js");
const { copiedText, notCopiedText, worktreeChoiceText } = require("../../words/worktrees.js");

/** The saved record of a copy (Pi's agent directory, per workspace): `{ from, at }`. */
const COPY_KIND = "worktree";

/** Where this workspace's index was copied from (`{ from, at }`), or null. */
function copiedFrom(agentDir, cwd) {
  const { data } = readSaved(agentDir, cwd, COPY_KIND);
  return typeof data?.from === "string" && typeof data?.at === "string" ? { from: data.from, at: data.at } : null;
}

/**
 * Asks, where the workspace `cwd` (diagnosis `d`, no index of its own) is a git worktree and other
 * worktrees have a ready index: `{ copy: sibling }`, `{ fresh: true }` (a new index: the choice is
 * the consent), `{ none: true }` (dismissed), or null (nothing to offer, or no select to ask with).
 */
async function askWorktreeStart(ctx, env, cwd) {
  if (!ctx.hasUI || typeof ctx.ui?.select !== "function") return null;
  const worktrees = await env.glue.worktrees(cwd).catch(() => null);
  const siblings = await siblingIndexes(worktrees, (dir) => env.glue.diagnose(dir, cwd));
  if (siblings.length === 0) return null;
  const words = worktreeChoiceText(cwd, siblings);
  let picked;
  try {
    picked = await ctx.ui.select(words.title, [...words.copies, words.fresh]);
  } catch {}
  const at = words.copies.indexOf(picked);
  if (at !== -1) return { copy: siblings[at] };
  return picked === words.fresh ? { fresh: true } : { none: true };
}

/** Removes the copy this flow made at `to` (it did not exist before). */
const removeCopy = (to) => fs.rmSync(to, { recursive: true, force: true });

/**
 * Copies `sibling`'s index into `to` (this workspace's index directory, `cwd`'s), checks it is this
 * repository's, syncs it; says what happened. One write at a time per workspace, as every verb's.
 */
async function copyAndSync(ctx, env, cwd, to, sibling) {
  const controller = new AbortController();
  runningWrites.set(cwd, { verb: "init", controller });
  const started = performance.now();
  const facts = { sibling };
  let made = false; // the copy is there (only a copy this flow made is ever removed)
  let kept = false;
  const { error } = await withProgress("init", ctx, env.peers, controller, async (onProgress) => {
    onProgress({ text: `Copying the index of ${sibling.dir}…` });
    const copy = await env.glue.copyIndex(cwd, { from: sibling.diagnosis.indexDir, to }, controller.signal);
    if (copy.refused) return Object.assign(facts, { refused: copy.refused });
    made = true;
    facts.bytes = copy.bytes;
    const check = await indexFilesHere(env.glue.run, cwd, controller.signal);
    if (!check.ours) return Object.assign(facts, check, { refused: { is: "notOurs" } });
    const synced = await env.glue.run(verbCommand("sync"), cwd, controller.signal, { onProgress });
    facts.summary = writeOutcome(synced.text).summary.join("\n");
    kept = true;
  }).finally(() => runningWrites.delete(cwd));
  if (error) {
    const stopped = error.code === "CODEGRAPH_CANCELLED";
    Object.assign(facts, { refused: stopped ? { is: "stopped", why: "cancelled" } : { is: "sync" }, error });
  }
  // Whatever kept it from being synced, the copy goes: nothing is kept but a whole, synced index.
  if (made && !kept) removeCopy(to);
  facts.durationMs = performance.now() - started;
  if (kept) {
    try {
      const at = new Date().toISOString();
      saveJson(savedFile(env.state.agentDir, cwd, COPY_KIND), { project: path.resolve(cwd), from: sibling.dir, at });
    } catch {}
  }
  env.state?.indexWritten();
  await env.refresh(ctx);
  return env.say(ctx, kept ? copiedText(facts) : notCopiedText(facts), kept ? "info" : "warning");
}

module.exports = { askWorktreeStart, copiedFrom, copyAndSync };
