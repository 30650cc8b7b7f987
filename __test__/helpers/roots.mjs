// Multi-root fixtures (issue 24): a monorepo whose CodeGraph indexes live in its sub-projects
// (`packages/api`, `packages/web`), and an indexed project with a workspace below it (an
// ancestor's index). Each index is a `.codegraph/codegraph.db` whose first page holds a SQLite
// header and CodeGraph's tables (indexBytes): enough for readiness and the roots' scan (no SQLite
// is opened).
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "./index.mjs";
import { indexBytes } from "./index-bytes.mjs";

export { indexBytes };

/** The sub-projects of the default monorepo, in the order the scan lists them. */
export const MONOREPO_PROJECTS = ["packages/api", "packages/web"];

/** Writes a minimal CodeGraph index in `dir` (created when missing); returns the index file. */
export function writeIndex(dir) {
  fs.mkdirSync(path.join(dir, ".codegraph"), { recursive: true });
  const db = path.join(dir, ".codegraph", "codegraph.db");
  fs.writeFileSync(db, indexBytes());
  fs.writeFileSync(path.join(dir, ".codegraph", ".gitignore"), "*\n!.gitignore\n");
  return db;
}

/**
 * Dates every file under `dir` outside its index directories `seconds` back: sources older than
 * an index written since, as after a real `codegraph init` (the walk for changed files counts
 * the rest).
 */
export function ageSources(dir, seconds = 300) {
  const t = Date.now() / 1000 - seconds;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    if (entry.isFile() && !file.split(path.sep).includes(".codegraph")) fs.utimesSync(file, t, t);
  }
}

/** Removes the CodeGraph index of `dir`. */
export function removeIndex(dir) {
  fs.rmSync(path.join(dir, ".codegraph"), { recursive: true, force: true });
}

/** A project directory at `dir`: a package.json, one source file and (unless `index: false`) an index. */
export function makeProject(dir, { index = true } = {}) {
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: path.basename(dir), private: true })}\n`);
  fs.writeFileSync(path.join(dir, "src", "index.ts"), "export function main() {}\n");
  if (index) writeIndex(dir);
  return dir;
}

/**
 * A monorepo in a temp directory: a package.json at its root, each of `projects` (relative, with
 * "/") a project with its own index, and the root's own index only when `own`. Returns its path.
 */
export function makeMonorepo({ own = false, projects = MONOREPO_PROJECTS } = {}) {
  const ws = tempDir("pi-codegraph-mono-");
  fs.writeFileSync(path.join(ws, "package.json"), `${JSON.stringify({ private: true, workspaces: ["packages/*"] })}\n`);
  if (own) writeIndex(ws);
  for (const p of projects) makeProject(path.join(ws, ...p.split("/")));
  ageSources(ws);
  return ws;
}

/**
 * An indexed project named `name` (in a temp directory of its own) and a workspace below it
 * without an index (`sub`, a directory of it): Pi started in a subdirectory of an indexed project.
 * Returns `{ project, ws }`.
 */
export function makeNested(name = "django", sub = "app") {
  const project = makeProject(path.join(tempDir("pi-codegraph-up-"), name));
  const ws = path.join(project, sub);
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, "views.py"), "def view():\n    pass\n");
  ageSources(project);
  return { project, ws };
}
