// `/codegraph projects` (once `roots`): the user lists the projects the tools answer from (scanning again), adds a
// directory with a CodeGraph index (a path the user typed, completed from the filesystem), and
// removes one they added. Only the user: a command is typed, never called by the model, and
// nothing outside the workspace becomes a root unless added here. Kept per project in Pi's agent
// directory (lib/pi/roots/roots.js).

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const os = require("node:os");
const path = require("node:path");
const { inOtherWorktree, worktreeOf } = require("../roots/worktree-of.js");
const { MAX_ADDED_ROOTS, saveAddedRoots } = require("../roots/roots.js");
const { hasIndex } = require("../roots/index-probe.js");
const { ROOTS_WORDS, addedText, notAddedText, notRemovedText, removedText } = require("../../words/roots.js");
const { rootsListText, unknownRootsText } = require("../../words/roots.js");

/** At most this many directories are offered by the completion of `roots add`. */
const MAX_DIR_COMPLETIONS = 20;

/** A directory the user typed: `~` is the home directory, a relative path is the workspace's, quotes around it dropped. */
function typedDir(text, cwd) {
  let s = text.trim();
  if (/^(["']).*\1$/.test(s) && s.length >= 2) s = s.slice(1, -1);
  if (s === "~") s = os.homedir();
  else if (s.startsWith("~/")) s = os.homedir() + s.slice(1);
  return path.resolve(cwd, s);
}

/** The rows `/codegraph projects` lists: every root, with its readiness. */
function rootRows(state) {
  return state.roots.map((r) => {
    const d = r.indexed ? state.diagnosisOf(r) : undefined;
    return { ...r, problem: d && !d.ready ? d.problemCode : undefined };
  });
}

/** Saves `dirs` as the added roots and applies them; `{ saved, saveError }`. */
async function applyAdded(dirs, ctx, env) {
  const { state } = env;
  let saved;
  let saveError;
  try {
    saved = saveAddedRoots(state.agentDir, ctx.cwd, dirs);
  } catch (err) {
    saveError = err?.code ?? err?.message ?? String(err);
  }
  state.addedRootsAre(dirs);
  await env.refresh(ctx);
  return { saved: Boolean(saved), saveError };
}

async function addRoot(text, ctx, env) {
  const { state, say } = env;
  if (!text.trim()) return say(ctx, notAddedText({ is: "missingDir" }), "warning");
  const dir = typedDir(text, ctx.cwd);
  let st;
  try {
    st = await fsp.stat(dir);
  } catch (err) {
    const is = err?.code === "ENOENT" || err?.code === "ENOTDIR" ? "notDir" : "unusable";
    return say(ctx, notAddedText({ is, dir, why: err?.code }), "warning");
  }
  if (!st.isDirectory()) return say(ctx, notAddedText({ is: "notDir", dir }), "warning");
  if (inOtherWorktree(dir, worktreeOf(ctx.cwd))) return say(ctx, notAddedText({ is: "otherWorktree", dir }), "warning");
  const known = state.roots.find((r) => r.dir === dir);
  if (known && (known.indexed || known.source === "added"))
    return say(ctx, notAddedText({ is: "already", dir, label: known.label }), "warning");
  // The index directory CodeGraph opens there, as the runner finds it (CODEGRAPH_DIR, WSL): found once, never guessed here.
  const d = await env.glue.diagnose(dir, ctx.cwd);
  if (typeof d.indexDir !== "string" || d.indexDir === "")
    return say(ctx, notAddedText({ is: "unusable", dir, why: d.problem }), "warning");
  const indexDir = path.basename(d.indexDir);
  if (!(await hasIndex(dir, indexDir))) return say(ctx, notAddedText({ is: "noIndex", dir, indexDir }), "warning");
  if (state.added.dirs.length >= MAX_ADDED_ROOTS)
    return say(ctx, notAddedText({ is: "tooMany", max: MAX_ADDED_ROOTS }), "warning");
  const result = await applyAdded([...state.added.dirs, dir], ctx, env);
  const label = state.roots.find((r) => r.dir === dir)?.label ?? path.basename(dir);
  say(ctx, addedText({ label, dir, ...result }), result.saveError ? "warning" : "info");
}

async function removeRoot(text, ctx, env) {
  const { state, say } = env;
  const label = text.trim();
  const added = state.roots.filter((r) => r.source === "added");
  if (!label) return say(ctx, notRemovedText({ is: "missingLabel" }), "warning");
  const root = state.roots.find((r) => r.label === label);
  if (root && !state.added.dirs.includes(root.dir))
    return say(ctx, notRemovedText({ is: "notAdded", label, source: root.source }), "warning");
  if (!root) return say(ctx, notRemovedText({ is: "unknown", label, labels: added.map((r) => r.label) }), "warning");
  const result = await applyAdded(
    state.added.dirs.filter((d) => d !== root.dir),
    ctx,
    env,
  );
  say(ctx, removedText({ label, dir: root.dir, ...result }), result.saveError ? "warning" : "info");
}

/**
 * `/codegraph projects <rest>`: list (after scanning again), `add <dir>`, `remove <label>`. `env`:
 * `{ state, refresh(ctx), say(ctx, text, type) }` from lib/pi/session.js.
 */
async function handleRoots(rest, ctx, env) {
  const text = String(rest ?? "");
  const word = text.trim().split(/\s+/)[0].toLowerCase();
  const after = text.trim().slice(word.length);
  if (word === "add") return addRoot(after, ctx, env);
  if (word === "remove" || word === "rm") return removeRoot(after, ctx, env);
  if (word !== "" && word !== "list") return env.say(ctx, unknownRootsText(word), "warning");
  await env.state.rescan(ctx);
  const facts = { scan: env.state.scan, savedProblem: env.state.added.problem };
  return env.show(ctx, "projects", rootsListText(rootRows(env.state), facts), "info");
}

/** The directories below the one `typed` points into whose names start as its last part does. */
async function dirCompletions(typed, cwd) {
  const slash = typed.lastIndexOf("/");
  const dirPart = slash === -1 ? "" : typed.slice(0, slash + 1);
  const start = typed.slice(slash + 1);
  const base = typedDir(dirPart === "" ? "." : dirPart, cwd);
  let entries;
  try {
    entries = await fsp.readdir(base, { withFileTypes: true });
  } catch {
    return [];
  }
  const names = [];
  for (const e of entries) {
    if (!e.name.startsWith(start) || (e.name.startsWith(".") && !start.startsWith("."))) continue;
    let isDir = e.isDirectory();
    if (!isDir && e.isSymbolicLink()) {
      try {
        isDir = fs.statSync(path.join(base, e.name)).isDirectory();
      } catch {}
    }
    if (isDir) names.push(e.name);
  }
  names.sort();
  const shown = names.slice(0, MAX_DIR_COMPLETIONS);
  const indexed = await Promise.all(shown.map((n) => hasIndex(path.join(base, n))));
  return shown.map((n, i) => ({ name: `${dirPart}${n}/`, indexed: indexed[i] }));
}

/**
 * Pi's completion after `/codegraph projects ` (or `roots `, its old name): `add` and `remove`;
 * after `add `, directories (those with an index said so); after `remove `, the names of the
 * projects the user added.
 */
async function rootsCompletions(prefix, state, cwd) {
  const text = String(prefix ?? "");
  const m = /^(projects|roots)\s+(\S*)(\s+(.*))?$/is.exec(text);
  if (!m) return null;
  const verb = m[1].toLowerCase();
  const word = m[2].toLowerCase();
  if (m[3] === undefined) {
    if (Object.hasOwn(ROOTS_WORDS, word)) return null;
    const items = Object.entries(ROOTS_WORDS)
      .filter(([w]) => w.startsWith(word))
      .map(([w, line]) => ({ value: `${verb} ${w}`, label: w, description: line }));
    return items.length ? items : null;
  }
  const typed = m[4] ?? "";
  if (word === "add") {
    const dirs = await dirCompletions(typed, cwd);
    const items = dirs.map((d) => ({
      value: `${verb} add ${d.name}`,
      label: d.name,
      ...(d.indexed ? { description: "has a CodeGraph index" } : {}),
    }));
    return items.length ? items : null;
  }
  if (word === "remove") {
    const items = state.roots
      .filter((r) => r.source === "added" && r.label.startsWith(typed) && r.label !== typed)
      .map((r) => ({ value: `${verb} remove ${r.label}`, label: r.label, description: r.dir }));
    return items.length ? items : null;
  }
  return null;
}

module.exports = { handleRoots, rootsCompletions };
