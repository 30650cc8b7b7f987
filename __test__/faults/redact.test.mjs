// Redaction, from one corpus (__test__/corpora/redact.json: input → what the model may read):
// every case through the public seam on each runner (a CLI that prints the input on stderr and
// fails: the message's stderr section), the corpus as a table against the redactor itself, and
// no rule without a case (a new rule needs its own input here).
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { expectError, fakeCli, root } from "../helpers/index.mjs";
import { eachRunner, useFaultsSuite } from "./suite.mjs";

const require = createRequire(import.meta.url);
const { REDACTION_RULES, redact } = require(path.join(root, "lib", "words", "redact.js"));
const { cases } = JSON.parse(fs.readFileSync(path.join(root, "__test__", "corpora", "redact.json"), "utf8"));
const suite = useFaultsSuite();

test("redaction corpus: each input gives exactly its expected text", () => {
  for (const { name, input, expected } of cases) assert.equal(redact(input), expected, name);
});

test("redaction corpus: every rule is matched by at least one input, and negatives are there", () => {
  for (const [name, pattern, flags] of REDACTION_RULES) {
    const matched = cases.filter(({ input }) => new RegExp(pattern, flags).test(input));
    assert.ok(matched.length > 0, `no corpus input matches the rule ${name}`);
  }
  assert.ok(cases.filter((c) => c.input === c.expected).length >= 5, "negatives that must stay untouched");
});

// One CLI run per corpus case: through explore (the default);
// the focused tools reach the same run() (tools-seam.test.mjs), both runners.
eachRunner(
  "redaction corpus",
  ({ exploreWith }) => {
    test("each input on a failing CLI's stderr reaches the message as its expected text", async () => {
      for (const { name, input, expected } of cases) {
        const fake = fakeCli([
          ["stderrBase64", Buffer.from(input).toString("base64")],
          ["exit", 1],
        ]);
        const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_EXIT");
        const section = err.message.split("\nstderr (last 4 KB):\n")[1];
        assert.equal(section, expected.trimEnd(), name);
        assert.equal(err.details.stderrTail.trimEnd(), expected.trimEnd(), name);
      }
    });
  },
  { tools: ["explore"] },
);

// One CLI run per case: through explore (the default);
// the focused tools reach the same run() (tools-seam.test.mjs), both runners.
eachRunner(
  "redaction keeps the tail's bounds",
  ({ exploreWith }) => {
    test("masks longer than what they hide still leave at most 4 KB, ending with the CLI's last words", async () => {
      // Each `token=a` grows to `token=[REDACTED]`: redacted after the cut, the tail would outgrow 4 KB.
      const stderr = `${"token=a\n".repeat(700)}last words\n`;
      const fake = fakeCli([
        ["stderr", stderr],
        ["exit", 1],
      ]);
      const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_EXIT");
      const tail = err.details.stderrTail;
      assert.ok(Buffer.byteLength(tail) <= 4096, `${Buffer.byteLength(tail)} bytes`);
      assert.match(tail, /token=\[REDACTED\]\nlast words\n?$/);
      assert.ok(!/token=a\b/.test(tail), "an unmasked value");
    });

    test("a one-line tail cut mid-value keeps its [cut] mark and masks what follows", async () => {
      const stderr = `${"x".repeat(6000)} token=one-line-secret-value end`;
      const fake = fakeCli([
        ["stderr", stderr],
        ["exit", 1],
      ]);
      const err = expectError(await exploreWith(fake.file, "q", suite.ws), "CODEGRAPH_EXIT");
      assert.ok(err.details.stderrTail.startsWith("[cut]…"), err.details.stderrTail.slice(0, 40));
      assert.ok(!err.message.includes("one-line-secret-value"));
      assert.match(err.message, /token=\[REDACTED\] end$/);
    });
  },
  { tools: ["explore"] },
);
