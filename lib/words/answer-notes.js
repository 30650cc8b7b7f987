// The lines that lead an answer whose subject CodeGraph's own text leaves unsaid
// (lib/api/answer-notes.js finds the facts): one sentence each, for the model.

const at = (a) => (a ? ` (${a.path}:${a.line})` : "");

/** The note lines for `facts` (`{ otherSymbol?, otherFile?, importRows? }`), in that order. */
function answerNoteLines(facts) {
  const lines = [];
  const { otherSymbol, otherFile, importRows } = facts;
  if (otherSymbol)
    lines.push(
      `Note: CodeGraph's index has no symbol named "${otherSymbol.asked}"; this answer is about "${otherSymbol.got}"${at(otherSymbol.at)}, the closest name it has.`,
    );
  if (otherFile)
    lines.push(
      `Note: CodeGraph's index has no "${otherFile.asked}" in ${otherFile.file}; this answer is its definition in ${otherFile.at.path}:${otherFile.at.line}.`,
    );
  if (importRows) {
    const { imports, rows, symbol } = importRows;
    const one = imports === 1;
    const which = imports === rows ? `The ${one ? "caller" : `${rows} callers`}` : `${imports} of the ${rows} callers`;
    const are = one ? "is a file that only imports" : "are files that only import";
    lines.push(`Note: ${which} below ${are} "${symbol}" ([imports]), not ${one ? "a call" : "calls"}.`);
  }
  return lines;
}

module.exports = { answerNoteLines };
