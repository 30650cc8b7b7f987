// The JS cleaner (lib/runners/node/sanitize.js) against the shared clean corpus that
// crates/core/tests/clean.rs runs too: every case whole, in every two- and three-chunk split, byte
// by byte and in seeded random splits; push-by-push cases give their text as it comes.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import { bytesOf, readCorpus, seeded, textOf } from "../helpers/corpus.mjs";

const require = createRequire(import.meta.url);
const { TextCleaner, cleanText } = require("../../lib/runners/node/sanitize.js");
const corpus = readCorpus("clean.json");

/** The text of `input` pushed in chunks that end at `cuts` (ascending offsets). */
function run(input, cuts) {
  const cleaner = new TextCleaner();
  let out = "";
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    out += cleaner.push(input.subarray(from, cut));
    from = cut;
  }
  return out + cleaner.finish();
}

/** The first split of `input` that does not clean to `expected`, or null. */
function firstBadSplit(input, expected) {
  const n = input.length;
  for (let i = 0; i <= n; i++) {
    if (run(input, [i]) !== expected) return [i];
    if (n <= 64) for (let j = i; j <= n; j++) if (run(input, [i, j]) !== expected) return [i, j];
  }
  const bytes = Array.from({ length: n }, (_, i) => i);
  if (run(input, bytes) !== expected) return "byte by byte";
  const rng = seeded(n + 1);
  for (let round = 0; round < 50; round++) {
    const cuts = Array.from({ length: rng.below(8) }, () => rng.below(n + 1)).sort((a, b) => a - b);
    if (run(input, cuts) !== expected) return cuts;
  }
  return null;
}

const whole = corpus.cases.filter((c) => !c.pushes);
const pushed = corpus.cases.filter((c) => c.pushes);

describe("the clean corpus, JS cleaner", () => {
  test("the corpus's cases have distinct names", () => {
    const names = corpus.cases.map((c) => c.name);
    assert.deepEqual(
      names.filter((n, i) => names.indexOf(n) !== i),
      [],
    );
    assert.ok(whole.length > 80 && pushed.length > 0, `${whole.length} + ${pushed.length} cases`);
  });

  for (const c of whole) {
    test(`${c.name}: whole and in every split`, () => {
      const input = bytesOf(c.input);
      const expected = textOf(c.expected);
      assert.equal(cleanText(input), expected);
      assert.equal(firstBadSplit(input, expected), null, `input ${input.toString("hex")}`);
    });
  }

  for (const c of pushed) {
    test(`${c.name}: push by push`, () => {
      const cleaner = new TextCleaner();
      c.pushes.forEach(([chunk, out], i) => {
        assert.equal(cleaner.push(bytesOf(chunk)), textOf(out), `push ${i}`);
      });
      assert.equal(cleaner.finish(), textOf(c.finish), "finish");
    });
  }

  test("UTF-8 decoding matches TextDecoder's replacement, as Rust's matches from_utf8_lossy", () => {
    // Bytes that exercise every lead/continuation range; no controls, so nothing is removed.
    const alphabet = [0x61, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc3, 0xdf, 0xe0, 0xe1, 0xed];
    alphabet.push(0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff);
    const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
    const rng = seeded(0x4f6cdd1d);
    for (let round = 0; round < 5000; round++) {
      const input = Buffer.from(Array.from({ length: rng.below(10) }, () => alphabet[rng.below(alphabet.length)]));
      assert.equal(cleanText(input), decoder.decode(input), input.toString("hex"));
    }
  });
});
