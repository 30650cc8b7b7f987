// A `/codegraph` report (help, doctor, status, projects, tools, the short readiness) as interactive
// Pi keeps it: a custom entry in the transcript (`pi.appendEntry`, never sent to the model), drawn
// by the renderer the extension registers while Pi loads it (lib/pi/extension.js), so it stays on
// screen after the next notice and is drawn again after /reload and resume. Pi draws a notice
// dim and replaces it with the next one; outside the terminal UI (rpc, print) a report stays one.

/** The card's title colour by the report's type: Pi's theme colours. */
const TITLE_COLOUR = { error: "error", warning: "warning" };

/**
 * Pi's component for a report entry `{ data: { report, text, type } }`: a card with the verb typed
 * as its title (in the warning colour when the report says something is wrong) and the report.
 */
function renderReport(entry, theme, peers) {
  const data = entry?.data ?? {};
  const { Box, Text } = peers;
  const box = new Box(1, 1, (t) => theme.bg("customMessageBg", t));
  const title = `/codegraph${data.report ? ` ${data.report}` : ""}`;
  box.addChild(new Text(theme.fg(TITLE_COLOUR[data.type] ?? "accent", theme.bold(title)), 0, 0));
  box.addChild(new Text(String(data.text ?? ""), 0, 0));
  return box;
}

module.exports = { renderReport };
