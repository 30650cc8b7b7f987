// The hosts this package is tested in, from its package.json (handed in: lib/ reads nothing
// outside itself): the Pi range (the pinned devDependency, the latest tested, and `pi-lowest`, the
// lowest supported Pi, which CI runs the real-Pi suites on again) and the Node.js floor those Pis
// need (`engines.node`, ">=x.y.z").

/** "1.0.3" from "npm:@earendil-works/pi-coding-agent@1.0.3"; null when not a pinned alias. */
const aliasVersion = (spec) => /@(\d+\.\d+\.\d+)$/.exec(spec ?? "")?.[1] ?? null;

/** Node.js `version` ("v22.12.0" or "22.12.0") as [major, minor, patch]. */
const versionParts = (version) =>
  String(version)
    .replace(/^v/, "")
    .split(".")
    .slice(0, 3)
    .map((n) => Number.parseInt(n, 10) || 0);

/**
 * `{ piTested: { lowest, latest }, nodeFloor: { range, version }, belowNodeFloor(version) }` from
 * the package.json object `pkg`.
 */
function testedHosts(pkg) {
  const range = pkg.engines?.node ?? ">=22.19.0";
  const floor = versionParts(/\d+(?:\.\d+){0,2}/.exec(range)?.[0] ?? "22.19.0");
  while (floor.length < 3) floor.push(0);
  const belowNodeFloor = (version) => {
    const parts = versionParts(version);
    for (let i = 0; i < 3; i++) if ((parts[i] ?? 0) !== floor[i]) return (parts[i] ?? 0) < floor[i];
    return false;
  };
  return {
    piTested: {
      lowest: aliasVersion(pkg.devDependencies?.["pi-lowest"]),
      latest: pkg.devDependencies?.["@earendil-works/pi-coding-agent"] ?? null,
    },
    nodeFloor: { range, version: floor },
    belowNodeFloor,
  };
}

module.exports = { testedHosts };
