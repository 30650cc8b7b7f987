// Which CodeGraph versions have which commands and options: diagnostics, never gating on what we
// cannot read. A feature below its floor is not offered (missingSince()); a version outside the
// tested range gets one notice (versionStanding(); lib/words/versions.js words both) and is otherwise used as it is.
//
// How the floors were established: every version of `@colbymchenry/codegraph` the registry lists
// (0.8.0, 0.9.2, 0.9.5, 0.9.9, 1.1.0, 1.1.6, 1.2.0, 1.3.0, 1.4.1, 1.6.0, 1.6.1) was packed and its
// commander definitions read (`.command(…)` and each `.option(…)` up to the next command). Where
// they live by era: 0.8.0 is a plain package (`dist/bin/codegraph.js`); from 0.9.2 the package is
// an npm shim and the CLI sits in the platform package (`@colbymchenry/codegraph-linux-x64`,
// `lib/dist/bin/codegraph.js`). "0.8.0" below means "in every published version" (0.8.0 is the
// first). The features the pinned 1.6.1 has are checked against its `--help` by
// __test__/contracts/versions.test.mjs, so the map cannot drift from the CLI the package is tested with.

/**
 * The version the package is tested with: the pinned devDependency, the only one the tests run.
 * Others of its minor line (1.6.0 on npm, 1.6.2 outside it) are used as they are and said to be
 * untested; an older one also says what it lacks.
 */
const TESTED_VERSIONS = "1.6.1";

/** A feature, as `codegraph <command> [--option]`, → the first version that has it. */
const CLI_FEATURES = {
  // Present in every published version (0.8.0 on): the index verbs and `query`.
  "status --json": "0.8.0",
  "init --verbose": "0.8.0",
  sync: "0.8.0",
  index: "0.8.0",
  "index --verbose": "0.8.0",
  "uninit --force": "0.8.0",
  unlock: "0.8.0",
  query: "0.8.0",
  "query --kind": "0.8.0",
  "query --limit": "0.8.0",
  // Absent from 0.9.2, defined (with these options) from 0.9.5.
  callers: "0.9.5",
  callees: "0.9.5",
  "callers --limit": "0.9.5",
  "callees --limit": "0.9.5",
  impact: "0.9.5",
  "impact --depth": "0.9.5",
  // Absent from 0.9.9 (the version before), defined from 1.1.0.
  explore: "1.1.0",
  node: "1.1.0",
  "node --offset": "1.1.0",
  "node --limit": "1.1.0",
  "node --symbols-only": "1.1.0",
  // 1.1.0 defines `-f, --file` but as `node <name>`: the name is required, so `node --file <path>`
  // alone is refused ("missing required argument"). 1.1.6 made it `node [name]`.
  "node --file": "1.1.6",
  // `init` had no `-y, --yes` through 1.4.1 ("unknown option '-y'"); defined from 1.6.0.
  "init --yes": "1.6.0",
  // `-f, --file <path>` on callers, callees and impact: absent from 1.6.0, defined in 1.6.1.
  "callers --file": "1.6.1",
  "callees --file": "1.6.1",
  "impact --file": "1.6.1",
};

/** "1.6.1", "v1.6.1", "1.0.0-faults" → { major, minor, patch } (a prerelease counts as its release); else null. */
function versionParts(text) {
  if (typeof text !== "string") return null;
  const m = /^v?(\d{1,9})\.(\d{1,9})\.(\d{1,9})(?:[-+][0-9A-Za-z.+-]*)?$/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : null;
}

/** <0, 0, >0 as `a` is older than, the same as or newer than `b` (parsed versions). */
function compareParts(a, b) {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

const TESTED_PARTS = versionParts(TESTED_VERSIONS);

/**
 * The version that added `feature` (a key of CLI_FEATURES) when the installed CodeGraph
 * (`cliVersion`, as diagnose() or an answer's details report it) is older, else null. A version
 * that cannot be read, or a feature the map does not know, is null: never refuse on what we
 * cannot read.
 */
function missingSince(cliVersion, feature) {
  const version = versionParts(cliVersion);
  const since = Object.hasOwn(CLI_FEATURES, feature) ? CLI_FEATURES[feature] : undefined;
  if (!version || since === undefined || compareParts(version, versionParts(since)) >= 0) return null;
  return since;
}

/**
 * Where `cliVersion` stands against the tested version, as facts: null for it (or a version we
 * cannot read); `{ shown, tested, newer: true }` above it; `{ shown, tested, missing }` below it
 * (each missing feature once: a command's options are left out when the command itself is missing).
 */
function versionStanding(cliVersion) {
  const version = versionParts(cliVersion);
  if (!version) return null;
  const shown = String(cliVersion).trim();
  if (compareParts(version, TESTED_PARTS) === 0) return null;
  if (compareParts(version, TESTED_PARTS) > 0) return { shown, tested: TESTED_VERSIONS, newer: true };
  const missing = Object.keys(CLI_FEATURES).filter((feature) => missingSince(cliVersion, feature) !== null);
  const commandMissing = new Set(missing.filter((feature) => !feature.includes(" ")));
  const shownMissing = missing.filter(
    (feature) => !feature.includes(" ") || !commandMissing.has(feature.split(" ")[0]),
  );
  return { shown, tested: TESTED_VERSIONS, newer: false, missing: shownMissing };
}

module.exports = { CLI_FEATURES, TESTED_VERSIONS, compareParts, missingSince, versionParts, versionStanding };
