// The words module words every fact the addon's core can hand over: each tag of the Rust enums
// that name a kind of reason (crates/core/src/errors/reasons.rs, errors/facts.rs, full_output.rs, environment/code_paths.rs) has its words in
// lib/words/reasons.js, so a reason added in Rust without words fails here, not in front of a user
// (who would read "(unnamed reason …)").
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/index.mjs";

const require = createRequire(import.meta.url);
const { WORDED_FACTS } = require(path.join(root, "lib", "words", "reasons.js"));
// Every module of the core, wherever an enum lives (errors/facts.rs, full_output.rs, ...).
const coreSrc = path.join(root, "crates", "core", "src");
const sources = fs
  .readdirSync(coreSrc, { recursive: true })
  .filter((f) => f.endsWith(".rs"))
  .map((f) => fs.readFileSync(path.join(coreSrc, f), "utf8"));

/** The serialized tags of `pub enum name`: camelCase variant names, or their `#[serde(rename)]`. */
function rustTags(name) {
  const source = sources.find((s) => s.includes(`pub enum ${name} {`));
  assert.ok(source, `pub enum ${name} not found`);
  const body = source.split(`pub enum ${name} {`)[1].split("\n}")[0];
  const tags = [];
  let renamed = null;
  for (const line of body.split("\n")) {
    const rename = /^ {2}#\[serde\(rename = "([^"]+)"\)\]/.exec(line);
    if (rename) renamed = rename[1];
    const variant = /^ {2}([A-Z]\w*)\b/.exec(line);
    if (variant) {
      tags.push(renamed ?? variant[1][0].toLowerCase() + variant[1].slice(1));
      renamed = null;
    }
  }
  return tags;
}

test("every tag of every Rust fact enum has its words", () => {
  for (const [name, words] of Object.entries(WORDED_FACTS)) {
    const tags = rustTags(name);
    assert.ok(tags.length > 0, `no variants read from ${name}`);
    for (const tag of tags) assert.ok(Object.hasOwn(words, tag), `${name}::${tag} has no words in lib/words`);
  }
});
