// The notes that lead an answer (lib/api/answer-notes.js) take their room from the caps: an answer
// that fits only without them is cut like one the runner cut, marker included. The fake CLI
// prints the answer; the words themselves are checked on the real CLI (answers-real.test.mjs).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { fakeCli, makeWorkspace, useFakeCli, withEnv } from "../helpers/index.mjs";

const pkg = createRequire(import.meta.url)("../../index.js");
const { FOCUSED_CAPS } = createRequire(import.meta.url)("../../lib/contract/commands.js");
useFakeCli();

test("a node answer at its caps, led by a note: cut to fit the caps with the marker; the note kept", async () => {
  const { maxBytes } = FOCUSED_CAPS.node;
  const head = "**calculateTotal** (function)\n\n**Location:** src/cart.ts:11\n\n";
  const filler = "x".repeat(99);
  let answer = head;
  while (Buffer.byteLength(answer) + 100 <= maxBytes) answer += `${filler}\n`;
  answer += "y".repeat(maxBytes - Buffer.byteLength(answer));
  assert.equal(Buffer.byteLength(answer), maxBytes);
  const cli = fakeCli([["stdout", answer]]);
  const r = await withEnv({ PI_CODEGRAPH_BIN: cli.file }, () => pkg.node({ symbol: "total" }, makeWorkspace()));
  assert.match(r.text, /^Note: CodeGraph's index has no symbol named "total"; this answer is about "calculateTotal"/);
  assert.ok(Buffer.byteLength(r.text) <= maxBytes, `${Buffer.byteLength(r.text)} bytes`);
  assert.match(
    r.text,
    /\[Output truncated by bytes: showing \d+ of \d+ lines \(\d+ of \d+ bytes\)\. More output existed and was omitted; ask a narrower question to see it\]$/,
  );
  assert.equal(r.details.truncated, true);

  // The same answer asked by its own name: no note, nothing cut.
  const same = await withEnv({ PI_CODEGRAPH_BIN: cli.file }, () =>
    pkg.node({ symbol: "calculateTotal" }, makeWorkspace()),
  );
  assert.equal(same.text, answer);
  assert.equal(same.details.truncated, false);
});
