// The hosts this package is tested in, read once from package.json: the Pi range (the pinned
// devDependency, the latest tested, and `pi-lowest`, the lowest supported Pi that CI runs the real-Pi
// suites on again) and the Node.js floor those Pis need (`engines.node`, ">=x.y.z").

const pkg = require("../../package.json");

/** "1.0.3" from "npm:@earendil-works/pi-coding-agent@1.0.3"; null when not a pinned alias. */
const aliasVersion = (spec) => /@(\d+\.\d+\.\d+)$/.exec(spec ?? "")?.[1] ?? null;

/** `{ lowest, latest }`: the Pi versions CI runs the real-Pi suites on. */
const PI_TESTED = {
  lowest: aliasVersion(pkg.devDependencies?.["pi-lowest"]),
  latest: pkg.devDependencies?.["@earendil-works/pi-coding-agent"] ?? null,
};

/** `{ range, version: [major, minor, patch] }`: the Node.js floor from `engines.node`. */
const NODE_FLOOR = (() => {
  const range = pkg.engines?.node ?? ">=22.19.0";
  const [, major, minor = "0", patch = "0"] = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(range) ?? [];
  return { range, version: [major, minor, patch].map(Number) };
})();

/** Whether Node.js `version` ("v22.12.0" or "22.12.0") is below the floor. */
function belowNodeFloor(version) {
  const parts = String(version).replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    if ((parts[i] ?? 0) !== NODE_FLOOR.version[i]) return (parts[i] ?? 0) < NODE_FLOOR.version[i];
  }
  return false;
}

module.exports = { PI_TESTED, NODE_FLOOR, belowNodeFloor };
