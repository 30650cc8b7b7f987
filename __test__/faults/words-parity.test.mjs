// One wording for both runners: each runner hands over facts (a failure's code, facts and details;
// a diagnosis's problems as `{ code, facts }`) and lib/api/failures.js words them once. So, at the
// public seam (index.js over the addon, and forRunner over the Node runner), the same failure
// reads the same on both, down to the redacted stderr tail, and a diagnosis's refusals too.
// (parity.test.mjs covers the common cases; these are the ones whose words are built from the
// rawest facts: a stderr tail with a secret, cut to its bound, at a timeout and at an exit.)
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fakeCli, makeWorkspace, withEnv } from "../helpers/index.mjs";
import { onQuietMachine, runners, useFaultsSuite } from "./suite.mjs";

const { exploreCommand } = createRequire(import.meta.url)("../../lib/contract/commands.js");
const suite = useFaultsSuite();
const both = runners.length === 2 ? false : "needs both runners (PI_CODEGRAPH_IMPL picks one)";
const SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
const PASSWORD = "hunter2-very-secret";
const normalise = (s) => String(s).replace(/\d+ ms/g, "N ms");

/**
 * How each runner's explore() failed with `bin`: code, message, remediation, stderrTail, on a
 * machine held quiet (onQuietMachine) so both runners' words come from the same facts.
 */
async function failures(bin, args) {
  const out = [];
  await onQuietMachine(async () => {
    for (const { id, module } of runners) {
      const err = await withEnv({ PI_CODEGRAPH_BIN: bin }, () => module.explore(...args)).then(
        () => assert.fail(`${id}: resolved`),
        (e) => e,
      );
      const { code, message, remediation, details } = err;
      out.push({ code, message: normalise(message), remediation, stderrTail: details.stderrTail });
    }
  });
  return out;
}

test("a timeout whose CLI printed a secret on stderr: the same words from both runners, the secret masked", {
  skip: both,
}, async () => {
  const bin = fakeCli([["stderr", `loading with GITHUB_TOKEN=${SECRET}\npassword ${PASSWORD}\n`], ["hang"]]).file;
  const [addon, node] = await failures(bin, ["q", suite.ws, null, { timeoutMs: 400 }]);
  assert.equal(addon.code, "CODEGRAPH_TIMEOUT");
  assert.deepEqual(node, addon);
  for (const text of [addon.message, addon.stderrTail]) {
    assert.doesNotMatch(text, new RegExp(`${SECRET.slice(4)}|${PASSWORD}`));
    assert.match(text, /GITHUB_TOKEN=\[REDACTED\]/);
  }
});

test("a failed CLI whose one long stderr line is cut to the tail: the same cut and mask from both runners", {
  skip: both,
}, async () => {
  // One line longer than the tail: its start falls off, the secret near its end stays and is masked.
  const line = `${"x".repeat(6000)} api_key=${SECRET} failed`;
  const bin = fakeCli([
    ["stderr", `${line}\n`],
    ["exit", 3],
  ]).file;
  const [addon, node] = await failures(bin, ["q", suite.ws]);
  assert.equal(addon.code, "CODEGRAPH_EXIT");
  assert.deepEqual(node, addon);
  assert.ok(addon.stderrTail.startsWith("[cut]…"), addon.stderrTail.slice(0, 40));
  assert.ok(Buffer.byteLength(addon.stderrTail) <= 4096);
  assert.doesNotMatch(addon.message, new RegExp(SECRET.slice(4)));
  assert.match(addon.message, /api_key=\[REDACTED\] failed/);
});

test("a diagnosis's refusals (a linked index) and its problem: the same words from both runners", {
  skip: both,
}, async () => {
  const other = makeWorkspace();
  const linked = makeWorkspace({ index: false });
  fs.symlinkSync(path.join(other, ".codegraph"), path.join(linked, ".codegraph"));
  const fine = fakeCli([["stdout", "fine\n"]]).file;
  const words = (d) => {
    const { problemCode, problem, remediation, indexProblem, writeProblem, writeRemediation } = d;
    return { problemCode, problem, remediation, indexProblem, writeProblem, writeRemediation };
  };
  const [addon, node] = await Promise.all(
    runners.map(({ module }) => withEnv({ PI_CODEGRAPH_BIN: fine }, () => module.diagnose(linked)).then(words)),
  );
  assert.equal(addon.problemCode, "CODEGRAPH_NO_INDEX");
  assert.equal(typeof addon.writeProblem, "string", "the refusal a write would meet, worded");
  assert.equal(typeof addon.writeRemediation, "string");
  assert.deepEqual(node, addon);
});

test("the runners hand over facts, never words: the Node runner's rejection and diagnosis have the addon's shape", {
  skip: both,
}, async () => {
  const require = createRequire(import.meta.url);
  // The bare runners (the addon's module, lib/runners/node.js): what lib/api/ receives from each.
  const runners = [require("../../binding.js"), require("../../lib/runners/node.js")];
  const fine = fakeCli([["stdout", "fine\n"]]).file;
  const other = makeWorkspace();
  const linked = makeWorkspace({ index: false });
  fs.symlinkSync(path.join(other, ".codegraph"), path.join(linked, ".codegraph"));
  const unindexed = makeWorkspace({ index: false });
  const [addon, node] = await Promise.all(
    runners.map(async (runner) => {
      const { problem, indexProblem, writeProblem } = await withEnv({ PI_CODEGRAPH_BIN: fine }, () =>
        runner.diagnose(linked),
      );
      const err = await withEnv({ PI_CODEGRAPH_BIN: fine }, () =>
        runner.runCommand(exploreCommand("q"), unindexed),
      ).then(
        () => assert.fail("resolved"),
        (e) => e,
      );
      return { problem, indexProblem, writeProblem, rejected: { code: err.code, facts: err.facts } };
    }),
  );
  assert.equal(addon.rejected.code, "CODEGRAPH_NO_INDEX");
  assert.equal(typeof addon.writeProblem?.code, "string", "the addon's diagnosis carries { code, facts }");
  assert.deepEqual(node, addon);
});
