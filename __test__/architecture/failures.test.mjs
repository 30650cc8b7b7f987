// lib/api/failures.js words every failure once, from the facts a runner hands over. A runner of
// the caller's own (index.js forRunner) may hand over what it already worded: that stays as it
// is, and gets what the glue measured. Both are held here at the public seam (run(), diagnose()).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const { forRunner } = require("../../index.js");
const { exhausted, noIndex } = require("../../lib/contract/problems.js");

const ws = "/nonexistent/ws-for-failures";
const runner = (runCommand, diagnose) => ({
  runCommand,
  diagnose,
  releaseFullOutputs: () => 0,
  runnerInfo: () => ({ name: "stub", path: null, note: null, fallback: false }),
});

test("a runner's Problem is worded once: code, headline, remediation, the run's details and the glue's", async () => {
  const problem = Object.assign(noIndex(ws, { is: "missing", path: `${ws}/.codegraph` }), {
    details: { durationMs: 7, indexDir: `${ws}/.codegraph` },
  });
  const pkg = forRunner(
    runner(
      async () => {
        throw problem;
      },
      async () => ({}),
    ),
  );
  const err = await pkg.explore("q", ws).then(assert.fail, (e) => e);
  assert.equal(err.code, "CODEGRAPH_NO_INDEX");
  assert.match(err.message, /^CODEGRAPH_NO_INDEX: .*\nRemediation: Run `\/codegraph init`/);
  assert.equal(err.remediation, err.message.split("\nRemediation: ")[1]);
  assert.equal(err.details.indexDir, `${ws}/.codegraph`);
  assert.equal(typeof err.details.queueMs, "number", "what the glue measured is added");
  assert.equal(err.details.durationMs >= 0, true);
  assert.equal("facts" in err, false, "the public Error carries words and details, not the facts");
});

test("a custom runner's own coded Error keeps its words and gets the glue's details", async () => {
  const own = Object.assign(new Error("CODEGRAPH_SPAWN: my own words.\nRemediation: mine."), {
    code: "CODEGRAPH_SPAWN",
    remediation: "mine.",
    details: { mine: true },
  });
  const pkg = forRunner(
    runner(
      async () => {
        throw own;
      },
      async () => ({}),
    ),
  );
  const err = await pkg.explore("q", ws).then(assert.fail, (e) => e);
  assert.equal(err.message, "CODEGRAPH_SPAWN: my own words.\nRemediation: mine.");
  assert.equal(err.details.mine, true);
  assert.equal(typeof err.details.queueMs, "number");
});

test("a diagnosis with facts is worded; one a custom runner worded itself is kept", async () => {
  const facts = {
    cwd: ws,
    ready: false,
    executableInWorkspace: false,
    envDropped: [],
    problem: { code: noIndex(ws, {}).code, facts: noIndex(ws, { is: "missing", path: ws }).facts },
    indexProblem: { code: "CODEGRAPH_NO_INDEX", facts: noIndex(ws, { is: "missing", path: ws }).facts },
  };
  const worded = await forRunner(
    runner(
      async () => ({}),
      async () => facts,
    ),
  ).diagnose(ws);
  assert.equal(worded.problemCode, "CODEGRAPH_NO_INDEX");
  assert.equal(typeof worded.problem, "string");
  assert.equal(typeof worded.indexProblem, "string");
  assert.match(worded.remediation, /codegraph init/);

  const own = {
    cwd: ws,
    ready: false,
    envDropped: [],
    problemCode: "CODEGRAPH_SPAWN",
    problem: "mine",
    remediation: "r",
  };
  const kept = await forRunner(
    runner(
      async () => ({}),
      async () => own,
    ),
  ).diagnose(ws);
  assert.equal(kept.problem, "mine");
  assert.equal(kept.remediation, "r");
});

test("choosing the runner out of descriptors: limits() and runnerInfo() throw the worded CODEGRAPH_RESOURCES", () => {
  const problem = () => exhausted({ is: "loadAddon" }, Object.assign(new Error("too many"), { code: "EMFILE" }));
  const stub = runner(
    async () => ({}),
    async () => ({}),
  );
  Object.defineProperty(stub, "MAX_OUTPUT_BYTES", {
    enumerable: true,
    get() {
      throw problem();
    },
  });
  stub.runnerInfo = () => {
    throw problem();
  };
  const pkg = forRunner(stub);
  for (const call of [() => pkg.limits(), () => pkg.runnerInfo()]) {
    assert.throws(call, (err) => {
      assert.equal(err.code, "CODEGRAPH_RESOURCES");
      assert.match(err.message, /^CODEGRAPH_RESOURCES: .+\nRemediation: .*\(EMFILE\)/);
      return true;
    });
  }
});
