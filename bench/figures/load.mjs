// Addon load time: fresh `node -e` processes. The wall is timed from outside; inside, each script
// reports its own breakdown with performance.now() (whose origin is the process start).

import { execFileSync } from "node:child_process";
import path from "node:path";
import { CAP_BYTES, indexJs } from "../lib/peers.mjs";
import { median, ms, ratio } from "../lib/stats.mjs";

const PROCESSES = 10;
const commandsJs = path.join(path.dirname(indexJs), "lib", "contract", "commands.js");

/** A script that requires `mod`, takes explore from `pick` and times two calls. */
function exploreScript(ctx, mod, pick) {
  const q = JSON.stringify;
  return `const p=performance;const t0=p.now();const m=require(${q(mod)});const t1=p.now();const ex=${pick};
ex("bytes=200",${q(ctx.ws)}).then(()=>{const t2=p.now();return ex("bytes=200",${q(ctx.ws)}).then(()=>{const t3=p.now();
const loaded=require("fs").readFileSync("/proc/self/maps","utf8").split("\\n").map((l)=>l.slice(l.indexOf("/"))).find((f)=>/\\.(node|so)$/.test(f)&&/codegraph/.test(f));
console.log(JSON.stringify({startup:t0,require:t1-t0,first:t2-t1,second:t3-t2,loaded}))})})`;
}

function scripts(ctx) {
  const q = JSON.stringify;
  return [
    { name: "node -e '' (start-up)", script: "" },
    {
      name: "node + execFile ×2",
      script: `const {execFile}=require("child_process");const p=performance;const t0=p.now();
const run=()=>new Promise((r,j)=>execFile(${q(ctx.fake)},["explore","--","bytes=200"],{cwd:${q(ctx.ws)},maxBuffer:${CAP_BYTES}},(e,o)=>e?j(e):r(o)));
run().then(()=>{const t1=p.now();return run().then(()=>{const t2=p.now();
console.log(JSON.stringify({startup:t0,first:t1-t0,second:t2-t1}))})})`,
    },
    { name: "node + index.js explore() ×2 ⁴", script: exploreScript(ctx, indexJs, "m.explore") },
    {
      name: "node + addon .node explore() ×2 ⁵",
      // The addon runs command descriptions; explore is one (lib/contract/commands.js).
      script: exploreScript(
        ctx,
        ctx.addon.file,
        `(r,c)=>m.runCommand(require(${q(commandsJs)}).exploreCommand(r),c,null,null)`,
      ),
    },
  ];
}

export async function load(ctx) {
  const kinds = scripts(ctx).map((k) => ({ ...k, walls: [], inside: [] }));
  for (let i = 0; i < PROCESSES + 1; i++) {
    for (const k of kinds) {
      const t = performance.now();
      const out = execFileSync(process.execPath, ["-e", k.script], { encoding: "utf8", env: process.env });
      if (i === 0) continue; // warm-up: page cache, dynamic loader
      k.walls.push(performance.now() - t);
      if (out.trim()) k.inside.push(JSON.parse(out));
    }
  }
  const base = median(kinds[0].walls);
  const part = (k, key) => (k.inside.some((x) => key in x) ? ms(median(k.inside.map((x) => x[key]))) : "");
  const rows = kinds.map((k) => [
    k.name,
    k.walls.length,
    ms(median(k.walls)),
    ratio(median(k.walls), base),
    `+${ms(median(k.walls) - base)}`,
    part(k, "startup"),
    part(k, "require"),
    part(k, "first"),
    part(k, "second"),
  ]);
  const [, ef, viaIndex, direct] = kinds;
  const med = (k, key) => median(k.inside.map((x) => x[key]));
  const indexLoaded = viaIndex.inside[0]?.loaded ?? "?";
  const sameBuild = indexLoaded === ctx.addon.source;
  return {
    title: "Addon load time (fresh processes)",
    about:
      `Median over ${PROCESSES} fresh \`node -e\` processes of each kind (after one warm-up process each), run interleaved. ` +
      "The execFile script runs the fake twice. The explore() scripts require a module and call explore() twice: the first call is cold " +
      "(the addon's tokio runtime starts and the `--version` probe spawns the CLI once more), the second is warm.",
    tables: [
      {
        caption: "Fresh process, median ms",
        head: [
          "process",
          "n",
          "wall ms",
          "vs start-up",
          "added ms",
          "start-up ms ³",
          "require ms",
          "1st call ms",
          "2nd call ms",
        ],
        rows,
      },
    ],
    notes: [
      "³ performance.now() when the script's first line runs: Node's own start-up inside the process.",
      `⁴ index.js as a user gets it: its explore() loads the native addon on first use, so its 1st call includes finding and loading the .node; it loaded ${indexLoaded}` +
        (sameBuild
          ? " (the measured addon's source)."
          : ", which is NOT the measured addon (BENCH_ADDON is set): this row may be another build."),
      "⁵ the addon snapshot required directly: require is the .node's dlopen and napi registration alone.",
      (sameBuild
        ? `Cold premiums: index.js's 1st explore() takes ${ms(med(viaIndex, "first") - med(viaIndex, "second"))} ms more than its 2nd, ` +
          `of which ${ms(med(viaIndex, "first") - med(direct, "first"))} ms is index.js finding and loading the addon (its 1st call minus the direct 1st call): ` +
          `≈ ${ms(med(direct, "require"))} ms of dlopen and napi registration (the direct require) and ≈ ${ms(med(viaIndex, "first") - med(direct, "first") - med(direct, "require"))} ms of the loader's own lookup; `
        : "Cold premiums (index.js row left out: another build): ") +
        `the direct addon's 1st call takes ${ms(med(direct, "first") - med(direct, "second"))} ms more than its 2nd (runtime start; the version probe runs concurrently with the first run); ` +
        `execFile's 1st call takes ${ms(med(ef, "first") - med(ef, "second"))} ms more than its 2nd.`,
    ],
    targets: [],
  };
}
