// A project Pi does not trust: the glue a session there gets refuses every call that is not known
// harmless, so a call added to the package later is refused without a change here.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const { untrustedGlue } = require("../../lib/pi/untrusted.js");

test("an untrusted project's glue refuses every call, a new one included, and keeps the harmless ones", async () => {
  let ran = 0;
  const call = async () => {
    ran += 1;
    return "ran";
  };
  const glue = {
    explore: call,
    search: call,
    aCallAddedLater: call,
    runnerInfo: () => ({ name: "node" }),
    releaseFullOutputs: () => 0,
    TOOL_NAME: "codegraph_explore",
  };
  const guarded = untrustedGlue(glue, "/somewhere/untrusted");
  for (const name of ["explore", "search", "aCallAddedLater"]) {
    await assert.rejects(guarded[name]("q", "/somewhere/untrusted"), { code: "CODEGRAPH_UNTRUSTED" }, name);
  }
  assert.equal(ran, 0, "nothing ran");
  assert.deepEqual(guarded.runnerInfo(), { name: "node" });
  assert.equal(guarded.releaseFullOutputs(), 0);
  assert.equal(guarded.TOOL_NAME, "codegraph_explore");
  const d = await guarded.diagnose("/somewhere/untrusted");
  assert.equal(d.ready, false);
  assert.equal(d.problemCode ?? d.code, "CODEGRAPH_UNTRUSTED");
  assert.deepEqual(await guarded.changedSince([{ dir: "/somewhere/untrusted" }]), []);
});
