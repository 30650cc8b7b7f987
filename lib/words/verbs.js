// The words of the `/codegraph` verbs (lib/pi/commands/verbs.js): what each one does, its confirm dialog,
// its progress line, its refusals and its result (`/codegraph status`'s report: index-report.js).

const { VERB_LINES } = require("./command.js");
const { shownPath } = require("./paths.js");

const YES_LINE = "Run without asking first";

const VERB_MIB = 1024 * 1024;
/** "212 KiB", "1.4 MiB", "2.1 GiB". */
function bytesText(n) {
  if (!Number.isFinite(n)) return "unknown size";
  if (n < VERB_MIB) return `${Math.max(1, Math.round(n / 1024))} KiB`;
  if (n < 1024 * VERB_MIB) return `${(n / VERB_MIB).toFixed(1)} MiB`;
  return `${(n / 1024 / VERB_MIB).toFixed(1)} GiB`;
}

/** "4.2 s", "1 min 3 s": a duration we measured. */
function durationText(ms) {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

/** The index directory the diagnosis found (the one the CLI opens; a verb without one says why first). */
const shownIndexDir = (f) => shownPath(f.indexDir);

/** The confirm dialog of a writing verb: `{ title, body }`. `f`: cwd, indexDir, hooks, gitHooksDir, ancestorIndex, indexBytes, lock. */
function confirmText(verb, f) {
  const dir = shownIndexDir(f);
  switch (verb) {
    case "init": {
      const lines = [`Creates ${dir}/ and indexes every source file under ${shownPath(f.cwd)}.`];
      if (f.hooks)
        lines.push(
          f.gitHooksDir
            ? `File watching is off here (${f.hooks}), so CodeGraph also installs git hooks (post-commit, post-merge, post-checkout) that run \`codegraph sync\` after each commit, merge and checkout.`
            : `File watching is off here (${f.hooks}) and this workspace has no git hooks of its own (.git/hooks), so CodeGraph installs none: run /codegraph sync after changes.`,
        );
      lines.push("On a large repository this may take minutes and much memory.");
      return { title: "Create the CodeGraph index?", body: lines.join("\n") };
    }
    case "rebuild":
      return {
        title: "Rebuild the CodeGraph index?",
        body: [
          `Deletes and recreates ${dir}/codegraph.db from every source file (codegraph index).`,
          "CodeGraph first stops a running CodeGraph MCP daemon for this project.",
          "On a large repository this may take minutes and much memory.",
        ].join("\n"),
      };
    case "uninit":
      return {
        title: "Delete the CodeGraph index?",
        body: `Deletes ${dir}/ (${bytesText(f.indexBytes)})${f.gitHooksDir ? " and CodeGraph's git hooks in this repository" : ""}. The agent's CodeGraph tools stop answering here until /codegraph init.`,
      };
    case "unlock":
      return {
        title: "Remove CodeGraph's stale lock?",
        body: `Removes ${shownPath(f.lock)}, left by an interrupted CodeGraph write (no CodeGraph writer holds it now), and CodeGraph's stale daemon files.`,
      };
    default:
      return { title: `codegraph ${verb}?`, body: "" };
  }
}

/** Why file watching is off (CodeGraph then installs git hooks at init), or null. */
function hooksWhy(reason) {
  if (!reason) return null;
  if (reason.is === "env") return `CODEGRAPH_NO_WATCH=${reason.value}`;
  return `WSL, with the workspace under ${reason.mount}`;
}

const CANCELLED_NOTHING = (verb) => `/codegraph ${verb}: cancelled, nothing changed.`;

/** CodeGraph's phases of a write, in order (its `-v` output: "Phase: scanning", …). */
const WRITE_PHASES = ["scanning", "parsing", "resolving", "linking"];
/** Each phase's share of a whole write (parsing the files is most of it), in percent. */
const PHASE_SHARE = { scanning: 5, parsing: 75, resolving: 15, linking: 5 };
const BAR_CELLS = 10;
/** What a phase counts (CodeGraph 1.6.1: the files it parses, the references it resolves, its linking passes). */
const PHASE_UNITS = { parsing: "files", resolving: "references", linking: "passes" };

/** How far the whole write is (0-100): the phases before this one, and this one's own percent. */
function overallPercent(p) {
  const step = WRITE_PHASES.indexOf(p?.phase);
  if (step < 0) return null;
  const before = WRITE_PHASES.slice(0, step).reduce((sum, phase) => sum + PHASE_SHARE[phase], 0);
  const within = Number.isFinite(p.percent) ? Math.min(100, Math.max(0, p.percent)) : 0;
  return Math.floor(before + (PHASE_SHARE[p.phase] * within) / 100);
}

/** "▰▰▰▱▱▱▱▱▱▱ 36%": one bar for the whole write. */
function barText(percent) {
  const full = Math.round((percent / 100) * BAR_CELLS);
  return `${"▰".repeat(full)}${"▱".repeat(BAR_CELLS - full)} ${percent}%`;
}

/**
 * The progress line: "init: step 2 of 4, parsing 3/7 files · ▰▰▰▱▱▱▱▱▱▱ 36% · 4 s": the phase
 * named throughout, its own counts, and one bar for the whole write.
 */
function progressText(verb, p, elapsedMs, withCancel) {
  const parts = [];
  const step = WRITE_PHASES.indexOf(p?.phase);
  const unit = PHASE_UNITS[p?.phase];
  const counts = p?.done !== undefined ? ` ${p.done}/${p.total}${unit ? ` ${unit}` : ""}` : "";
  if (step >= 0)
    parts.push(`step ${step + 1} of ${WRITE_PHASES.length}, ${p.phase}${counts}`, barText(overallPercent(p)));
  else if (p?.phase) parts.push(`${p.phase}${counts}`);
  const what = parts.length ? parts.join(" · ") : "starting";
  const cancel = withCancel ? " · /codegraph cancel stops it" : "";
  return `codegraph ${verb}: ${what} · ${Math.floor(elapsedMs / 1000)} s${cancel}`;
}

/** The loader's message in the TUI (Esc stops it: the loader says so itself). */
function loaderText(verb, p, elapsedMs) {
  return progressText(verb, p, elapsedMs, false);
}

/** The index holds part of the project: a rebuild was stopped before its end (its rebuild.pid is left). */
const UNFINISHED_TEXT =
  "the index may hold only part of the project: its last rebuild was stopped before the end; /codegraph rebuild builds it whole";

/** The result of a finished write: measured duration, CodeGraph's summary lines, what follows. */
function doneText(verb, f) {
  // An unlock with no stale lock to remove: nothing changed, and "done" would say otherwise.
  if (verb === "unlock" && f.nothingToDo && !f.lockLeft)
    return `/codegraph unlock: no stale lock was there; nothing changed.${f.unfinished ? ` Note: ${UNFINISHED_TEXT}.` : ""}`;
  // What it means for the user, in the same sentence: the agent's tools, or why they still cannot answer.
  const after =
    verb === "uninit"
      ? "the index is removed (/codegraph init makes a new one)"
      : f.ready
        ? `${verb === "sync" && f.upToDate ? "it was already up to date; " : ""}the agent's CodeGraph tools answer from it now`
        : `the agent's CodeGraph tools are not ready (${f.problemCode}): /codegraph doctor says why`;
  const lines = [`/codegraph ${verb}: done in ${durationText(f.durationMs)}; ${after}.`];
  if (f.summary.length) lines.push(...f.summary.map((l) => `  ${l}`));
  if (verb === "unlock" && f.lockLeft)
    lines.push(
      `A lock file is still there (${shownPath(f.lockLeft)}); run \`codegraph unlock\` in the workspace to read CodeGraph's reason.`,
    );
  if (f.ready && f.unfinished && verb !== "uninit") lines.push(`Note: ${UNFINISHED_TEXT}.`);
  return lines.join("\n");
}

/** A write that failed or was stopped. */
function failedText(verb, err, f) {
  if (err?.code === "CODEGRAPH_CANCELLED") {
    const after = {
      init: "; the index may be partial: /codegraph rebuild finishes it, /codegraph uninit removes it",
      rebuild:
        "; the index may hold only part of the project: /codegraph rebuild builds it whole, /codegraph unlock uses it as it is",
      sync: "; run /codegraph sync again to finish the update",
    }[verb];
    return `/codegraph ${verb}: cancelled after ${durationText(f.durationMs)}, CodeGraph stopped${after ?? ""}.`;
  }
  if (err?.code === "CODEGRAPH_NO_INDEX") return noOwnIndexText(verb, f);
  const took = `/codegraph ${verb} failed after ${durationText(f.durationMs)}`;
  // The runner's headline only: its remediation speaks of explore (the model's tool).
  const headline = String(err?.message ?? err).split("\n")[0];
  if (err?.code === "CODEGRAPH_EXIT") {
    const d = err.details ?? {};
    const how = d.exitCode !== null && d.exitCode !== undefined ? `exited with code ${d.exitCode}` : "was killed";
    const tail = String(d.stderrTail ?? "")
      .trimEnd()
      .split("\n")
      .slice(-8)
      .join("\n");
    return `${took}: codegraph ${f.subcommand ?? verb} ${how}.${tail ? `\nstderr:\n${tail}` : ""}`;
  }
  return `${took}: ${headline}`;
}

/** A verb that needs the workspace's own index, where there is none. */
function noOwnIndexText(verb, f) {
  const ws = shownPath(f.cwd);
  if (f.ancestorIndex) {
    const a = shownPath(f.ancestorIndex);
    return `/codegraph ${verb}: refused: ${ws} has no index of its own, and the enclosing project ${a} is acted on only by name (/codegraph projects add ${a}, then /codegraph ${verb} <its name>); /codegraph init offers its index or a new one here.`;
  }
  return `/codegraph ${verb}: refused: ${ws} has no CodeGraph index yet; /codegraph init makes one.`;
}

/** init where the workspace already has an index of its own. */
function alreadyIndexedText(f) {
  return `/codegraph init: this workspace already has its index (${shownPath(f.indexDir)}); /codegraph sync updates it, /codegraph rebuild recreates it.`;
}

const busyText = (verb, f) =>
  `/codegraph ${verb}: refused while /codegraph ${f.running} is still running in this workspace; wait for it, or stop it with /codegraph cancel.`;

const liveWriterText = (verb, problem) =>
  `/codegraph ${verb}: refused while a live CodeGraph process writes the index (${problem}); ${verb === "unlock" ? "its lock is not stale" : "try again when it is done"}.`;

const needsYesText = (verb, label) =>
  `/codegraph ${verb}: refused without confirmation (no UI to ask in this mode). To run it, type: /codegraph ${verb}${label === undefined ? "" : ` ${label}`} --yes`;

const unsupportedText = (verb, why) => `/codegraph ${verb}: not available with the installed CodeGraph CLI: ${why}`;

/** An unknown verb, with the verb it most likely meant (`guess`, or undefined). */
const unknownVerbText = (word, guess) =>
  guess
    ? `/codegraph: unknown verb ${JSON.stringify(word)}. Did you mean /codegraph ${guess}?`
    : `/codegraph: unknown verb ${JSON.stringify(word)}. Verbs: ${Object.keys(VERB_LINES).join(", ")} (/codegraph help says what each does).`;

/** `/codegraph cancel` with nothing running (in the workspace, or in the root labelled `label`). */
const nothingToCancelText = (label) =>
  `/codegraph cancel: no /codegraph write is running in ${label === undefined ? "this workspace" : `project ${label}`}.`;
const cancellingText = (verb) => `/codegraph cancel: stopping /codegraph ${verb}…`;

const bugText = (verb, err) =>
  `/codegraph ${verb}: failed inside pi-codegraph (a bug; please report it): ${String(err?.message ?? err).split("\n")[0]}`;

const noCliText = (verb, problem) => `/codegraph ${verb}: the CodeGraph CLI is not usable here: ${problem}`;
/**
 * The diagnosis found no index directory (the workspace is not usable, or its checks did not
 * answer): the verb says the diagnosis' problem (its remediation speaks of the model's tool) and does nothing.
 */
const noIndexDirText = (verb, d) =>
  `/codegraph ${verb}: nothing done: ${d.problem ?? "the workspace could not be checked"}.`;

/** The first line of what a verb says about a root other than the workspace (lib/pi/roots/roots.js). */
const projectHeadText = (root) => `Project ${root.label} (${shownPath(root.dir)}):`;

/** A write without a label where the only root is outside the workspace: nothing runs. */
const typeLabelText = (verb, root) =>
  `/codegraph ${verb}: refused. The only CodeGraph project here, ${shownPath(root.dir)}, is outside the workspace, and a write acts on it only when you name it: /codegraph ${verb} ${root.label}. Nothing was run.`;
/** The select's title when several projects could be meant: "/codegraph sync: which project?". */
const pickTitleText = (verb) => `/codegraph ${verb}: which project?`;
/**
 * `/codegraph init` in a directory whose enclosing project has an index: the select that asks
 * which the user wants, `{ title, useEnclosing, createHere }` (the two options).
 */
const enclosingChoiceText = (f) => ({
  title: `The enclosing project ${shownPath(f.ancestorIndex)} has a CodeGraph index. Which should the tools use here?`,
  useEnclosing: `Its index (adds ${shownPath(f.ancestorIndex)} as a project; nothing is indexed)`,
  createHere: `A new index of ${shownPath(f.cwd)} only (codegraph init)`,
});
/** A verb without a label where several roots could be meant, and no UI to ask in. */
const pickProjectText = (verb, labels) =>
  `/codegraph ${verb}: name the project, one of: ${labels.join(", ")} (e.g. /codegraph ${verb} ${labels[0]}). Nothing was run.`;

/** A verb with a label that names no root. */
const unknownProjectText = (verb, label, labels) =>
  `/codegraph ${verb}: no project is named ${JSON.stringify(label)}${labels.length ? `; the projects: ${labels.join(", ")}` : "; /codegraph projects lists them"}. Nothing was run.`;

module.exports = {
  enclosingChoiceText,
  pickProjectText,
  pickTitleText,
  projectHeadText,
  typeLabelText,
  unknownProjectText,
  YES_LINE,
  CANCELLED_NOTHING,
  bytesText,
  durationText,
  confirmText,
  hooksWhy,
  progressText,
  loaderText,
  doneText,
  failedText,
  noOwnIndexText,
  alreadyIndexedText,
  busyText,
  liveWriterText,
  needsYesText,
  unsupportedText,
  unknownVerbText,
  nothingToCancelText,
  cancellingText,
  noCliText,
  noIndexDirText,
  bugText,
};
