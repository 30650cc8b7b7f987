// Parallel explores on a large real code base: Django's sdist (fetched with pip, indexed once with
// the pinned CodeGraph CLI and cached under .tmp/bench-cache), eight different questions at once
// through the package's public explore() (index.js) while a CPU-bound process runs beside the
// bench, against the same questions one after another through CodeGraph's own launcher; the peak
// RSS of the bench's process tree then and during one call alone; and one call alone through
// explore() against the addon's raw runCommand without the glue.

import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { codegraphVersion, dirBytes, djangoTree } from "../lib/django.mjs";
import { DRAIN_BYTES } from "../lib/peers.mjs";
import { loadAverage, root } from "../lib/setup.mjs";
import { median, mib, ms, percentile, ratio } from "../lib/stats.mjs";
import { cpuHog, mappedAddons, rssSampler, SAMPLE_EVERY_MS } from "../lib/tree.mjs";

const require = createRequire(import.meta.url);

const DJANGO = "5.1.4";
/** Alternated runs of one call alone: explore() and the raw runCommand, this many each. */
const RUNS = 10;
/** What explore() adds to the child's environment (as in real.mjs), for the bare launcher runs. */
const QUIET = { DO_NOT_TRACK: "1", CODEGRAPH_NO_UPDATE_CHECK: "1", CODEGRAPH_NO_DOWNLOAD: "1", NO_COLOR: "1" };
/** The bare launcher runs get far more time than explore()'s 30 s: they are the baseline. */
const BARE_TIMEOUT_MS = 300_000;
/**
 * Eight questions an agent would ask about Django; an answer is real when it names `file` (where
 * the code asked about lives) and `symbol`.
 */
const QUESTIONS = [
  {
    name: "ORM filter",
    q: "how does QuerySet.filter build the SQL WHERE clause",
    file: "django/db/models/query.py",
    symbol: "filter",
  },
  {
    name: "Model.save",
    q: "how does Model.save write a Model instance to the database",
    file: "django/db/models/base.py",
    symbol: "save",
  },
  {
    name: "middleware",
    q: "how does BaseHandler.load_middleware build the middleware chain around the view",
    file: "django/core/handlers/base.py",
    symbol: "load_middleware",
  },
  {
    name: "URL resolving",
    q: "how does URLResolver.resolve match a request path to a view",
    file: "django/urls/resolvers.py",
    symbol: "URLResolver",
  },
  {
    name: "templates",
    q: "how does Template.render render a template with a Context",
    file: "django/template/",
    symbol: "render",
  },
  {
    name: "form validation",
    q: "how does Form.is_valid run full_clean and the field cleaning",
    file: "django/forms/forms.py",
    symbol: "full_clean",
  },
  {
    name: "migrations autodetector",
    q: "how does MigrationAutodetector.changes detect model changes for makemigrations",
    file: "django/db/migrations/autodetector.py",
    symbol: "changes",
  },
  {
    name: "auth backends",
    q: "how does auth.authenticate try each authentication backend",
    file: "django/contrib/auth/",
    symbol: "authenticate",
  },
];

const log = (s) => process.stderr.write(`${s}\n`);
const skipped = (why) => ({
  title: `Parallel explores on Django ${DJANGO}: skipped`,
  about: `Skipped: ${why}`,
  tables: [],
  notes: [],
  targets: [],
});

/** One question through CodeGraph's own launcher, bare (execFile, the quiet environment). */
function viaLauncher(launcher, dir, q) {
  return new Promise((resolve) => {
    const t = performance.now();
    execFile(
      launcher,
      ["explore", "--", q],
      {
        cwd: dir,
        env: { ...process.env, ...QUIET },
        maxBuffer: DRAIN_BYTES,
        timeout: BARE_TIMEOUT_MS,
        encoding: "utf8",
      },
      (err, stdout) => resolve({ ms: performance.now() - t, err, text: stdout }),
    );
  });
}

function realAnswer(question, text) {
  return typeof text === "string" && text.includes(question.file) && text.includes(question.symbol);
}

/** The CLI's run as the addon timed it (spawn to exit): `runMs` when the details have it, else `durationMs`. */
const cliRun = (details) => (typeof details?.runMs === "number" ? details.runMs : details?.durationMs);
/** +1.23% / −0.45%, and 0.00% when it rounds to zero. */
function signedPercent(share) {
  const text = Math.abs(share * 100).toFixed(2);
  return text === "0.00" ? "0.00%" : `${share > 0 ? "+" : "−"}${text}%`;
}
const field = (details, name) => (typeof details?.[name] === "number" ? ms(details[name]) : "—");

export async function parallel(_ctx) {
  if (process.platform !== "linux") return skipped("the RSS sampling reads /proc (Linux only).");
  const cli = path.join(root, "node_modules", ".bin", "codegraph");
  if (!fs.existsSync(cli)) return skipped("the pinned CodeGraph CLI is not installed (node_modules/.bin/codegraph).");
  const cgVersion = codegraphVersion();
  const tree = djangoTree(DJANGO, cli, cgVersion);
  if (tree.skip) return skipped(tree.skip);
  const { dir } = tree;
  const indexBytes = dirBytes(path.join(dir, ".codegraph"));

  const pkg = require(path.join(root, "index.js"));
  const binding = require(path.join(root, "binding.js"));
  const { exploreCommand } = require(path.join(root, "lib", "contract", "commands.js"));

  const saved = { PI_CODEGRAPH_BIN: process.env.PI_CODEGRAPH_BIN, DO_NOT_TRACK: process.env.DO_NOT_TRACK };
  process.env.PI_CODEGRAPH_BIN = cli;
  process.env.DO_NOT_TRACK = "1";
  let hog = null;
  const fullOutputs = [];
  const keep = (r) => {
    if (r?.details?.fullOutputPath) fullOutputs.push(r.details.fullOutputPath);
    return r;
  };
  try {
    // Warm-up (page cache, the runner's first call): every question once through explore().
    log("parallel: warm-up, every question once through explore()…");
    const warm = [];
    for (const question of QUESTIONS) warm.push(keep(await pkg.explore(question.q, dir)));
    const launcher = warm[0].details.executable;
    const runner = pkg.runnerInfo?.() ?? { name: "unknown" };

    // One call alone: explore() against the raw runCommand, in pairs whose order alternates; RSS
    // sampled around both (the sampler's own CPU then weighs on both alike).
    log(`parallel: one call alone, explore() vs raw runCommand, ${RUNS} runs each…`);
    const one = QUESTIONS[0];
    const alone = { explore: [], raw: [], rss: [], exploreCli: [], rawCli: [] };
    const viaExplore = async () => {
      const sampler = rssSampler(new Set());
      const t = performance.now();
      const r = keep(await pkg.explore(one.q, dir));
      alone.explore.push(performance.now() - t);
      alone.exploreCli.push(cliRun(r.details));
      alone.rss.push(sampler.stop().peak);
    };
    const viaRaw = async () => {
      const sampler = rssSampler(new Set());
      const t = performance.now();
      const r = keep(await binding.runCommand(exploreCommand(one.q), dir, null, null));
      alone.raw.push(performance.now() - t);
      alone.rawCli.push(cliRun(r.details));
      alone.rss.push(sampler.stop().peak);
    };
    for (let i = 0; i < RUNS; i++) {
      for (const run of i % 2 ? [viaRaw, viaExplore] : [viaExplore, viaRaw]) await run();
    }
    const loadBefore = loadAverage();

    // Under a CPU hog: the eight one after another via the launcher, then all eight at once.
    hog = cpuHog();
    const exclude = new Set([hog.pid]);
    log("parallel: CPU hog started; eight questions one after another through CodeGraph's launcher…");
    const bare = [];
    const seqStart = performance.now();
    for (const question of QUESTIONS) bare.push(await viaLauncher(launcher, dir, question.q));
    const seqMs = performance.now() - seqStart;

    log("parallel: eight explore() at once…");
    const sampler = rssSampler(exclude);
    const t0 = performance.now();
    const calls = QUESTIONS.map((question) =>
      pkg.explore(question.q, dir).then(
        (r) => ({ ok: true, r: keep(r), settledMs: performance.now() - t0 }),
        (err) => ({ ok: false, err, settledMs: performance.now() - t0 }),
      ),
    );
    const results = await Promise.all(calls);
    const parMs = performance.now() - t0;
    const parRss = sampler.stop();
    const loadAfter = loadAverage();
    hog.stop();
    hog = null;

    // One call alone under the same sampler, each question once, for the RSS baseline.
    const oneRss = [];
    for (const question of QUESTIONS) {
      const s = rssSampler(new Set());
      keep(await pkg.explore(question.q, dir));
      oneRss.push(s.stop().peak);
    }
    const alonePeaks = [...oneRss, ...alone.rss];
    const onePeak = median(alonePeaks);

    const failures = results.filter((x) => !x.ok);
    const timeouts = failures.filter((x) => x.err?.code === "CODEGRAPH_TIMEOUT");
    const bareFailures = bare.filter((b) => b.err);
    const answered = warm.map((r, i) => realAnswer(QUESTIONS[i], r.text));
    const parallelAnswered = results.map((x, i) => x.ok && realAnswer(QUESTIONS[i], x.r.text));
    const details = [...results.map((x) => (x.ok ? x.r.details : x.err?.details)), ...warm.map((r) => r.details)];
    const declared = details.find((d) => Number.isFinite(d?.parallelLimit))?.parallelLimit;
    const envLimit = Number.parseInt(process.env.PI_CODEGRAPH_MAX_PARALLEL ?? "", 10);
    const limit = Number.isFinite(declared) ? declared : Number.isFinite(envLimit) ? envLimit : null;
    const limitText = Number.isFinite(declared)
      ? `${declared} (details.parallelLimit)`
      : Number.isFinite(envLimit)
        ? `${envLimit} (PI_CODEGRAPH_MAX_PARALLEL)`
        : "none (no admission)";
    const rssRatio = parRss.peak / onePeak;
    const eMed = median(alone.explore);
    const rMed = median(alone.raw);
    /** The median of each pair's explore() / runCommand: slow drifts of the machine cancel. */
    const pairRatios = alone.explore.map((e, i) => e / alone.raw[i]);
    const pairRatio = median(pairRatios);
    /** Time outside the CLI's run (glue, napi, preflight, any admission), median per call. */
    const outsideE = median(alone.explore.map((w, i) => w - alone.exploreCli[i]));
    const outsideR = median(alone.raw.map((w, i) => w - alone.rawCli[i]));
    const outsideShare = (outsideE - outsideR) / rMed;

    const about = [
      `Django ${DJANGO}'s sdist (fetched with pip; ${tree.files} .py files, ${tree.graph ?? "indexed"}), indexed with CodeGraph ${cgVersion} (\`codegraph init -y .\`) in ${(tree.initMs / 1000).toFixed(1)} s${tree.cached ? ` on ${tree.indexedAt} (cached in ${path.relative(root, path.dirname(dir)) || path.dirname(dir)})` : " in this run"}; the index is ${mib(indexBytes)}.`,
      `Eight questions (below), each answered once through explore() as a warm-up. Then, with a CPU-bound \`node -e\` busy loop running beside the bench (${os.cpus().length} logical CPUs): the eight one after another through CodeGraph's own launcher (${path.relative(root, launcher)}, bare: execFile with the quiet environment explore() sets, no 30 s timeout), then all eight at once through the package's explore() (index.js, ${runner.name} runner, its default 30 s timeout).`,
      `RSS: the sum of VmRSS over every descendant process of the bench (the hog excluded; this Node process itself reported apart), sampled every ${SAMPLE_EVERY_MS} ms; one call alone is the median peak over the ${2 * RUNS} alone runs of the first question (explore() and runCommand) and one alone explore() of each question, without the hog.`,
      `One call alone: explore() (index.js) and the addon's raw runCommand (binding.js, \`runCommand(exploreCommand(q), cwd, null, null)\`), ${RUNS} pairs (the order alternating), first question, no hog; the target is the median of the pairs' ratios.`,
    ].join(" ");

    const tables = [
      {
        caption: "The questions: answer bytes (warm-up through explore()) and the bare launcher's run under the hog",
        head: ["question", "request", "answer bytes", "real answer", "launcher ms (hog)", "launcher outcome"],
        rows: QUESTIONS.map((question, i) => [
          question.name,
          question.q,
          Buffer.byteLength(warm[i].text),
          answered[i] ? "yes" : `**no** (wants ${question.file} and ${question.symbol})`,
          ms(bare[i].ms),
          bare[i].err ? (bare[i].err.killed ? `killed (${bare[i].err.signal})` : String(bare[i].err.code)) : "ok",
        ]),
      },
      {
        caption: `Eight explore() at once under the CPU hog (parallel limit: ${limitText})`,
        head: ["question", "outcome", "settled ms", "answer bytes", "queueMs", "lockWaitMs", "runMs", "durationMs"],
        rows: results.map((x, i) => {
          const d = x.ok ? x.r.details : x.err?.details;
          return [
            QUESTIONS[i].name,
            x.ok ? (parallelAnswered[i] ? "ok" : "answered, not real") : String(x.err?.code ?? x.err),
            ms(x.settledMs),
            x.ok ? Buffer.byteLength(x.r.text) : "—",
            field(d, "queueMs"),
            field(d, "lockWaitMs"),
            field(d, "runMs"),
            field(d, "durationMs"),
          ];
        }),
      },
      {
        caption: "Summary",
        head: ["measure", "value", "vs baseline"],
        rows: [
          ["8 one after another, CodeGraph's launcher (hog): total ms", ms(seqMs), "1.000×"],
          ["8 at once, explore() (hog): all settled ms", ms(parMs), ratio(parMs, seqMs)],
          ["8 at once: timeouts / other errors", `${timeouts.length} / ${failures.length - timeouts.length}`, ""],
          [
            `one call alone (explore()): peak RSS of the tree, median of ${alonePeaks.length} runs (max)`,
            `${mib(onePeak)} (${mib(Math.max(...alonePeaks))})`,
            "1.000×",
          ],
          ["8 at once: peak RSS of the tree", mib(parRss.peak), ratio(parRss.peak, onePeak)],
          ["8 at once: this Node process's own peak RSS", mib(parRss.selfPeak), ""],
          ["parallel limit in force", limitText, ""],
          ["one call alone: raw runCommand, median ms", ms(rMed), "1.000×"],
          ["one call alone: explore(), median ms", ms(eMed), ratio(eMed, rMed)],
          ["one call alone: explore() / raw runCommand, median of the pairs' ratios", "", `${pairRatio.toFixed(3)}×`],
          [
            "one call alone: the CLI's run as the addon timed it (details.runMs, else durationMs), explore() / raw runCommand, median ms",
            `${ms(median(alone.exploreCli))} / ${ms(median(alone.rawCli))}`,
            ratio(median(alone.exploreCli), median(alone.rawCli)),
          ],
          [
            "one call alone: wall outside the CLI's run, explore() / raw runCommand, median ms",
            `${ms(outsideE)} / ${ms(outsideR)}`,
            `${signedPercent(outsideShare)} of a call`,
          ],
          [
            "one call alone: explore() / raw runCommand, p90 ms",
            `${ms(percentile(alone.explore, 90))} / ${ms(percentile(alone.raw, 90))}`,
            "",
          ],
        ],
      },
    ];

    const notes = [
      `Load average (1, 5, 15 min) before the hog started: ${loadBefore}; after the batch: ${loadAfter}. Other work on the machine slows the one-after-another runs more than the batch: eight CLIs together get a larger share of contended CPUs than one CLI does.`,
      `Addon files mapped in this process (index.js's explore() and binding.js load the one next to package.json; the bench's own snapshot copy is mapped too): ${mappedAddons().join(", ") || "none"}.`,
    ];
    if (bareFailures.length)
      notes.push(
        `The bare launcher failed ${bareFailures.length} of 8 runs under the hog (${bareFailures.map((b) => b.err.code ?? b.err.signal).join(", ")}).`,
      );
    for (const x of failures) notes.push(`explore() failed: ${String(x.err?.message ?? x.err).split("\n")[0]}`);

    const targets = [
      {
        what: `parallel (Django ${DJANGO}): every question gets a real answer`,
        target: "8 of 8",
        measured: `${answered.filter(Boolean).length} of 8`,
        met: answered.every(Boolean),
        correctness: true,
        why: "each answer must name the Django file and symbol the question is about.",
      },
      {
        what: `parallel (Django ${DJANGO}): 8 explore() at once under a CPU hog, timeouts and errors`,
        target: "0",
        measured: `${timeouts.length} timeouts, ${failures.length - timeouts.length} other errors`,
        met: failures.length === 0,
        correctness: true,
        why: "calls that all start their CLI at once share the CPUs, and each one's own 30 s timeout runs while it waits for them.",
      },
      {
        what: `parallel (Django ${DJANGO}): 8 explore() at once / the 8 one after another via CodeGraph's launcher, wall (CPU hog)`,
        target: "≤ 1.10×",
        measured: ratio(parMs, seqMs),
        met: parMs / seqMs <= 1.1,
        why: `on ${os.cpus().length} CPUs, one of them taken by the hog, CLIs started together contend for the same CPU and memory bandwidth; the batch cannot finish before the CPU time the eight need.`,
      },
      {
        what: `parallel (Django ${DJANGO}): peak RSS of the process tree, 8 at once / one call alone`,
        target: "≤ the parallel limit",
        measured: `${ratio(parRss.peak, onePeak)} (limit: ${limitText})`,
        met: limit !== null && rssRatio <= limit,
        why:
          limit === null
            ? "no admission limit is in force: every call starts its CLI at once, so the peak grows with the number of calls."
            : `at most ${limit} CLIs should run at once, each about ${mib(onePeak)}.`,
      },
      {
        what: `parallel (Django ${DJANGO}): one call alone, explore() / raw runCommand, median of paired wall ratios`,
        target: "≤ 1.02×",
        measured: `${pairRatio.toFixed(3)}× (medians: ${ratio(eMed, rMed)})`,
        met: pairRatio <= 1.02,
        why: `the glue (argument copy, answer finishing${limit !== null ? ", admission" : ""}) around the same addon call: here ${ms(eMed - rMed)} ms of a ${ms(rMed)} ms run, and the pairs' ratios spread from ${percentile(pairRatios, 25).toFixed(3)}× to ${percentile(pairRatios, 75).toFixed(3)}× (p25–p75): the CLI's own run varies by a few per cent between runs on this shared 2-core machine (the time outside the CLI's run, the next target, separates what the glue adds).`,
      },
      {
        what: `parallel (Django ${DJANGO}): one call alone, explore() − raw runCommand, wall outside the CLI's run, share of a call`,
        target: "≤ 2%",
        measured: `${ms(outsideE - outsideR)} ms (${signedPercent(outsideShare)})`,
        met: outsideShare <= 0.02,
        why: `what the glue${limit !== null ? " and admission" : ""} add outside the CLI's run (wall − details.runMs or durationMs, which the addon times from the spawn to the exit), median per call, against a ${ms(rMed)} ms call.`,
      },
    ];

    return {
      title: `Parallel explores on Django ${DJANGO} (CodeGraph ${cgVersion})`,
      about,
      tables,
      notes,
      targets,
    };
  } finally {
    hog?.stop();
    if (fullOutputs.length) pkg.releaseFullOutputs(fullOutputs);
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
