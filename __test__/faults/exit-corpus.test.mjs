// The exit-classification corpus (__test__/corpora/exit.json, which the core's classifier test
// crates/core/src/command_run/exit_corpus.rs runs too), through explore() of each runner: the fake
// CLI prints the case's bytes, changes the state it names and ends as it says; the result must
// carry the case's code and facts.
import assert from "node:assert/strict";
import os from "node:os";
import { test } from "node:test";
import { bytesOf, readCorpus } from "../helpers/corpus.mjs";
import { expectError, expectResult, fakeCli, makeWorkspace } from "../helpers/index.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const suite = useFaultsSuite();
const { cases } = readCorpus("exit.json");

/** The fake's steps for a case: its output, the state it changes, then how it ends. */
function stepsOf(c) {
  const steps = [];
  if (c.stdout !== undefined) steps.push(["stdoutBase64", bytesOf(c.stdout).toString("base64")]);
  if (c.stderr !== undefined) steps.push(["stderrBase64", bytesOf(c.stderr).toString("base64")]);
  if (c.workspace === "removed") steps.push(["removeCwd"]);
  else assert.equal(c.workspace, undefined, `${c.name}: a workspace state this test knows`);
  steps.push(typeof c.exit === "string" ? ["kill", c.exit] : ["exit", c.exit]);
  return steps;
}

/** The CLI text `expect` says `text` must (keeps) and must not (omits) contain. */
function assertKept(expect, text) {
  if (expect.keeps !== undefined)
    assert.ok(text.includes(expect.keeps), `${JSON.stringify(expect.keeps)} in ${JSON.stringify(text)}`);
  if (expect.omits !== undefined)
    assert.ok(!text.includes(expect.omits), `${JSON.stringify(expect.omits)} not in ${JSON.stringify(text)}`);
}

eachRunner("the exit-classification corpus", ({ exploreWith }) => {
  for (const c of cases) {
    test(c.name, async () => {
      const { expect } = c;
      const ws = c.workspace ? makeWorkspace() : suite.ws;
      const outcome = await exploreWith(fakeCli(stepsOf(c)).file, "q", ws);
      if (expect.code === "success") return assertKept(expect, expectResult(outcome).text);
      const err = expectError(outcome, expect.code);
      if (expect.code !== "CODEGRAPH_EXIT") return;
      assert.equal(err.details.exitCode, expect.exitCode);
      assert.equal(err.details.signal, expect.signal === null ? null : os.constants.signals[expect.signal]);
      assertKept(expect, err.details.stderrTail);
    });
  }
});
