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
