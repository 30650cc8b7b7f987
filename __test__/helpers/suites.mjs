// Where the suites are: one folder per seam they test (CONTRIBUTING.md's table of suites), the
// fault catalogue among them. `npm test` (__test__/run.mjs) and bench/test-times.mjs list them here.
import fs from "node:fs";
import path from "node:path";

export const SUITE_DIRS = [
  "__test__/faults",
  "__test__/seam",
  "__test__/contracts",
  "__test__/architecture",
  "__test__/tools",
  "__test__/roots",
  "__test__/verbs",
  "__test__/edit-loop",
  "__test__/answers",
  "__test__/repository-files",
  "__test__/real-cli",
  "__test__/real-pi",
  "__test__/example",
  "__test__/packaging",
  "__test__/smoke",
];

/** Every suite file under `root`, repository-relative with `/`, in the folders' order, each folder's sorted. */
export function suiteFiles(root) {
  return SUITE_DIRS.flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir))
      .filter((name) => name.endsWith(".test.mjs"))
      .sort()
      .map((name) => `${dir}/${name}`),
  );
}
