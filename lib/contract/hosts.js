// The hosts this package is tested in, from its package.json (handed in: lib/ reads nothing
// outside itself): the Pi range (the pinned devDependency, the latest tested, and `pi-lowest`, the
// lowest supported Pi, which CI runs the real-Pi suites on again) and the Node.js floor those Pis
// need (`engines.node`, ">=x.y.z").

const { compareParts, versionParts } = require("./versions.js");

/** "1.0.3" from "npm:@earendil-works/pi-coding-agent@1.0.3"; null when not a pinned alias. */
const aliasVersion = (spec) => /@(\d+\.\d+\.\d+)$/.exec(spec ?? "")?.[1] ?? null;

/**
 * `{ piTested: { lowest, latest }, nodeFloor: { range, version }, belowNodeFloor(version) }` from
 * the package.json object `pkg`; versions are read and compared as lib/contract/versions.js does.
 */
function testedHosts(pkg) {
  const range = pkg.engines?.node ?? ">=22.19.0";
  const [major, minor = "0", patch = "0"] = (/\d+(?:\.\d+){0,2}/.exec(range)?.[0] ?? "22.19.0").split(".");
  const floor = versionParts(`${major}.${minor}.${patch}`);
  /** Whether Node.js `version` ("v22.12.0" or "22.12.0") is below the floor. */
  const belowNodeFloor = (version) => {
    const parts = versionParts(version);
    return parts !== null && compareParts(parts, floor) < 0;
  };
  return {
    piTested: {
      lowest: aliasVersion(pkg.devDependencies?.["pi-lowest"]),
      latest: pkg.devDependencies?.["@earendil-works/pi-coding-agent"] ?? null,
    },
    nodeFloor: { range, version: [floor.major, floor.minor, floor.patch] },
    belowNodeFloor,
  };
}

module.exports = { testedHosts };
