#!/usr/bin/env node
// Per-file test times: each test file run alone (`node --test --test-reporter=tap <file>`) under
// /usr/bin/time, its wall and CPU (user + system of the whole process tree) and its pass/fail/skip
// counts; one Markdown table, slowest CPU first, and the totals. CPU is the figure to compare on a
// shared machine (wall waits on the other tenants).
//   node bench/test-times.mjs [--json out.json] [files…]   (default: the files `npm test` runs)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { suiteFiles } from "../__test__/helpers/suites.mjs";

const root = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
let jsonOut;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--json") jsonOut = args[++i];
  else files.push(args[i]);
}

const defaultFiles = () => suiteFiles(root);

const timeFile = path.join(os.tmpdir(), `pi-codegraph-test-times-${process.pid}`);
const rows = [];
for (const file of files.length ? files : defaultFiles()) {
  const run = spawnSync(
    "/usr/bin/time",
    ["-f", "%e %U %S", "-o", timeFile, process.execPath, "--test", "--test-reporter=tap", file],
    { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  const [wall, user, sys] = fs.readFileSync(timeFile, "utf8").trim().split("\n").pop().split(" ").map(Number);
  const count = (key) => Number(run.stdout.match(new RegExp(`^# ${key} (\\d+)$`, "m"))?.[1] ?? 0);
  const row = {
    file,
    wall,
    cpu: Math.round((user + sys) * 100) / 100,
    tests: count("tests"),
    pass: count("pass"),
    fail: count("fail"),
    skipped: count("skipped"),
    status: run.status,
  };
  rows.push(row);
  process.stderr.write(`${file}: ${wall}s wall, ${row.cpu}s CPU, ${row.pass}/${row.tests} pass, exit ${run.status}\n`);
}
fs.rmSync(timeFile, { force: true });

const sum = (key) => Math.round(rows.reduce((acc, r) => acc + r[key], 0) * 10) / 10;
const table = [
  "| file | wall s | CPU s | tests | fail | skipped |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...rows
    .slice()
    .sort((a, b) => b.cpu - a.cpu)
    .map((r) => `| ${r.file} | ${r.wall} | ${r.cpu} | ${r.tests} | ${r.fail} | ${r.skipped} |`),
  `| **total** (${rows.length} files, ${process.version}) | ${sum("wall")} | ${sum("cpu")} | ${sum("tests")} | ${sum("fail")} | ${sum("skipped")} |`,
];
console.log(table.join("\n"));
if (jsonOut) fs.writeFileSync(jsonOut, `${JSON.stringify(rows, null, 2)}\n`);
process.exitCode = rows.some((r) => r.status !== 0) ? 1 : 0;
