// Parity: the two runners keep the same promises in the same words. For each case both give the
// same code, message, remediation and details fields (durations, file names and the racy
// version fields normalised), so an edit to one that the other lacks shows here.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, test } from "node:test";
import { fakeCli, makeWorkspace, withEnv } from "../helpers/index.mjs";
import { cleanup } from "../helpers/processes.mjs";
import { onQuietMachine, runners, saved, toolCall, useFaultsSuite } from "./suite.mjs";

const require = createRequire(import.meta.url);
const { versionNotice } = require("../../lib/words/versions.js");

/** A workspace whose index a live process (standing in for CodeGraph) is writing. */
let busy;
let writer;
after(() => cleanup(writer?.pid));
// Registered before the suite's hooks: the stand-in starts before the suite's process mark and
// is stopped before its final check of the process table.
before(() => {
  writer = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  busy = makeWorkspace();
  fs.writeFileSync(path.join(busy, ".codegraph", "codegraph.lock"), String(writer.pid));
});
const suite = useFaultsSuite();
const both = runners.length === 2 ? false : "needs both runners (PI_CODEGRAPH_IMPL picks one)";
const normalise = (s) =>
  String(s)
    .replace(/\d+ ms/g, "N ms")
    .replace(/\d+\.\d s of waiting/g, "N s of waiting")
    .replace(/explore-\d+-(?:ns\d+-)?[0-9A-Za-z]+\.txt/g, "FILE")
    .replace(/\(\d+ bytes\)/g, "(N bytes)");
// The version is read beside the run, so an answer may come before it; its notice goes with it.
const RACY = new Set(["cliVersion", "cliVersionSource", "cliVersionNotice", "durationMs"]);

/** A version notice goes with the version it is about, whichever runner read it (lib/contract/versions.js). */
function assertNoticeOf(d, label) {
  const { cliVersion, cliVersionNotice, versionNotice: diagnosed } = d;
  const notice = cliVersionNotice ?? diagnosed;
  assert.equal(notice ?? null, cliVersion === undefined ? null : versionNotice(cliVersion), label);
}

/** What a call gave, in a form both runners must agree on. */
async function outcome(call, bin, args) {
  const shape = (details) =>
    Object.keys(details)
      .filter((k) => !RACY.has(k))
      .sort();
  return withEnv({ PI_CODEGRAPH_BIN: bin }, () =>
    call(...args).then(
      (v) => {
        assertNoticeOf(v.details, `the answer's version notice: ${v.details.cliVersion}`);
        return { text: normalise(v.text).slice(-400), details: shape(v.details), truncated: v.details.truncated };
      },
      (e) => {
        assertNoticeOf(e.details, `the error's version notice: ${e.details.cliVersion}`);
        return {
          code: e.code,
          message: normalise(e.message),
          remediation: normalise(e.remediation),
          details: shape(e.details),
        };
      },
    ),
  );
}

let cases;
before(() => {
  const ws = suite.ws;
  const dbAs = (make) => {
    const dir = makeWorkspace({ index: false });
    fs.mkdirSync(path.join(dir, ".codegraph"));
    make(path.join(dir, ".codegraph", "codegraph.db"));
    return dir;
  };
  const sub = path.join(ws, "packages", "app");
  fs.mkdirSync(sub, { recursive: true });
  const other = makeWorkspace();
  const linked = makeWorkspace({ index: false });
  fs.symlinkSync(path.join(other, ".codegraph"), path.join(linked, ".codegraph"));
  const big = fakeCli([["stdout", "x\n".repeat(3000)]]).file;
  const fine = fakeCli([["stdout", "fine\n"]]).file;
  const failing = fakeCli([
    ["stderr", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 rejected\n"],
    ["exit", 4],
  ]).file;
  const hanging = fakeCli([["stdout", "partial"], ["hang"]]).file;
  cases = {
    "an answer cut by lines": [big, "q", ws],
    "a failed run with a secret on stderr": [failing, "q", ws],
    "a timeout after a partial answer": [hanging, "q", ws, null, { timeoutMs: 500 }],
    "no index": [fine, "q", makeWorkspace({ index: false })],
    "a subdirectory of an indexed project": [fine, "q", sub],
    "codegraph.db is a FIFO": [fine, "q", dbAs((p) => execFileSync("mkfifo", [p], { env: { PATH: saved.PATH } }))],
    "codegraph.db is not SQLite": [fine, "q", dbAs((p) => fs.writeFileSync(p, "hello"))],
    "codegraph.db is empty": [fine, "q", dbAs((p) => fs.writeFileSync(p, ""))],
    ".codegraph linked to another project": [fine, "q", linked],
    "PI_CODEGRAPH_BIN relative": ["codegraph", "q", ws],
    "PI_CODEGRAPH_BIN missing": ["/nonexistent/codegraph", "q", ws],
    "nothing on PATH": [undefined, "q", ws],
    "a bad timeoutMs": [fine, "q", ws, null, { timeoutMs: -1 }],
    "a signal that is a number": [fine, "q", ws, 5],
    "a request that is not a string": [fine, 5, ws],
    "a blank request": [fine, " \n", ws],
    "a relative workspace": [fine, "q", "relative/ws"],
    "a file as the workspace": [fine, "q", path.join(ws, "main.ts")],
    "the index being written": [fine, "q", busy, null, { timeoutMs: 300 }],
  };
});

// Through explore: the runner's outcomes for one description; a focused tool's differ only in
// its description and its argument rules, both before the runner (tools-seam.test.mjs).
{
  const tool = toolCall("explore");
  test(`both runners, ${tool.label}: the same code, message, remediation and details fields, case by case`, {
    skip: both,
  }, async () => {
    const [a, b] = runners;
    for (const [label, [bin, ...args]] of Object.entries(cases)) {
      const left = await onQuietMachine(() => outcome(tool.adapt(a.module), bin, args));
      const right = await onQuietMachine(() => outcome(tool.adapt(b.module), bin, args));
      assert.deepEqual(right, left, `${label}: ${b.id} differs from ${a.id}`);
    }
    for (const { module } of runners) module.releaseFullOutputs();
  });
}

test("both runners: diagnose() reports the same fields", { skip: both }, async () => {
  const fine = fakeCli([["stdout", "fine\n"]]).file;
  const sub = path.join(suite.ws, "packages", "lib");
  fs.mkdirSync(sub, { recursive: true });
  for (const dir of [suite.ws, sub, makeWorkspace({ index: false }), busy, "/nonexistent/ws"]) {
    const [left, right] = await Promise.all(
      runners.map(({ module }) =>
        withEnv({ PI_CODEGRAPH_BIN: fine }, () => module.diagnose(dir)).then((d) => {
          assertNoticeOf(d, `diagnose(${dir}): the version notice`);
          const { cliVersion, cliVersionSource, versionNotice: notice, ...rest } = d;
          return rest;
        }),
      ),
    );
    assert.deepEqual(right, left, `diagnose(${dir})`);
  }
});
