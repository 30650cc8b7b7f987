// The implementations the contract suites (explore, output, tool) run against: the package
// (index.js over the native addon) and the copyable single-file example. Both must pass every
// test unchanged, so they cannot drift. PI_CODEGRAPH_IMPL=addon|example selects one; default both.
import { createRequire } from "node:module";
import path from "node:path";
import { root } from "./index.mjs";

const require = createRequire(import.meta.url);

const all = [
  { id: "addon", name: "addon", entry: path.join(root, "index.js") },
  { id: "example", name: "single-file example", entry: path.join(root, "example", "codegraph-explore.js") },
];

const wanted = process.env.PI_CODEGRAPH_IMPL;
if (wanted && !all.some((i) => i.id === wanted)) {
  throw new Error(`PI_CODEGRAPH_IMPL=${wanted}: expected one of ${all.map((i) => i.id).join(", ")}`);
}

/** `{ id, name, entry, module }` for each implementation under test. */
export const implementations = all
  .filter((i) => !wanted || i.id === wanted)
  .map((i) => ({ ...i, module: require(i.entry) }));
