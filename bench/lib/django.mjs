// Django's sdist, fetched with pip, unpacked and indexed with the pinned CodeGraph CLI once, and
// cached between runs (BENCH_CACHE, default <repo>/.tmp/bench-cache), keyed by the Django and
// CodeGraph versions: the large real code base of the parallel figure.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { root } from "./setup.mjs";

const require = createRequire(import.meta.url);
const log = (s) => process.stderr.write(`${s}\n`);

export function codegraphVersion() {
  const manifest = require.resolve("@colbymchenry/codegraph/package.json", { paths: [root] });
  return JSON.parse(fs.readFileSync(manifest, "utf8")).version;
}

export function dirBytes(dir) {
  let total = 0;
  for (const f of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (f.isFile()) total += fs.statSync(path.join(f.parentPath, f.name)).size;
  }
  return total;
}

/** The first line of a failed command's output that says something, for a skip message. */
export function why(r) {
  if (r.error) return r.error.message;
  const text = `${r.stderr ?? ""}\n${r.stdout ?? ""}`.trim().split("\n").filter(Boolean);
  return `exit ${r.status ?? r.signal}: ${(text.find((l) => /error/i.test(l)) ?? text.at(-1) ?? "").trim()}`;
}

/**
 * Django's sdist, unpacked and indexed, from the cache (BENCH_CACHE, default <repo>/.tmp/bench-cache)
 * keyed by the Django and CodeGraph versions; fetched with pip and indexed when missing.
 * Returns { dir, initMs, files, cached } or { skip }.
 */
export function djangoTree(version, cli, cgVersion) {
  const cache = path.resolve(process.env.BENCH_CACHE ?? path.join(root, ".tmp", "bench-cache"));
  const home = path.join(cache, `django-${version}-codegraph-${cgVersion}`);
  const dir = path.join(home, `django-${version}`);
  const stamp = path.join(home, "indexed.json");
  if (fs.existsSync(stamp) && fs.existsSync(path.join(dir, ".codegraph", "codegraph.db"))) {
    return { dir, ...JSON.parse(fs.readFileSync(stamp, "utf8")), cached: true };
  }
  fs.rmSync(home, { recursive: true, force: true });
  const download = path.join(home, "sdist");
  fs.mkdirSync(download, { recursive: true });
  const made = fetchAndIndex(version, cli, cgVersion, home, download, dir);
  if (made.skip) {
    fs.rmSync(home, { recursive: true, force: true });
    made.skip += `. It needs pip and the network once; the indexed tree is then cached in ${home} (BENCH_CACHE sets the cache directory).`;
  } else fs.writeFileSync(stamp, JSON.stringify(made, null, 2));
  return { dir, ...made, cached: false };
}

/** The first of `python3 -m pip` and `pip` that runs, as [command, ...args], or null. */
function pipCommand() {
  for (const cmd of [["python3", "-m", "pip"], ["pip"]]) {
    const r = spawnSync(cmd[0], [...cmd.slice(1), "--version"], { encoding: "utf8" });
    if (!r.error && r.status === 0) return cmd;
  }
  return null;
}

/**
 * `codegraph init -y .` in `dir` with the pinned CLI: `{ initMs, graph }` (CodeGraph's "N nodes, M
 * edges" line), or `{ skip }`. The npm shim runs on the Node that runs the bench (CodeGraph wants
 * Node < 25 for it).
 */
export function indexTree(dir, cli) {
  const started = performance.now();
  const env = {
    ...process.env,
    DO_NOT_TRACK: "1",
    NO_COLOR: "1",
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
  };
  const r = spawnSync(cli, ["init", "-y", "."], { cwd: dir, encoding: "utf8", env, maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) return { skip: `\`codegraph init -y .\` failed in ${dir} (${why(r)})` };
  const graph = r.stdout.split("\n").find((l) => /nodes.*edges/.test(l));
  return { initMs: performance.now() - started, graph: graph?.replace(/^[^0-9]*/, "").trim() };
}

function fetchAndIndex(version, cli, cgVersion, home, download, dir) {
  const pip = pipCommand();
  if (!pip) return { skip: "neither `python3 -m pip` nor `pip` runs here (pip fetches Django's sdist)" };
  log(`parallel: fetching Django ${version}'s sdist with ${pip.join(" ")}…`);
  const pipArgs = ["download", "--no-binary", ":all:", "--no-deps", `django==${version}`, "-d", download];
  let r = spawnSync(pip[0], [...pip.slice(1), ...pipArgs], { encoding: "utf8" });
  if (r.error || r.status !== 0) return { skip: `pip could not fetch Django ${version}'s sdist (${why(r)})` };
  const tarball = fs.readdirSync(download).find((f) => /^django-.*\.tar\.gz$/i.test(f));
  if (!tarball) return { skip: `pip left no Django sdist in ${download}` };
  const unpack = path.join(home, "unpack");
  fs.mkdirSync(unpack);
  r = spawnSync("tar", ["xzf", path.join(download, tarball), "-C", unpack], { encoding: "utf8" });
  if (r.error || r.status !== 0) return { skip: `tar could not unpack ${tarball} (${why(r)})` };
  const [top] = fs.readdirSync(unpack);
  fs.renameSync(path.join(unpack, top), dir);
  fs.rmSync(unpack, { recursive: true });
  fs.rmSync(download, { recursive: true });
  log(`parallel: indexing Django ${version} with CodeGraph ${cgVersion} (a minute or so, once)…`);
  const made = indexTree(dir, cli);
  if (made.skip) return made;
  const { initMs, graph } = made;
  const files = fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".py")).length;
  log(`parallel: indexed in ${(initMs / 1000).toFixed(1)} s (${graph ?? "no summary"})`);
  return { initMs, files, indexedAt: new Date().toISOString(), graph };
}
