// Renders figures as Markdown: the same text goes to the terminal and to bench/RESULTS.md.

import { table } from "./stats.mjs";

export function renderFigure(fig) {
  const parts = [`## ${fig.title}`, "", fig.about, ""];
  for (const t of fig.tables) parts.push(`**${t.caption}**`, "", table(t.head, t.rows), "");
  for (const n of fig.notes) parts.push(`${n}`, "");
  return parts.join("\n");
}

export function renderTargets(figures) {
  const rows = figures.flatMap((f) =>
    f.targets.map((t) => [t.what, t.target, t.measured, t.met ? "met" : "**MISSED**"]),
  );
  return table(["figure", "target", "measured", "result"], rows);
}

export function renderMisses(figures) {
  const missed = figures.flatMap((f) => f.targets.filter((t) => !t.met));
  if (missed.length === 0) return "Every target was met in this run.";
  return missed
    .map((t) => `- **${t.what}** (${t.measured}, target ${t.target}): ${t.why ?? "no analysis recorded."}`)
    .join("\n");
}

export function renderResults(machine, figures, elapsedMs, warning) {
  const rows = Object.entries(machine).map(([k, v]) => [k, v]);
  return [
    "# pi-codegraph benchmark results",
    "",
    `Written by \`npm run bench\` (bench/run.mjs) in ${(elapsedMs / 1000).toFixed(1)} s. Every ratio compares implementations measured in this same run.`,
    "",
    ...(warning ? [warning, ""] : []),
    "## Machine",
    "",
    table(["", ""], rows),
    "",
    "## Targets",
    "",
    renderTargets(figures),
    "",
    "### Missed targets",
    "",
    renderMisses(figures),
    "",
    ...figures.map(renderFigure),
  ].join("\n");
}
