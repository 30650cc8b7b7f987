// The real code bases of the answers figure, each fetched from its registry once, unpacked,
// indexed with the pinned CodeGraph CLI and cached between runs (BENCH_CACHE, default
// <repo>/.tmp/bench-cache), keyed by its version and CodeGraph's: a Rust crate's source (cargo's
// registry), Django's sdist (pip, bench/lib/django.mjs) and a large TypeScript package (npm).

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { djangoTree, indexTree, why } from "./django.mjs";
import { root } from "./setup.mjs";

const log = (s) => process.stderr.write(`${s}\n`);

/** The corpora, pinned: `dir` inside the unpacked package is what CodeGraph indexes. */
export const CORPORA = [
  { id: "tokio", what: "Rust crate tokio 1.48.0 (cargo)", registry: "cargo", name: "tokio", version: "1.48.0" },
  { id: "django", what: "Django 5.2.19's sdist (pip)", registry: "pip", name: "django", version: "5.2.19" },
  { id: "effect", what: "npm package effect 4.1.5 (src/)", registry: "npm", name: "effect", version: "4.1.5" },
];

/** A crate's source from cargo's registry: `cargo fetch` of a throwaway project that pins it. */
function fetchCrate({ name, version }, into) {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "pi-cg-crate-"));
  fs.mkdirSync(path.join(project, "src"));
  fs.writeFileSync(
    path.join(project, "Cargo.toml"),
    `[package]\nname = "fetch-${name}"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n${name} = "=${version}"\n`,
  );
  fs.writeFileSync(path.join(project, "src", "main.rs"), "fn main() {}\n");
  const r = spawnSync("cargo", ["fetch", "--quiet"], { cwd: project, encoding: "utf8" });
  fs.rmSync(project, { recursive: true, force: true });
  if (r.error || r.status !== 0) return { skip: `cargo fetch ${name}@${version} failed (${why(r)})` };
  const cargoHome = process.env.CARGO_HOME ?? path.join(os.homedir(), ".cargo");
  const registries = path.join(cargoHome, "registry", "src");
  const found = fs
    .readdirSync(registries)
    .map((reg) => path.join(registries, reg, `${name}-${version}`))
    .find((d) => fs.existsSync(d));
  if (!found) return { skip: `cargo fetched ${name}@${version} but its source is not under ${registries}` };
  fs.cpSync(found, into, { recursive: true });
  return {};
}

/** An npm package's published files: `npm pack` then the tarball's package/. */
function fetchNpm({ name, version }, into) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "pi-cg-npm-"));
  let r = spawnSync("npm", ["pack", "--silent", `${name}@${version}`], { cwd: work, encoding: "utf8" });
  if (r.error || r.status !== 0) return { skip: `npm pack ${name}@${version} failed (${why(r)})` };
  const tarball = r.stdout.trim().split("\n").at(-1);
  r = spawnSync("tar", ["xzf", tarball], { cwd: work, encoding: "utf8" });
  if (r.error || r.status !== 0) return { skip: `tar could not unpack ${tarball} (${why(r)})` };
  fs.renameSync(path.join(work, "package"), into);
  fs.rmSync(work, { recursive: true, force: true });
  return {};
}

/**
 * `corpus` unpacked and indexed: `{ dir, initMs, graph, cached }` or `{ skip }` (no registry, no
 * tool). Fetched and indexed once per corpus and CodeGraph version.
 */
export function corpusTree(corpus, cli, cgVersion) {
  if (corpus.registry === "pip") return djangoTree(corpus.version, cli, cgVersion);
  const cache = path.resolve(process.env.BENCH_CACHE ?? path.join(root, ".tmp", "bench-cache"));
  const home = path.join(cache, `${corpus.name}-${corpus.version}-codegraph-${cgVersion}`);
  const dir = path.join(home, `${corpus.name}-${corpus.version}`);
  const stamp = path.join(home, "indexed.json");
  if (fs.existsSync(stamp) && fs.existsSync(path.join(dir, ".codegraph", "codegraph.db"))) {
    return { dir, ...JSON.parse(fs.readFileSync(stamp, "utf8")), cached: true };
  }
  fs.rmSync(home, { recursive: true, force: true });
  fs.mkdirSync(home, { recursive: true });
  log(`answers: fetching ${corpus.what}…`);
  const fetched = corpus.registry === "cargo" ? fetchCrate(corpus, dir) : fetchNpm(corpus, dir);
  if (fetched.skip) return fetched;
  log(`answers: indexing ${corpus.id} with CodeGraph ${cgVersion} (once; minutes on a large tree)…`);
  const made = indexTree(dir, cli);
  if (made.skip) return made;
  const record = { ...made, indexedAt: new Date().toISOString() };
  fs.writeFileSync(stamp, JSON.stringify(record, null, 2));
  return { dir, ...record, cached: false };
}

/**
 * Each corpus unpacked and indexed (corpusTree, for the pinned `cli`): `{ corpus, tree }`, in
 * CORPORA's order; one that cannot be is said in `notes` and skipped.
 */
export function* indexedCorpora(cli, cgVersion, notes) {
  for (const corpus of CORPORA) {
    const tree = corpusTree(corpus, cli, cgVersion);
    if (tree.skip) notes.push(`${corpus.id} skipped: ${tree.skip}`);
    else yield { corpus, tree };
  }
}
