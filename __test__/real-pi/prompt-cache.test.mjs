// The prompt a provider caches stays put (issue 32): in the real Pi, nothing the model does (its
// codegraph calls, its edits with Pi's own tools, the answers) changes the leading system message
// or the tool definitions of later requests; a change follows only from what the user types, and
// for a model that accepts mid-conversation system messages Pi 1.x appends it instead of
// rewriting the head. The figure over a 20-request session: bench/figures/cache.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { piMissing } from "../helpers/pi-harness.mjs";
import { changes, leadingSystem, scriptedSession, toolArray } from "../helpers/scripted-session.mjs";

test("the model's calls and edits leave the system prompt and the tools as they were", {
  skip: piMissing,
  timeout: 120000,
}, async () => {
  const { bodies, exit, stderr } = await scriptedSession({ prompts: 3 });
  assert.equal(exit.code, 0, stderr.slice(-2000));
  assert.equal(bodies.length, 12, "four requests a prompt");
  const written = bodies.at(-1).messages.filter((m) => m.role === "tool").length;
  assert.ok(written >= 3, "the model's calls and writes ran");
  assert.equal(changes(bodies.map(leadingSystem)), 0, "the leading system message never changed");
  assert.equal(changes(bodies.map(toolArray)), 0, "the tool definitions never changed");
  assert.match(leadingSystem(bodies[0]), /codegraph_explore/);
});

test("/codegraph tools all changes the tools once, where the user typed it; the cached head stays", {
  skip: piMissing,
  timeout: 120000,
}, async () => {
  const { bodies, actionsAt, exit, stderr } = await scriptedSession({
    prompts: 2,
    userActions: { 1: "/codegraph tools all" },
    midConversation: true,
  });
  assert.equal(exit.code, 0, stderr.slice(-2000));
  const [at] = actionsAt;
  const tools = bodies.map(toolArray);
  assert.equal(changes(tools.slice(0, at)), 0);
  assert.equal(changes(tools.slice(at)), 0);
  assert.match(JSON.stringify(bodies.at(-1)), /codegraph_relations/, "the focused tools reach the model");
  assert.equal(changes(bodies.map(leadingSystem)), 0, "the leading system message is the one cached");
});
