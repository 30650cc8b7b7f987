// The words of the roots (lib/pi/roots/roots.js): the line an answer from another root begins with, the
// `project` argument and guideline the model reads, and what `/codegraph projects` says.

const { MAX_OFFERED_ROOTS } = require("../contract/limits.js");
const { shownPath } = require("./paths.js");

/**
 * The first line of an answer from a root other than the workspace (`facts`: lib/pi/roots/roots.js
 * pathFacts): which root answered and how its paths become paths Pi's `read` accepts.
 */
function pathLineText(f) {
  const absolute = f.absolute ? shownPath(f.absolute) : null;
  const prefix = shownPath(f.prefix);
  return absolute
    ? `Project ${f.label} (${absolute}): its paths are relative to that directory; for read, prefix them with ${absolute} (or ${prefix} from the workspace).`
    : `Project ${f.label} (${prefix}): its paths are relative to that directory; for read, prefix them with ${prefix}.`;
}

/** The `project` argument's description; `required` when the workspace has no index of its own. */
function projectArgText(required) {
  return required
    ? "Which CodeGraph project to ask (its name); this workspace has no index of its own"
    : "Which CodeGraph project to ask (its name); without it, the workspace's own (.)";
}

/** The guideline explore gains while several roots exist. */
function projectsGuideline(required) {
  return `Several CodeGraph projects are indexed here: pass project to pick one${required ? "" : " (the workspace's own, ., when omitted)"}; an answer from another project begins with a line saying how to prefix its paths for read.`;
}

/** What each word after `/codegraph projects` does, for the completion. */
const ROOTS_WORDS = {
  add: "Add a directory with a CodeGraph index (typed by you), kept for this workspace",
  remove: "Remove a project you added",
};

const SOURCE_WORDS = {
  workspace: "the workspace's own",
  scan: "found below the workspace",
  added: "added by you",
};

/**
 * `/codegraph projects`: `rows` ({ label, dir, source, indexed, problem? }), what the scan saw
 * (`scan`: lib/pi/roots/scan.js result, or undefined while it runs) and the saved file's problem.
 */
function rootsListText(rows, { scan, savedProblem } = {}) {
  const lines = [];
  const usable = rows.filter((r) => r.indexed);
  lines.push(
    usable.length === 0
      ? "CodeGraph projects: none (no index in the workspace, none found below it, none added)"
      : `CodeGraph projects: ${usable.length}${usable.length > 1 ? " (the tools take `project`: one of the names)" : ""}${offeredNote(usable)}`,
  );
  for (const r of rows) {
    const state = !r.indexed
      ? "no index now"
      : r.notOffered
        ? notOfferedText(r.notOffered)
        : r.problem
          ? `not ready (${r.problem})`
          : "ready";
    lines.push(`  ${r.label}  ${shownPath(r.dir)}  ${SOURCE_WORDS[r.source] ?? r.source}; ${state}`);
  }
  if (scan === undefined) lines.push("scan: still running");
  else lines.push(`scan: ${scanText(scan)}`);
  if (savedProblem) lines.push(`saved projects ignored: ${shownPath(savedProblem)}`);
  lines.push(
    "Add one with /codegraph projects add <dir>; remove one you added with /codegraph projects remove <name>.",
  );
  return lines.join("\n");
}

/** How many of the indexed roots the model is offered, when not all. */
const offeredNote = (usable) => {
  const left = usable.filter((r) => r.notOffered).length;
  return left ? `; ${usable.length - left} offered to the model, ${left} not` : "";
};

/** Why an indexed root is not in the tools' `project` (lib/pi/roots/labels.js markOffered). */
const notOfferedText = (why) =>
  why === "tooMany"
    ? `not offered to the model (at most ${MAX_OFFERED_ROOTS} are: the workspace's own and added ones first, then the shallowest found); /codegraph verbs still take its name`
    : `not offered to the model (${why})`;

/** One line on what the scan did (lib/pi/roots/scan.js scanRoots' result). */
function scanText(s) {
  if (s.gated === "home") return "not run: the workspace is your home directory";
  if (s.gated === "filesystemRoot") return "not run: the workspace is a filesystem root";
  if (s.gated === "notAProject")
    return "not run: the workspace has no project manifest (package.json, Cargo.toml, go.work, …) or .git";
  const cut = {
    roots: `stopped at ${s.roots.length} projects`,
    dirs: `stopped after ${s.dirsRead} directories`,
    time: "stopped at its time limit",
  }[s.truncated];
  const unreadable = s.unreadable ? `, ${s.unreadable} unreadable skipped` : "";
  return `${s.roots.length} found below the workspace, ${s.dirsRead} ${s.dirsRead === 1 ? "directory" : "directories"} read in ${Math.round(s.ms)} ms (depth ≤ 4${unreadable})${cut ? `; ${cut}` : ""}`;
}

const addedText = (f) =>
  `Added ${f.label} (${shownPath(f.dir)}): the codegraph tools can now ask it by that name${f.saved ? "; kept for this workspace" : `; for this session only: it could not be saved (${f.saveError})`}.`;
const removedText = (f) =>
  `Removed ${f.label} (${shownPath(f.dir)})${f.saved ? "" : `; for this session only: it could not be saved (${f.saveError})`}.`;

/** Why `/codegraph projects add <dir>` added nothing (`f.is`). */
function notAddedText(f) {
  const dir = f.dir ? shownPath(f.dir) : "";
  const why = {
    missingDir: () => "give the directory: /codegraph projects add <dir>",
    notDir: () => `${dir} is not a directory`,
    noIndex: () =>
      `${dir} has no CodeGraph index (${f.indexDir}/codegraph.db): run \`codegraph init\` there first, or give the project's root`,
    already: () => `${dir} is already a project (${f.label})`,
    tooMany: () => `at most ${f.max} projects can be added to one workspace`,
    unusable: () => `${dir} cannot be used (${f.why})`,
    otherWorktree: () =>
      `${dir} is in another git worktree of this repository: its index answers for that worktree's code, not this one's (/codegraph init here can start from a copy of it)`,
  }[f.is];
  return `/codegraph projects add: nothing added: ${why ? why() : f.is}.`;
}

/** Why `/codegraph projects remove <name>` removed nothing. */
function notRemovedText(f) {
  if (f.is === "missingLabel") return "/codegraph projects remove: give the name of a project you added.";
  if (f.is === "notAdded")
    return `/codegraph projects remove: ${f.label} was not added by you (${SOURCE_WORDS[f.source]}); only a project you added can be removed.`;
  return `/codegraph projects remove: no project is named ${JSON.stringify(f.label)}${f.labels.length ? ` (the projects you added: ${f.labels.join(", ")})` : " (you have added none)"}.`;
}

const unknownRootsText = (word) =>
  `/codegraph projects: unknown word ${JSON.stringify(word)}; use /codegraph projects, /codegraph projects add <dir>, or /codegraph projects remove <name>.`;

module.exports = {
  ROOTS_WORDS,
  SOURCE_WORDS,
  addedText,
  notAddedText,
  notRemovedText,
  pathLineText,
  projectArgText,
  projectsGuideline,
  removedText,
  rootsListText,
  scanText,
  unknownRootsText,
};
