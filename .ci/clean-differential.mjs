// The cleaners' differential check: seeded random byte strings (biased towards ESC, C1, CR/LF,
// string-sequence introducers and invalid UTF-8) through the Rust Cleaner and its JS port, each in
// its own random chunk splits, compared byte for byte. Any difference fails, printing the input
// shrunk to a minimal one as hex.
//
//   node .ci/clean-differential.mjs [--count N] [--seed S] -- <command that runs the Rust side>
//   (.ci/run: -- cargo run -q -p pi-codegraph-core --example clean_hex)
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import readline from "node:readline";
import { seeded } from "../__test__/helpers/corpus.mjs";

const require = createRequire(import.meta.url);
const { TextCleaner } = require("../lib/runners/node/sanitize.js");

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const flag = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 && (dash < 0 || at < dash) ? Number(argv[at + 1]) : fallback;
};
const count = flag("--count", 20000);
const seed = flag("--seed", 20261203);
const command = dash >= 0 ? argv.slice(dash + 1) : [];
if (!command.length) {
  console.error("usage: node .ci/clean-differential.mjs [--count N] [--seed S] -- <rust side command>");
  process.exit(2);
}

const rng = seeded(seed);
const ascii = (s) => [...Buffer.from(s)];
// Weighted pieces an input is built from: what the cleaner's states turn on.
const PIECES = [
  [12, () => [0x1b]],
  [6, () => ascii("[")],
  [4, () => ascii("]")],
  [2, () => ascii(["P", "X", "^", "_", "\\", "(", "#", "%", " ", "7", "c", "M"][rng.below(12)])],
  [6, () => ascii("0123456789;?"[rng.below(12)])],
  [3, () => ascii("mHKJhl@~"[rng.below(8)])],
  [5, () => [[0x0d, 0x0a, 0x07, 0x18, 0x1a, 0x00, 0x09, 0x7f][rng.below(8)]]],
  [4, () => [0x0d]],
  [3, () => [0x0a]],
  [4, () => [0x80 + rng.below(32)]], // a raw C1 byte (invalid UTF-8)
  [4, () => [0xc2, 0x80 + rng.below(32)]], // a C1 control as UTF-8 (U+0080-U+009F)
  [5, () => [[0xff, 0xfe, 0xc0, 0xc1, 0xf5, 0xbf, 0xe2, 0xf0, 0xf4, 0xed, 0xe0][rng.below(11)]]], // invalid or cut
  [3, () => ascii(["é", "€", "😀", "\u2028", "\u{10ffff}"][rng.below(5)])],
  [10, () => ascii("abc xyz,.:"[rng.below(10)])],
  // A run towards the CSI bound (256) and, rarely, past the string payload bound (4096).
  [1, () => Array(rng.below(40) ? 1 + rng.below(300) : 4080 + rng.below(30)).fill(ascii("x1;")[rng.below(3)])],
];
const TOTAL = PIECES.reduce((sum, [w]) => sum + w, 0);

function piece() {
  let pick = rng.below(TOTAL);
  for (const [weight, make] of PIECES) {
    if (pick < weight) return make();
    pick -= weight;
  }
  throw new Error("unreachable");
}

/** One random input of 0-300 bytes (a run may carry it further, towards the 4 KB payload bound). */
function randomInput() {
  const want = rng.below(301);
  const bytes = [];
  while (bytes.length < want) bytes.push(...piece());
  return Buffer.from(bytes);
}

/** Random chunk ends for `n` bytes: none, a few, or byte by byte. */
function randomCuts(n) {
  const pick = rng.below(10);
  if (pick === 0) return [];
  if (pick === 1) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: 1 + rng.below(6) }, () => rng.below(n + 1)).sort((a, b) => a - b);
}

const chunksOf = (input, cuts) => [...cuts, input.length].map((end, i, ends) => input.subarray(ends[i - 1] ?? 0, end));

function cleanJs(input, cuts) {
  const cleaner = new TextCleaner();
  let out = "";
  for (const chunk of chunksOf(input, cuts)) out += cleaner.push(chunk);
  return Buffer.from(out + cleaner.finish()).toString("hex");
}

/** The Rust side as a co-process: `clean(input, cuts)` resolves with its output as hex. */
function rustSide() {
  const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = [];
  let exited = null;
  child.on("exit", (code, signal) => {
    exited = `the Rust side exited (${signal ?? code})`;
    for (const w of waiting.splice(0)) w.reject(new Error(exited));
  });
  child.on("error", (e) => {
    exited = `the Rust side did not start: ${e.message}`;
    for (const w of waiting.splice(0)) w.reject(new Error(exited));
  });
  readline.createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.resolve(line));
  const clean = (input, cuts) =>
    new Promise((resolve, reject) => {
      if (exited) return reject(new Error(exited));
      waiting.push({ resolve, reject });
      child.stdin.write(
        `${chunksOf(input, cuts)
          .map((c) => c.toString("hex"))
          .join(",")}\n`,
      );
    });
  return { clean, close: () => child.stdin.end() };
}

/** The input with every (cleaner, split) pair it is run through: whole and byte by byte, on both sides. */
async function differs(rust, input) {
  const bytes = Array.from({ length: input.length }, (_, i) => i);
  const outs = [cleanJs(input, []), cleanJs(input, bytes), await rust.clean(input, []), await rust.clean(input, bytes)];
  return outs.some((o) => o !== outs[0]);
}

/** The smallest input still differing that removing ranges of bytes finds (delta debugging). */
async function shrink(rust, input) {
  let best = input;
  for (let size = best.length >> 1 || 1; size >= 1; size = size === 1 ? 0 : size >> 1) {
    for (let at = 0; at + size <= best.length; ) {
      const candidate = Buffer.concat([best.subarray(0, at), best.subarray(at + size)]);
      if (await differs(rust, candidate)) best = candidate;
      else at += 1;
    }
  }
  return best;
}

const started = performance.now();
const rust = rustSide();
const cases = Array.from({ length: count }, () => {
  const input = randomInput();
  return { input, jsCuts: randomCuts(input.length), rustCuts: randomCuts(input.length) };
});
const answers = await Promise.all(cases.map((c) => rust.clean(c.input, c.rustCuts)));
const failures = cases.filter((c, i) => cleanJs(c.input, c.jsCuts) !== answers[i]);
let bytes = 0;
for (const c of cases) bytes += c.input.length;
if (failures.length) {
  const first = failures[0];
  const { input } = first;
  console.error(`clean differential: ${failures.length} of ${count} inputs differ (seed ${seed})`);
  console.error(`first input (${input.length} bytes): ${input.toString("hex")}`);
  console.error(`  JS cuts ${JSON.stringify(first.jsCuts)}, Rust cuts ${JSON.stringify(first.rustCuts)}`);
  if (await differs(rust, input)) {
    const minimal = await shrink(rust, input);
    console.error(`minimal input (${minimal.length} bytes): ${minimal.toString("hex")}`);
    console.error(`  JS:   ${cleanJs(minimal, [])}\n  Rust: ${await rust.clean(minimal, [])}`);
  } else {
    console.error("  (it differs only in these splits; no smaller input was sought)");
  }
  rust.close();
  process.exit(1);
}
rust.close();
const ms = Math.round(performance.now() - started);
console.log(`clean differential: ${count} random inputs (${bytes} bytes, seed ${seed}), 0 differences, ${ms} ms`);
