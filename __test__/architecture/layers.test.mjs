// The floors of lib/ (docs/architecture.md): every local require goes down, never up or across.
//   contract/  limits, codes, paths, command descriptions, arguments, versions: nothing of ours
//   words/     every sentence a user or the model reads: contract only
//   runners/   select, native (the addon), node (the fallback runner): contract only, no words
//   api/       calls, admission, answer, staleness: runners (through select.js), words, contract
//   pi/        the session, tools/, commands/, roots/: api, words, contract, never a runner
//   glue.js    assembles the package (index.js's one import besides the runner it picks)
//   bin/       `pi-codegraph` (doctor, explore): the package (index.js) and every floor but the
//              runners, whose native.js it asks only for the platform it looks for
// Within a floor a module may import its own floor. A require the rules do not allow fails with
// the file, the line and the arrow.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const LIB = path.join(ROOT, "lib");
const BIN = path.join(ROOT, "bin");

/** floor → the floors it may import (its own always). */
const ALLOWED = {
  contract: [],
  words: ["contract"],
  runners: ["contract"],
  api: ["contract", "words", "runners"],
  pi: ["contract", "words", "api"],
  glue: ["contract", "words", "runners", "api", "pi"],
  bin: ["contract", "words", "runners", "api", "pi"],
};
/** What a floor may import of another floor, when not all of it (by the importing floor, else for any). */
const ENTRIES = { runners: new Set(["lib/runners/select.js"]) };
const BIN_ENTRIES = { runners: new Set(["lib/runners/native.js"]) };
/** Outside lib/ that a floor may require. */
const OUTSIDE = { runners: new Set(["binding.js"]), bin: new Set(["index.js", "package.json"]) };

const floorOf = (rel) => (rel.startsWith("bin/") ? "bin" : rel === "lib/glue.js" ? "glue" : rel.split("/")[1]);

function* jsFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* jsFiles(p);
    else if (entry.name.endsWith(".js")) yield p;
  }
}

/** Every local require of lib/: `{ from, line, to }`, repository-relative with `/`. */
function localRequires() {
  const found = [];
  for (const file of [...jsFiles(LIB), ...jsFiles(BIN)]) {
    const from = path.relative(ROOT, file).split(path.sep).join("/");
    fs.readFileSync(file, "utf8")
      .split("\n")
      .forEach((text, i) => {
        for (const m of text.matchAll(/require\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)) {
          const to = path
            .relative(ROOT, path.resolve(path.dirname(file), m[1]))
            .split(path.sep)
            .join("/");
          found.push({ from, line: i + 1, to });
        }
      });
  }
  return found;
}

function problemOf({ from, to }) {
  const floor = floorOf(from);
  if (!(floor in ALLOWED)) return `${from} is on no floor (lib/<floor>/…)`;
  if (!to.startsWith("lib/")) return OUTSIDE[floor]?.has(to) ? null : `${floor} → ${to} (outside lib/)`;
  const target = floorOf(to);
  if (target === floor) return null;
  if (!ALLOWED[floor].includes(target)) return `${floor} → ${target}`;
  const entries = floor === "bin" ? BIN_ENTRIES[target] : ENTRIES[target];
  if (entries && floor !== "glue" && !entries.has(to))
    return `${floor} → ${to} (only ${[...entries].join(", ")} of ${target}/)`;
  return null;
}

test("every require in lib/ goes down a floor or stays on its own", () => {
  const requires = localRequires();
  assert.ok(requires.length > 100, `read ${requires.length} requires: the scan found lib/`);
  const wrong = requires.flatMap((r) => {
    const problem = problemOf(r);
    return problem ? [`${r.from}:${r.line} ${problem} (${r.to})`] : [];
  });
  assert.deepEqual(wrong, []);
});

test("the rule catches an arrow up, across and past an entry", () => {
  assert.equal(problemOf({ from: "lib/contract/limits.js", to: "lib/words/messages.js" }), "contract → words");
  assert.equal(problemOf({ from: "lib/runners/node/errors.js", to: "lib/words/messages.js" }), "runners → words");
  assert.equal(problemOf({ from: "lib/pi/session.js", to: "lib/runners/select.js" }), "pi → runners");
  assert.match(
    problemOf({ from: "lib/api/calls.js", to: "lib/runners/node/preflight.js" }),
    /only lib\/runners\/select\.js/,
  );
  assert.equal(problemOf({ from: "lib/pi/tools/focused.js", to: "lib/pi/commands/verbs.js" }), null);
  assert.match(problemOf({ from: "bin/pi-codegraph.js", to: "lib/runners/node.js" }), /only lib\/runners\/native\.js/);
  assert.equal(problemOf({ from: "bin/pi-codegraph.js", to: "README.md" }), "bin → README.md (outside lib/)");
});
