// The words of a settings file the glue could not use (lib/pi/settings-file.js reasons): the part
// after the file's path in "saved projects ignored: <file>: …" and "The saved choice could not be
// read (<file>: …)".

const KINDS = {
  fifo: "a FIFO",
  socket: "a socket",
  directory: "a directory",
  device: "a device",
  other: "not a regular file",
};

/** `<file>: <why>` for a reason of readSettingsFile(). */
function settingsProblemText(file, reason) {
  if (reason?.is === "notRegular")
    return `${file}: not a regular file (${KINDS[reason.kind] ?? KINDS.other}); nothing was read`;
  if (reason?.is === "tooLarge")
    return `${file}: larger than ${Math.round(reason.maxBytes / 1024)} KiB; nothing was used`;
  return `${file}: ${reason?.code ?? "unreadable"}`;
}

/** The `/codegraph` report's lines for saved files that were ignored (`choice`: lib/pi/tools/choice.js choiceFor, `added`: lib/pi/roots/roots.js loadAddedRoots). */
function ignoredSettingsLines(choice, added) {
  const lines = [];
  if (choice?.savedProblem) lines.push(`saved tools choice ignored: ${choice.savedProblem}; the default applies`);
  if (added?.problem) lines.push(`saved projects ignored: ${added.problem}`);
  return lines;
}

module.exports = { ignoredSettingsLines, settingsProblemText };
