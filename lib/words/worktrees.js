// The words of git worktrees (lib/pi/commands/worktree-init.js; lib/api/worktrees.js has the facts):
// init's choice in a worktree without an index, the copy's outcome, and which worktree an index
// belongs to (/codegraph doctor).

const { shownPath } = require("./paths.js");
const { bytesText, durationText } = require("./verbs.js");

/** A worktree as the user knows it: its branch (or "detached"), then its directory. */
const worktreeName = (w) => `${w.branch ?? (w.detached ? "detached HEAD" : "no branch")} at ${shownPath(w.dir)}`;

/** Init's select in a worktree without an index, when other worktrees have one (`siblings`: siblingIndexes'). */
function worktreeChoiceText(cwd, siblings) {
  return {
    title: `${shownPath(cwd)} is a git worktree without a CodeGraph index. Start from another worktree's?`,
    copies: siblings.map(
      (s) =>
        `Copy the index of ${worktreeName(s.worktree)} (${bytesText(s.diagnosis.indexBytes ?? 0)}) and sync it (seconds)`,
    ),
    fresh: "A new index of this worktree (codegraph init: minutes on a large project)",
  };
}

/** The copy and its sync done (`f`: { sibling, bytes, durationMs, outcome }). */
function copiedText(f) {
  return [
    `/codegraph init: copied the index of ${worktreeName(f.sibling.worktree)} (${bytesText(f.bytes)}) and synced it with this worktree in ${durationText(f.durationMs)}; the agent's CodeGraph tools answer from it now.`,
    f.summary ? f.summary : null,
    `The other worktree's index was only read.`,
  ]
    .filter(Boolean)
    .join("\n");
}

/** Why the copy was not made or not kept (`refused`: the runner's fact, or ours: notOurs, sync). */
function notCopiedText(f) {
  const r = f.refused ?? {};
  const why = {
    targetExists: "this worktree has an index directory already",
    targetOutside: "the index directory is not inside this workspace",
    fromNotDirectory: "its index directory is not a directory (a link is not followed)",
    noDatabase: "its index directory has no database",
    notRegular: `its ${r.name} is not a regular file (a link is not followed)`,
    stopped: r.why === "cancelled" ? "cancelled" : "it took longer than an index write may",
    io: `${r.step} ${shownPath(r.path ?? "")}: ${r.os}`,
    unsupported: "this runner cannot copy an index",
    notOurs: `it is not this repository's: of ${f.checked} of its ${f.listed} files, ${f.here} are in this worktree`,
    sync: `the sync after the copy failed: ${String(f.error?.message ?? f.error ?? "").split("\n")[0]}`,
  }[r.is];
  return `/codegraph init: the index of ${worktreeName(f.sibling.worktree)} was not copied: ${why ?? r.is}. Nothing was kept; /codegraph init --yes makes a new index here.`;
}

/** Bare /codegraph's first line's end: which worktree this is, when the repository has several. */
const worktreeBrief = (worktrees) => `(worktree ${worktrees.own.branch ?? shownPath(worktrees.own.dir)})`;

/** /codegraph doctor's line: the worktree the workspace is in, whose index it reads. */
function worktreeLine(worktrees, copied) {
  if (!worktrees) return null;
  const others = worktrees.others.length;
  const from = copied
    ? `; its index was copied from ${shownPath(copied.from)} on ${copied.at.slice(0, 10)}, then synced`
    : "";
  return `worktree: ${worktreeName(worktrees.own)}, ${others === 0 ? "the repository's only one" : `one of ${others + 1}`}; the index is this worktree's own${from}`;
}

module.exports = { copiedText, notCopiedText, worktreeBrief, worktreeChoiceText, worktreeLine, worktreeName };
