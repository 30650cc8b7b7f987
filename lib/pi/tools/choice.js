// Which focused tools are on (lib/pi/tools/focused.js): the user's choice, never the model's. It comes from
// PI_CODEGRAPH_TOOLS when that is set and valid, else from what `/codegraph tools` saved for this
// project, else all of them, as the answers bench decided (docs/tools.md says why, and what
// upstream argues for explore alone). The
// choice is saved outside the project, in Pi's agent directory (one small file per project), so
// it lasts across sessions and the workspace is never written.

const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { readSettingsFile } = require("../settings-file.js");
const { FOCUSED_NAMES, FOCUSED_TOOLS } = require("./focused.js");
const { settingsProblemText } = require("../../words/settings.js");

/**
 * The focused tools on when the user chose nothing: all of them, as the answers bench decided
 * (docs/tools.md: with codegraph_changes on, the change scenarios are answered from the working
 * tree's diff, at a fraction of explore's bytes); `/codegraph tools none` leaves explore alone.
 */
const DEFAULT_TOOLS = Object.freeze([...FOCUSED_NAMES]);

/** `node`, `codegraph_node` → `codegraph_node`; anything else → undefined. */
function toolNameOf(word) {
  const w = String(word).trim().toLowerCase();
  return FOCUSED_TOOLS.find((t) => t.short === w || t.name === w)?.name;
}

/**
 * A list as the user writes it (`all`, `none`, or names, short or full, separated by commas or
 * spaces; `explore` is always on and may be named) → `{ names }` in catalogue order, or
 * `{ unknown: [words] }`.
 */
function parseToolList(text) {
  const words = String(text)
    .split(/[\s,]+/)
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  if (words.length === 1 && words[0] === "all") return { names: [...FOCUSED_NAMES] };
  if (words.length === 1 && words[0] === "none") return { names: [] };
  const unknown = words.filter((w) => !toolNameOf(w) && w !== "explore" && w !== "codegraph_explore");
  if (unknown.length) return { unknown };
  const chosen = new Set(words.map(toolNameOf).filter(Boolean));
  return { names: FOCUSED_NAMES.filter((n) => chosen.has(n)) };
}

/** PI_CODEGRAPH_TOOLS: `{ names }`, `{ ignored: value }` (not a list we read), or undefined (unset). */
function envChoice(env = process.env) {
  const value = env.PI_CODEGRAPH_TOOLS;
  if (value === undefined) return undefined;
  const parsed = value.trim() === "" ? { unknown: [""] } : parseToolList(value);
  return parsed.names ? { names: parsed.names } : { ignored: value };
}

/**
 * Pi's agent directory (Pi's own getAgentDir() when the host gives it; else as Pi computes it:
 * PI_CODING_AGENT_DIR with a leading `~` or `~/` for the home directory, else ~/.pi/agent).
 */
function agentDirOf(getAgentDir, env = process.env) {
  try {
    if (typeof getAgentDir === "function") return getAgentDir();
  } catch {}
  const dir = env.PI_CODING_AGENT_DIR;
  if (!dir) return path.join(os.homedir(), ".pi", "agent");
  if (dir === "~") return os.homedir();
  return dir.startsWith("~/") ? os.homedir() + dir.slice(1) : dir;
}

/**
 * Where what the user chose for the project `cwd` is saved (`kind`: "tools", or "roots" for
 * lib/pi/roots/roots.js): a file named by a hash of its absolute path, in Pi's agent directory, never in
 * the workspace.
 */
function savedFile(agentDir, cwd, kind = "tools") {
  const key = crypto.createHash("sha256").update(path.resolve(cwd)).digest("hex").slice(0, 16);
  return path.join(agentDir, "pi-codegraph", kind, `${key}.json`);
}

/** Writes `data` as JSON to `file` (a temp file, then rename: never half a file). Throws on failure. */
function saveJson(file, data) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, `${JSON.stringify(data, null, 2)}\n`);
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true }); // a failed save leaves nothing behind
    throw err;
  }
  return file;
}

/**
 * What was saved of `kind` for the project `cwd` (savedFile): `{ file, data }` (its JSON),
 * `{ file, absent: true }`, or `{ file, problem }` (a file that is not a regular one, too large,
 * unreadable, or not JSON). A regular file only, bounded: a FIFO planted there would block session
 * start for good (lib/pi/settings-file.js).
 */
function readSaved(agentDir, cwd, kind) {
  const file = savedFile(agentDir, cwd, kind);
  const read = readSettingsFile(file);
  if (read.absent) return { file, absent: true };
  if (read.reason) return { file, problem: settingsProblemText(file, read.reason) };
  try {
    return { file, data: JSON.parse(read.text) };
  } catch {
    return { file, problem: `${file}: not JSON` };
  }
}

/** The saved choice: `{ names }`, `{ problem }` (a file we cannot read or use), or undefined (none saved). */
function loadSaved(agentDir, cwd) {
  const { file, data, absent, problem } = readSaved(agentDir, cwd, "tools");
  if (absent) return undefined;
  if (problem) return { problem };
  if (!Array.isArray(data?.tools) || data.tools.some((n) => typeof n !== "string"))
    return { problem: `${file}: no tools list` };
  // Names this version does not know (a newer version's) are left out, not refused.
  return { names: FOCUSED_NAMES.filter((n) => data.tools.includes(n)) };
}

/** Saves `names` for `cwd` (write to a temp file, then rename: never half a file). Returns the file or throws. */
function saveChoice(agentDir, cwd, names) {
  const data = { project: path.resolve(cwd), tools: names, savedAt: new Date().toISOString() };
  return saveJson(savedFile(agentDir, cwd), data);
}

/**
 * The choice in force for `cwd`: `{ names, source: "env" | "saved" | "default", ignoredEnv?,
 * savedProblem? }`. A PI_CODEGRAPH_TOOLS we cannot read is ignored (and said); a saved file we
 * cannot read is the default (and said).
 */
function choiceFor(cwd, { agentDir, env = process.env }) {
  const fromEnv = envChoice(env);
  const notes = fromEnv?.ignored !== undefined ? { ignoredEnv: fromEnv.ignored } : {};
  if (fromEnv?.names) return { names: fromEnv.names, source: "env" };
  const saved = loadSaved(agentDir, cwd);
  if (saved?.names) return { names: saved.names, source: "saved", ...notes };
  return {
    names: [...DEFAULT_TOOLS],
    source: "default",
    ...notes,
    ...(saved?.problem ? { savedProblem: saved.problem } : {}),
  };
}

/**
 * `/codegraph tools …` (the words after `tools`): `{ action: "list" }`, `{ action: "set", names }`
 * (all, none, or a list: exactly those on), `{ action: "on" | "off", names }`, or `{ unknown }`.
 */
function parseToolsArgs(rest) {
  const words = String(rest ?? "")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  if (words.length === 0 || (words.length === 1 && words[0].toLowerCase() === "list")) return { action: "list" };
  const first = words[0].toLowerCase();
  if (first === "on" || first === "off") {
    const parsed = parseToolList(words.slice(1).join(" "));
    if (parsed.unknown) return { unknown: parsed.unknown };
    if (words.length === 1) return { action: first, names: [...FOCUSED_NAMES] };
    return { action: first, names: parsed.names };
  }
  const parsed = parseToolList(words.join(" "));
  return parsed.unknown ? { unknown: parsed.unknown } : { action: "set", names: parsed.names };
}

/** The names on after `parsed` (parseToolsArgs) is applied to `current`. */
function applyChoice(current, parsed) {
  if (parsed.action === "set") return parsed.names;
  if (parsed.action === "on") return FOCUSED_NAMES.filter((n) => current.includes(n) || parsed.names.includes(n));
  if (parsed.action === "off") return FOCUSED_NAMES.filter((n) => current.includes(n) && !parsed.names.includes(n));
  return current;
}

module.exports = {
  DEFAULT_TOOLS,
  agentDirOf,
  applyChoice,
  choiceFor,
  envChoice,
  loadSaved,
  parseToolList,
  parseToolsArgs,
  readSaved,
  saveChoice,
  saveJson,
  savedFile,
  toolNameOf,
};
