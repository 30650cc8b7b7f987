#!/usr/bin/env node
// pi-codegraph for people: `doctor` reports readiness check by check, `explore` runs the same
// native explore() the Pi tool uses, with the same limits. Neither ever initializes or syncs an
// index. Options come before the question or directory; `--` ends them. Exit 0 ok, 1 not ready
// or failed, 2 usage error.

const fs = require("node:fs");
const path = require("node:path");
const pkg = require("../package.json");
const { testedHosts } = require("../lib/contract/hosts.js");
// As under Pi: the CodeGraph CLI installed beside this package runs when none is on PATH.
const { explore, diagnose, run, addonInfo, runnerInfo, limits } = require("../index.js").usePackageCli();
const { verbCommand } = require("../lib/contract/verbs.js");
const { parseIndexStatus } = require("../lib/contract/index-status.js");
const {
  BESIDE_PACKAGE_TEXT,
  belowNodeFloorText,
  doctorRootLines,
  outsideFilesLines,
  pendingStatusText,
  piTestedText,
} = require("../lib/words/doctor.js");
const { changedFileNames } = require("../lib/api/changed-files.js");
const { indexedOutside } = require("../lib/api/outside-files.js");
const { envDroppedLines, indexSizeText, parallelText, runnerLine } = require("../lib/pi/commands/status.js");
const { printable } = require("../lib/contract/text.js");
const { agentDirOf, choiceFor, savedFile } = require("../lib/pi/tools/choice.js");
const { indexedRoots, loadAddedRoots } = require("../lib/pi/roots/roots.js");
const { scanRoots } = require("../lib/pi/roots/scan.js");
const { choiceNotes, toolsOnText } = require("../lib/words/tools.js");

/** printable(), and a newline shown as `\n` too: a value (a directory name) that must stay on its row. */
const printableLine = (text) => printable(text).replace(/\n/g, "\\n");

const PKG_DIR = path.join(__dirname, "..");
const DOCTOR_USAGE = `  pi-codegraph doctor [DIR]
      Report CodeGraph readiness of DIR (default: the current directory), check by check.
      Exit 0 when ready, 1 when not. Read-only.
      -h, --help   show this help
`;
/** The runner's own caps, as the Pi tool has them. */
function capsText() {
  const { MAX_OUTPUT_LINES: lines, MAX_OUTPUT_BYTES: bytes } = limits();
  return lines && bytes ? `${lines} lines\n      or ${Math.round(bytes / 1024)} KB` : "the runner's\n      caps";
}
const EXPLORE_USAGE = `  pi-codegraph explore [--full] [--] <question...>
      Ask CodeGraph about the current directory, as the Pi tool would (same limits: ${capsText()}). Exit 0 with the answer on stdout, 1 with the error on stderr.
      --full       print the complete output of a truncated answer instead of the bounded text
      --           end of options: everything after it is the question, even "--help"
      -h, --help   show this help
`;
const COMMANDS = `${DOCTOR_USAGE}${EXPLORE_USAGE}  pi-codegraph --version | --help\n`;
const USAGE = `pi-codegraph ${pkg.version}\nUsage:\n${COMMANDS}`;

/** Options only before the first other word; `--` ends them. Unknown options are usage errors. */
function parseArgs(args, known) {
  const opts = new Set();
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      i++;
      break;
    }
    if (!a.startsWith("-") || a === "-") break;
    if (!known.includes(a)) return { error: `unknown option ${a}` };
    opts.add(a === "-h" ? "--help" : a);
  }
  return { opts, words: args.slice(i) };
}

/** Greedy word wrap of each line of `text`, so long messages stay readable in a terminal. */
function wrap(text, width = 100) {
  return String(text)
    .split("\n")
    .flatMap((line) => {
      const out = [];
      let cur = "";
      for (const word of line.split(" ")) {
        if (cur && cur.length + 1 + word.length > width) {
          out.push(cur);
          cur = word;
        } else cur = cur ? `${cur} ${word}` : word;
      }
      out.push(cur);
      return out;
    });
}

/** The Pi range and the Node.js floor, from package.json (lib/contract/hosts.js). */
const hosts = testedHosts(pkg);

/** The runtime row: Bun, or Node.js with a note when it is below the supported floor. */
function runtimeRow() {
  const platform = `(${process.platform}-${process.arch})`;
  if (process.versions.bun) return `Bun ${process.versions.bun} ${platform}`;
  return `Node.js ${process.version} ${platform}${belowNodeFloorText(hosts, process.version)}`;
}

function platformTarget() {
  try {
    return require("../lib/runners/native.js").target();
  } catch {
    return `${process.platform}-${process.arch}`;
  }
}

/**
 * "ready, N files changed since the index": CodeGraph's own count (`codegraph status --json`,
 * read-only on a current index, 0.6 s to a minute on a large one, so only here and in
 * `/codegraph status`, never per call).
 */
async function pendingStatus(dir) {
  try {
    const { text } = await run(verbCommand("status"), dir);
    const status = parseIndexStatus(text);
    return pendingStatusText(status, undefined, await changedFileNames(run, dir, status));
  } catch (err) {
    return pendingStatusText(null, `${err.code ?? "error"}`);
  }
}

/**
 * The focused tools on for the project at `dir` in Pi, and where that choice comes from
 * (PI_CODEGRAPH_TOOLS, the file /codegraph tools saved in Pi's agent directory, or the default),
 * with a value that was not used and why. Read only.
 */
function toolsRow(dir) {
  const agentDir = agentDirOf(undefined);
  const choice = choiceFor(dir, { agentDir });
  return [toolsOnText(choice.names, choice, savedFile(agentDir, dir)), ...choiceNotes(choice)];
}

/**
 * The roots the Pi tools would answer from in `dir` (lib/pi/roots/roots.js): the indexes the bounded scan
 * finds below it and the ones added with `/codegraph projects add`, each checked for an index.
 */
async function rootsOf(dir, ownReady) {
  const [scan, added] = [await scanRoots(dir), loadAddedRoots(agentDirOf(undefined), dir)];
  const roots = await indexedRoots(dir, { own: ownReady || scan.own, scanned: scan.roots, added: added.dirs });
  return { roots, scan, savedProblem: added.problem };
}

async function doctor(dir) {
  const d = await diagnose(dir);
  const roots = await rootsOf(dir, d.ready);
  // No index of its own, but the tools answer from the roots below it or added to it.
  const byRoots = !d.ready && d.problemCode === "CODEGRAPH_NO_INDEX" && roots.roots.some((r) => r.indexed);
  const addon = addonInfo();
  const runner = runnerInfo();
  const code = d.problemCode;
  // Only a problem when no runner stands in for the addon (PI_CODEGRAPH_RUNNER=native).
  const addonMissing = code === "CODEGRAPH_ADDON";
  // Why a check did not run at all (its row then says so instead of guessing a result).
  const skipped = addonMissing
    ? "not checked (the native addon did not load)"
    : code === "CODEGRAPH_WORKSPACE"
      ? "not checked (the workspace is not usable)"
      : null;
  const rows = [
    [
      "status",
      d.ready
        ? await pendingStatus(dir)
        : byRoots
          ? "ready through the roots listed below (no index of its own)"
          : `not ready (${code})`,
    ],
    ["workspace", d.cwd ?? dir],
  ];
  if (code && !["CODEGRAPH_NOT_FOUND", "CODEGRAPH_NO_INDEX", "CODEGRAPH_ADDON"].includes(code)) {
    rows.push(["problem", d.problem]);
  }
  rows.push(["extension", `pi-codegraph ${pkg.version} at ${PKG_DIR}`]);
  rows.push([
    "codegraph",
    d.executable
      ? `${d.executable}${d.executableBesidePackage ? BESIDE_PACKAGE_TEXT : ""}`
      : (d.executableProblem ?? (code === "CODEGRAPH_NOT_FOUND" ? d.problem : (skipped ?? "not found"))),
  ]);
  if (d.executable && d.executableInWorkspace) {
    rows.push(["warning", `this codegraph lives inside the workspace; run it only if you trust ${d.executable}`]);
  }
  if (d.launcher) rows.push(["runs", `${d.launcher} (the platform bundle CodeGraph's npm shim would start)`]);
  if (d.executable) {
    const source = d.cliVersionSource ? ` (from ${d.cliVersionSource})` : "";
    rows.push([
      "version",
      d.cliVersion ? `${d.cliVersion}${source}` : "unknown (`codegraph --version` gave no answer)",
    ]);
    // Outside the tested range: one warning, never a refusal (lib/contract/versions.js).
    if (d.versionNotice) rows.push(["compat", d.versionNotice]);
  }
  rows.push([
    "index",
    (d.hasIndex ? d.indexDir : undefined) ??
      d.indexProblem ??
      (code === "CODEGRAPH_NO_INDEX" ? d.problem : (skipped ?? "none usable (no reason reported)")),
  ]);
  if (d.hasIndex && indexSizeText(d)) rows.push(["size", `${indexSizeText(d)} (the index database)`]);
  rows.push(["parallel", parallelText(d.parallel)]);
  rows.push(["tools", toolsRow(d.cwd ?? dir)]);
  rows.push(["projects", doctorRootLines(roots)]);
  const outside = d.ready ? outsideFilesLines(await indexedOutside(d.cwd ?? dir, run)) : null;
  if (outside) rows.push(["outside", outside]);
  if (d.hasIndex && d.indexResolved && d.indexResolved !== d.indexDir) {
    rows.push(["resolved", `${d.indexResolved} (where the index really is, through symlinks)`]);
  }
  if (d.ancestorIndex) {
    rows.push([
      "ancestor",
      `${d.ancestorIndex} has its own index; to use it, add it in Pi (/codegraph projects add ${d.ancestorIndex}) or start Pi there (cd ${d.ancestorIndex})`,
    ]);
  }
  // Through these the workspace could choose the code CodeGraph runs (PATH entries inside it, say).
  for (const line of envDroppedLines(d.envDropped)) rows.push(["dropped", line]);
  rows.push(["runtime", runtimeRow()]);
  rows.push(["pi", piTestedText(hosts)]);
  rows.push(["runner", runnerLine(runner)]);
  rows.push(["addon", addon.path ?? `not loaded: ${addon.error ?? d.problem ?? "unknown reason"}`]);
  if (addonMissing) {
    rows.push([
      "fix",
      [
        `The platform package pi-codegraph-${platformTarget()}, which holds the native addon, is missing.`,
        "From a checkout of pi-codegraph: npm run build",
        "From npm: npm install pi-codegraph (without --omit=optional or --no-optional)",
      ],
    ]);
  } else if (!d.ready && !byRoots) rows.push(["fix", d.remediation]);

  const width = Math.max(...rows.map(([k]) => k.length));
  // Every value is shown through the printable filter, each line on its own row: a directory
  // name with an escape sequence, a bidi control or a newline cannot act on the terminal or add
  // a row. (A value that is a list of lines is ours.)
  const stdout = rows
    .map(([k, v]) =>
      wrap([v ?? ""].flat().map(printableLine).join("\n"))
        .map((line, i) => `${(i === 0 ? k : "").padEnd(width)}  ${line}`.trimEnd())
        .join("\n"),
    )
    .join("\n");
  return { code: d.ready || byRoots ? 0 : 1, stdout: `${stdout}\n` };
}

/** The answer without its final model-worded `[Output truncated …]` marker (and its blank line). */
function withoutMarker(text) {
  const lines = text.trimEnd().split("\n");
  if (!lines[lines.length - 1].startsWith("[Output truncated")) return text;
  lines.pop();
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.length ? `${lines.join("\n")}\n` : "";
}

async function runExplore(cwd, words, full) {
  const ac = new AbortController();
  process.once("SIGINT", () => ac.abort());
  let result;
  try {
    result = await explore(words.join(" "), cwd, ac.signal);
  } catch (err) {
    return { code: 1, stderr: `${err.message}\n` };
  }
  const { details } = result;
  let text = result.text;
  let facts = `${details.keptBytes} bytes · ${details.keptLines} lines`;
  let note = "";
  if (details.truncated) {
    // The full-output file is deleted when this process exits: read it now or never.
    let why = "run again with --full to print everything";
    let complete = null;
    if (full) {
      try {
        complete = fs.readFileSync(details.fullOutputPath, "utf8");
      } catch (err) {
        why = `the full output could not be read (${err.code ?? err.message})`;
      }
    }
    if (complete !== null) {
      text = complete;
      facts = `complete output: ${Buffer.byteLength(text)} bytes`;
    } else {
      text = withoutMarker(text);
      const of = details.totalsExact === false ? "at least " : "";
      const shown =
        details.truncatedBy === "bytes"
          ? `${details.keptBytes} of ${of}${details.totalBytes} bytes`
          : `${details.keptLines} of ${of}${details.totalLines} lines`;
      note = `[truncated: showing ${shown}; ${why}]\n`;
    }
  }
  const stdout = text === "" || text.endsWith("\n") ? text : `${text}\n`;
  const footer = `[codegraph ${details.cliVersion ?? "?"} · ${details.durationMs} ms · ${facts}]\n`;
  return { code: 0, stdout, stderr: `${note}${footer}` };
}

function usageError(message, usage) {
  return { code: 2, stderr: `pi-codegraph: ${message}\nUsage:\n${usage}` };
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h") return { code: 0, stdout: USAGE };
  if (command === "--version" || command === "-v") return { code: 0, stdout: `${pkg.version}\n` };
  const cwd = path.resolve(process.cwd());
  if (command === "doctor") {
    const { opts, words, error } = parseArgs(rest, ["-h", "--help"]);
    if (error) return usageError(error, DOCTOR_USAGE);
    if (opts.has("--help")) return { code: 0, stdout: `Usage:\n${DOCTOR_USAGE}` };
    if (words.length > 1) return usageError(`doctor takes at most one DIR, got ${words.length}`, DOCTOR_USAGE);
    return doctor(path.resolve(cwd, words[0] ?? "."));
  }
  if (command === "explore") {
    const { opts, words, error } = parseArgs(rest, ["-h", "--help", "--full"]);
    if (error) return usageError(error, EXPLORE_USAGE);
    if (opts.has("--help")) return { code: 0, stdout: `Usage:\n${EXPLORE_USAGE}` };
    if (words.length === 0) return usageError("explore needs a question", EXPLORE_USAGE);
    return runExplore(cwd, words, opts.has("--full"));
  }
  return usageError(`unknown command ${command}`, COMMANDS);
}

// A reader that went away (`pi-codegraph doctor | head -1`) is not an error: stop quietly with
// the exit code already decided. Output that cannot be written at all (a full disk, a device
// error: `doctor > /dev/full`) ends with one line on stderr and exit code 74 (EX_IOERR), never a
// stack trace.
const EXIT_IO_ERROR = 74;
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err.code === "EPIPE") process.exit();
    if (stream === process.stdout) {
      try {
        process.stderr.write(`pi-codegraph: the output could not be written (${err.code ?? err.message})\n`);
      } catch {}
    }
    process.exit(EXIT_IO_ERROR);
  });
}

main(process.argv.slice(2))
  .catch((err) => ({ code: 1, stderr: `pi-codegraph: ${err?.message ?? err}\n` }))
  .then(({ code, stdout, stderr }) => {
    process.exitCode = code;
    // Everything printed goes through the printable filter (an argument echoed in a usage error,
    // a path or stderr tail in a message): no escape sequence or bidi control reaches the terminal.
    if (stdout) process.stdout.write(printable(stdout));
    if (stderr) process.stderr.write(printable(stderr));
  });
