// The public types say what they hold: every call (explore, run, node, relations, search) resolves
// with an `Answer` and rejects with a `CodegraphError`, so no answer, option, error or progress
// type is named after one of the commands (the tools' own parameters are:
// `SearchParams`). Nothing is published yet, so no old name stays as an alias.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/index.mjs";

const exportedTypes = (file) => {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const declared = [...text.matchAll(/^export (?:declare )?(?:interface|type|const enum|enum) (\w+)/gm)].map(
    (m) => m[1],
  );
  const reexported = [...text.matchAll(/^export type \{([^}]*)\}/gm)].flatMap((m) =>
    m[1]
      .split(",")
      .map((s) =>
        s
          .trim()
          .split(/\s+as\s+/)
          .pop(),
      )
      .filter(Boolean),
  );
  return [...declared, ...reexported];
};

for (const file of ["index.d.ts", "binding.d.ts"]) {
  test(`${file} names no type after one command`, () => {
    const names = exportedTypes(file);
    assert.ok(names.length > 5, `read ${file}'s exported types: ${names}`);
    assert.deepEqual(
      names.filter((n) => /explore|^(Node|Relations|Search)(Result|Options|Error|Details|Progress)/i.test(n)),
      [],
    );
  });
}

test("index.d.ts exports the call types by their names", () => {
  const names = exportedTypes("index.d.ts");
  for (const name of [
    "Answer",
    "AnswerDetails",
    "CallOptions",
    "CodegraphError",
    "CodegraphErrorCode",
    "ErrorDetails",
    "Progress",
  ]) {
    assert.ok(names.includes(name), `${name} in ${names}`);
  }
});

// One name per thing in the package's own code: what the glue runs on is a runner (never a
// "backend"), and the directory the CLI opens as the index is `indexDir` (never `indexPath`, but
// where CodeGraph's own `status --json` field is read). The Django sources the answers' notes
// describe keep their "backends".
const OWN_CODE = ["index.js", "index.d.ts", "binding.d.ts", "lib", "bin", "extensions", "src", "crates/core/src"];
const SPELLED_ELSEWHERE = [
  { name: /\bbackends?\b|[a-z]Backend\b|\bBackend\b/, one: "runner", unless: /django|authenticat|settings/i },
  { name: /\bindexPath\b|\bindex_path\b/, one: "indexDir", unless: /raw\.indexPath/ },
];

/** Every file under `entries` (relative to the package root). */
function filesUnder(entries) {
  return entries.flatMap((entry) => {
    const full = path.join(root, entry);
    if (!fs.statSync(full).isDirectory()) return [full];
    return fs.readdirSync(full, { recursive: true }).map((f) => path.join(full, f));
  });
}

test("the package's own code spells each thing one way (runner, indexDir)", () => {
  const found = [];
  const files = filesUnder(OWN_CODE).filter((f) => /\.(js|cjs|mjs|ts|rs)$/.test(f));
  assert.ok(files.length > 100, `read the package's files: ${files.length}`);
  for (const file of files) {
    const lines = fs.readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      for (const { name, one, unless } of SPELLED_ELSEWHERE) {
        if (name.test(line) && !unless.test(line)) found.push(`${path.relative(root, file)}:${i + 1} (say ${one})`);
      }
    });
  }
  assert.deepEqual(found, []);
});
