// What `outlineSource` reads (both runners: crates/core/src/source_outline.rs): the files asked for, workspace-relative; each one's
// language by its extension; the bounds, the same on both sides.

/** At most this many paths are outlined; past them the answer says `cut: { reason: "paths" }`. */
const MAX_OUTLINE_PATHS = 500;
/** A larger file is not read (`problem: "tooLarge"`). */
const MAX_OUTLINE_FILE_BYTES = 8 * 1024 * 1024;
/** Past this many bytes read in all, the rest is not (`cut: { reason: "bytes" }`). */
const MAX_OUTLINE_TOTAL_BYTES = 64 * 1024 * 1024;
/** Without a `deadlineMs` of its own, a request stops after this long (`cut: { reason: "deadline" }`). */
const OUTLINE_DEADLINE_MS = 2000;

// biome-ignore format: one table
const OUTLINE_LANGUAGES = {
  rs: "rust", py: "python", pyw: "python", pyi: "python",
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript",
  js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
};

/** The language a file extension (without the dot, any case) names, or null. */
function languageOfExtension(extension) {
  const key = String(extension).toLowerCase();
  return Object.hasOwn(OUTLINE_LANGUAGES, key) ? OUTLINE_LANGUAGES[key] : null;
}

/** The language of workspace-relative `path` by its extension, or null. */
function outlineLanguage(path) {
  const name = String(path).split("/").pop();
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? null : languageOfExtension(name.slice(dot + 1));
}

/** A request's deadline: its own when a positive number (at most a minute), else the default. */
const outlineDeadline = (request) => {
  const own = Number(request?.deadlineMs);
  return Number.isFinite(own) && own > 0 ? Math.min(Math.floor(own), 60000) : OUTLINE_DEADLINE_MS;
};

module.exports = {
  MAX_OUTLINE_FILE_BYTES,
  MAX_OUTLINE_PATHS,
  MAX_OUTLINE_TOTAL_BYTES,
  OUTLINE_DEADLINE_MS,
  languageOfExtension,
  outlineDeadline,
  outlineLanguage,
};
