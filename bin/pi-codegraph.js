#!/usr/bin/env node
// pi-codegraph for people: `doctor` reports readiness, `explore` runs the same native explore()
// the Pi tool uses, with the same limits. Neither ever initializes or syncs an index.

const path = require("node:path");
const pkg = require("../package.json");
const { explore, diagnose, addonInfo } = require("../index.js");

const USAGE = `pi-codegraph ${pkg.version}
Usage:
  pi-codegraph doctor                 report CodeGraph readiness for the current directory (exit 0 ready, 1 not)
  pi-codegraph explore "<question>"   ask CodeGraph in the current directory, as the Pi tool would
`;

async function doctor(cwd) {
  const d = await diagnose(cwd);
  const addon = addonInfo();
  const runtime = process.versions.bun ? `Bun ${process.versions.bun}` : `Node.js ${process.version}`;
  const rows = [
    ["status", d.ready ? "ready" : `not ready (${d.problemCode})`],
    ["workspace", cwd],
    ["codegraph", d.executable ?? "not found on PATH"],
    ["version", d.cliVersion ?? "unknown"],
    ["index", d.indexPath ?? "none in this directory"],
    ["runtime", `${runtime} (${process.platform}-${process.arch})`],
    ["addon", addon.path ?? `not loaded: ${addon.error}`],
  ];
  if (!d.ready) rows.push(["fix", d.remediation]);
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
  return d.ready ? 0 : 1;
}

async function runExplore(cwd, words) {
  const request = words.join(" ");
  const ac = new AbortController();
  process.once("SIGINT", () => ac.abort());
  try {
    const { text, details } = await explore(request, cwd, ac.signal);
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    process.stderr.write(
      `[codegraph ${details.cliVersion ?? "?"} · ${details.durationMs} ms · ${details.keptBytes} bytes · ${details.keptLines} lines${details.truncated ? " · truncated" : ""}]\n`,
    );
    return 0;
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
}

async function main(argv) {
  const [command, ...rest] = argv;
  const cwd = path.resolve(process.cwd());
  if (command === "doctor") return doctor(cwd);
  if (command === "explore" && rest.length > 0) return runExplore(cwd, rest);
  if (command === "--version" || command === "-v") {
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  process.stderr.write(USAGE);
  return command === undefined || command === "--help" || command === "-h" ? 0 : 2;
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
