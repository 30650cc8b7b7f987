// What one codegraph_relations path call reads of the source, read once for the call: each file's
// outline (the runner's `outlineSource`) and its lines (lib/api/call-lines.js linesOf). The walk
// reads the same files from several places (the bodies of `from`, the containers of the search's
// matches, the text hops' first lines, the call lines): large files (effect's Effect.ts, 28,773
// lines) are outlined and split once. An outline a bound cut (`problem`) is not kept, so a later
// request, with its own deadline, asks again. Both functions take the arguments of what they stand for.

const { linesOf } = require("./call-lines.js");

/** `{ outline, lines }` over the runner's `outline` (undefined when it has none). */
function callReads(outline) {
  const outlined = new Map(); // file → Promise<the outline's file entry, or null>
  const texts = new Map(); // file → Promise<lines or null>
  const outlineOnce = async (cwd, { paths, deadlineMs }) => {
    const missing = paths.filter((p) => !outlined.has(p));
    if (missing.length > 0) {
      const asked = Promise.resolve()
        .then(() => outline(cwd, { paths: missing, deadlineMs }))
        .catch(() => null);
      for (const p of missing) {
        const file = asked.then(
          (found) => (Array.isArray(found?.files) ? found.files : []).find((f) => f?.path === p) ?? null,
        );
        outlined.set(p, file);
        file.then((f) => (!f || f.problem) && outlined.get(p) === file && outlined.delete(p));
      }
    }
    return { files: (await Promise.all(paths.map((p) => outlined.get(p)))).filter(Boolean) };
  };
  const lines = (cwd, file) => {
    if (!texts.has(file)) texts.set(file, linesOf(cwd, file));
    return texts.get(file);
  };
  return { outline: typeof outline === "function" ? outlineOnce : undefined, lines };
}

module.exports = { callReads };
