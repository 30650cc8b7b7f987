// What the user is shown about readiness: the `/codegraph` report and the status slot, from the
// same diagnosis the guidance comes from, plus which runner serves the tool.

const path = require("node:path");
const { printable } = require("../../contract/text.js");
const { ignoredSettingsLines } = require("../../words/settings.js");
const { autoReportLine } = require("../../words/auto-sync.js");
const { worktreeBrief, worktreeLine } = require("../../words/worktrees.js");
const { editedReportText } = require("../../words/staleness.js");
const { toolsOnText } = require("../../words/tools.js");
const {
  MORE_LINE,
  UNFINISHED_READY,
  UNFINISHED_STEP,
  enclosingStepText,
  nextStepText,
  notReadyText,
  syncStepText,
} = require("../../words/report.js");
const { unfinishedRebuild } = require("./index-files.js");
const { coveringDir } = require("../../api/edit-ledger.js");
const { BESIDE_PACKAGE_TEXT } = require("../../words/doctor.js");
const { forUser } = require("../../words/messages.js");

/** "native addon /path/x.node", "node (native addon not loaded: …)": the runner in one line. */
function runnerLine(runner) {
  if (!runner) return "unknown";
  return `${runner.name}${runner.path ? ` ${runner.path}` : ""}${runner.note ? ` (${runner.note})` : ""}`;
}

/** The codegraph executable line: path, version and where the version came from. */
function executableLine(d) {
  if (!d.executable) {
    return d.executableProblem ?? (d.problemCode === "CODEGRAPH_NOT_FOUND" ? d.problem : "not checked");
  }
  const source = d.cliVersionSource ? ` [version from ${d.cliVersionSource}]` : "";
  const version = d.cliVersion ? ` (${d.cliVersion})${source}` : "";
  return `${d.executable}${version}${d.executableInWorkspace ? " [inside the workspace]" : ""}${d.executableBesidePackage ? BESIDE_PACKAGE_TEXT : ""}`;
}

const MIB = 1024 * 1024;
const sizeOf = (bytes) =>
  bytes >= 1024 * MIB ? `${(bytes / 1024 / MIB).toFixed(1)} GiB` : `${(bytes / MIB).toFixed(1)} MiB`;

/** "446.2 MiB": the index database's size, or null when the runner did not report one. */
function indexSizeText(d) {
  return Number.isSafeInteger(d?.indexBytes) ? sizeOf(d.indexBytes) : null;
}

/**
 * The parallel limit in force (`diagnosis.parallel`, lib/api/admission.js), with where it came from:
 * "2 CodeGraph queries at once on this index (from the machine: 2 cores, 23.4 GiB memory, about
 * 546.2 MiB per query)". A PI_CODEGRAPH_MAX_PARALLEL that was ignored says why.
 */
function parallelText(p) {
  if (!p) return "unknown";
  const at = `${p.limit} CodeGraph ${p.limit === 1 ? "query" : "queries"} at once on this index`;
  if (p.source === "env") return `${at} (PI_CODEGRAPH_MAX_PARALLEL)`;
  const per = p.indexBytes === null ? "index size not known yet" : `about ${sizeOf(p.perQueryBytes)} per query`;
  const ignored = p.envProblem
    ? `; PI_CODEGRAPH_MAX_PARALLEL=${JSON.stringify(p.envProblem.raw)} ignored: not a whole number from 1 to ${p.envProblem.max}`
    : "";
  return `${at} (from the machine: ${p.cores} ${p.cores === 1 ? "core" : "cores"}, ${sizeOf(p.memoryBytes)} memory, ${per}${ignored})`;
}

/** At most this many entries of `envDropped` are listed; the rest are counted. */
const MAX_DROPPED_SHOWN = 8;

/**
 * What of the user's environment the CLI does not get (`diagnosis.envDropped`), one line each:
 * `PATH entry /w/node_modules/.bin (inside the workspace)`. Empty when nothing was dropped.
 */
function envDroppedLines(dropped) {
  const list = Array.isArray(dropped) ? dropped : [];
  const lines = list
    .slice(0, MAX_DROPPED_SHOWN)
    .map((d) => `${d.variable} entry ${d.entry === "" ? "(empty)" : d.entry} (${d.reason})`);
  if (list.length > MAX_DROPPED_SHOWN) lines.push(`and ${list.length - MAX_DROPPED_SHOWN} more`);
  return lines;
}

/**
 * Readiness when ready, in words: "ready", or with files changed since the index "ready, 2 files
 * changed since the index: a.ts, b.ts" (`state.ledger`); `changed`: whether any are.
 */
function readyText(diagnosis, state) {
  const unfinished = unfinishedRebuild(diagnosis) !== null;
  const edited = state.ledger?.count() ?? 0;
  const cut = state.ledger?.cut?.() ?? null;
  if (unfinished) return { text: UNFINISHED_READY, changed: false, unfinished };
  if (edited === 0 && !cut) return { text: "ready", changed: false };
  const names = (state.ledger?.files?.() ?? []).map((file) => path.relative(diagnosis.cwd, file));
  return { text: editedReportText(edited, state.ledger?.more?.() ?? false, names, cut), changed: edited > 0 };
}

/**
 * The `/codegraph` report: the same diagnosis the guidance comes from, plus the last error and,
 * when ready, how many files this session's edit/write tools changed after the index
 * (`state.ledger`, lib/api/staleness.js). `info` is `{ extension, runner }` (extensionInfo() and
 * runnerInfo()).
 */
function statusReport(diagnosis, state, info) {
  const ext = info.extension;
  const ready = readyText(diagnosis, state).text;
  // Ready when the tools can answer: from the workspace's own index or from one of the roots.
  const serving = state.serving?.() ?? diagnosis;
  const lines = [
    `pi-codegraph: ${serving.ready ? ready : `not ready (${serving.problemCode})`}`,
    `extension: ${ext.name} ${ext.version} at ${ext.path} (the active copy)`,
    `runner: ${runnerLine(info.runner)}`,
    `workspace: ${diagnosis.cwd}`,
    `codegraph: ${executableLine(diagnosis)}`,
  ];
  if (diagnosis.versionNotice) lines.push(`version: ${diagnosis.versionNotice}`);
  if (diagnosis.launcher) lines.push(`runs: ${diagnosis.launcher} (the platform bundle its npm shim would start)`);
  if (diagnosis.hasIndex) {
    const resolved =
      diagnosis.indexResolved && diagnosis.indexResolved !== diagnosis.indexDir ? ` -> ${diagnosis.indexResolved}` : "";
    const size = indexSizeText(diagnosis);
    lines.push(`index: ${diagnosis.indexDir}${resolved}${size ? ` (${size})` : ""}`);
  } else if (serving.ready && serving !== diagnosis && diagnosis.problemCode === "CODEGRAPH_NO_INDEX") {
    // A monorepo's workspace without an index of its own, served by its projects' (listed below).
    lines.push("index: none of the workspace's own; the tools answer from the projects below");
  } else {
    lines.push(
      `index: ${diagnosis.indexProblem ?? (diagnosis.problemCode === "CODEGRAPH_NO_INDEX" ? diagnosis.problem : "not checked")}`,
    );
  }
  if (info.worktree) lines.push(info.worktree);
  if (diagnosis.ancestorIndex) lines.push(`enclosing project with an index: ${diagnosis.ancestorIndex}`);
  // What every /codegraph verb would refuse here, and why (lib/pi/commands/verb-refusal.js).
  if (diagnosis.writeProblem) lines.push(`verbs: refused: ${diagnosis.writeProblem}`);
  else if (diagnosis.removeProblem) lines.push(`uninit: refused: ${diagnosis.removeProblem}`);
  // The roots, when the tools answer from any but the workspace's own index (lib/pi/roots/roots.js).
  const roots = state.toolRoots?.() ?? [];
  if (roots.some((r) => r.source !== "workspace")) {
    for (const r of roots) {
      const d = state.diagnosisOf(r);
      lines.push(`project ${r.label}: ${r.dir} (${d?.ready ? "ready" : `not ready: ${d?.problemCode}`})`);
    }
  }
  lines.push(`parallel: ${parallelText(diagnosis.parallel)}`);
  // The tools on (lib/pi/tools/choice.js), only when someone chose them: the default adds no line.
  const on = state.activeFocused?.() ?? [];
  if (state.choice && state.choice.source !== "default") lines.push(`tools: ${toolsOnText(on, state.choice)}`);
  if (state.autoSync) lines.push(autoReportLine(state.autoSync, info.warm));
  if (state.autoSync?.problem) lines.push(`saved sync mode ignored: ${state.autoSync.problem}; manual applies`);
  lines.push(...ignoredSettingsLines(state.choice, state.added));
  for (const line of envDroppedLines(diagnosis.envDropped)) lines.push(`not passed to codegraph: ${line}`);
  if (!serving.ready) {
    if (!["CODEGRAPH_NOT_FOUND", "CODEGRAPH_NO_INDEX"].includes(serving.problemCode))
      lines.push(`problem: ${serving.problem}`);
    lines.push(`fix: ${forUser(serving.remediation)}`);
  }
  lines.push(
    `last error: ${state.lastError ? `${state.lastError.at} ${state.lastError.message.split("\n")[0]}` : "none"}`,
  );
  return lines.map(printable).join("\n");
}

/**
 * The labels of the indexed roots holding the files changed since their index (each file in the
 * deepest root containing it), in the roots' order: what a sync would have to name.
 */
function changedLabels(state) {
  const roots = state.verbRoots?.() ?? [];
  const dirs = roots.map((r) => r.dir);
  const holders = new Set((state.ledger?.files?.() ?? []).map((file) => coveringDir(dirs, file)));
  return roots.filter((r) => holders.has(r.dir)).map((r) => r.label);
}

/**
 * Bare `/codegraph`: at most three lines: the state (the report's first line), the next step
 * when there is one (the problem's remediation; /codegraph sync when files changed since the
 * index), and where the rest is.
 */
function briefReport(diagnosis, state, worktree = null) {
  const serving = state.serving?.() ?? diagnosis;
  // In a repository of several worktrees, the first line says which one this is (its index is its own).
  const named = (line) => (worktree ? `${line} ${worktree}` : line);
  if (!serving.ready) {
    // A verb refused here (an index directory that is not the workspace's alone) or an enclosing
    // project's index: the remediation's own words, not a verb that would be refused.
    const plain = !serving.ancestorIndex && !diagnosis.writeProblem && !diagnosis.removeProblem;
    const choose = serving.problemCode === "CODEGRAPH_NO_INDEX" && serving.ancestorIndex && !diagnosis.writeProblem;
    const next = choose
      ? enclosingStepText(serving.ancestorIndex)
      : nextStepText(serving.problemCode, serving.remediation, { plain });
    const lines = [named(notReadyText(serving.problemCode, serving.problem)), next, MORE_LINE];
    return lines.map(printable).join("\n");
  }
  const { text, changed, unfinished } = readyText(diagnosis, state);
  const next = unfinished ? [UNFINISHED_STEP] : changed ? [syncStepText(changedLabels(state))] : [];
  return [named(`pi-codegraph: ${text}`), ...next, MORE_LINE].map(printable).join("\n");
}

/** `/codegraph doctor`: readiness and changed files checked again, then the whole report, a warning when not ready. */
async function handleReport(ctx, { glue, state, refresh, show }) {
  await refresh(ctx);
  await state.walkChanges?.(ctx);
  await state.autoSync?.settled(); // an auto sync deciding or running: its outcome is part of the report
  // In a repository with several worktrees: which one this is, and where its index came from.
  const worktrees = await glue.worktrees?.(ctx.cwd).catch(() => null);
  const worktree = worktrees?.others.length
    ? worktreeLine(worktrees, require("./worktree-init.js").copiedFrom(state.agentDir, ctx.cwd))
    : null;
  const info = {
    extension: glue.extensionInfo(),
    runner: glue.runnerInfo(),
    worktree,
    warm: glue.warmServers?.() ?? [],
  };
  show(ctx, "doctor", statusReport(state.diagnosis, state, info), state.serving().ready ? "info" : "warning");
}

/** Bare `/codegraph`: readiness and changed files checked again, then the short report (briefReport). */
async function handleBrief(ctx, { glue, state, refresh, show }) {
  await refresh(ctx);
  await state.walkChanges?.(ctx);
  const worktrees = await glue.worktrees?.(ctx.cwd).catch(() => null);
  const worktree = worktrees?.others.length ? worktreeBrief(worktrees) : null;
  show(ctx, "", briefReport(state.diagnosis, state, worktree), state.serving().ready ? "info" : "warning");
}

module.exports = {
  briefReport,
  envDroppedLines,
  handleBrief,
  handleReport,
  indexSizeText,
  parallelText,
  runnerLine,
  statusReport,
};
