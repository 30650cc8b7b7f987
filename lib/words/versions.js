// The words of version diagnostics (lib/contract/versions.js holds the data): why a feature is missing
// from the installed CodeGraph, and the one notice for a version outside the tested range.
// Diagnostics only: nothing here refuses a call.

const { missingSince, versionStanding } = require("../contract/versions.js");

/** "`callers --file`": a feature as the user would type it after `codegraph`. */
const featureShown = (feature) => `\`${feature}\``;

/** Why `feature` is not offered: "CodeGraph 1.6.0 has no `callers --file` (added in 1.6.1); update CodeGraph". */
function featureMissingWords(version, feature, since) {
  return `CodeGraph ${version} has no ${featureShown(feature)} (added in ${since}); update CodeGraph`;
}

/**
 * A version older than the tested range, with the features it lacks (each shown once: a
 * command's options are left out when the command itself is missing).
 */
function olderVersionWords(version, tested, missing) {
  const lacks = missing.length ? ` and has no ${missing.map(featureShown).join(", ")}` : "";
  const fix = missing.length ? "update CodeGraph to use them" : "it is used as it is, untested";
  return `CodeGraph ${version} is older than the tested ${tested}${lacks}; ${fix}.`;
}

/** A version newer than the tested range: used as it is, never refused. */
function newerVersionWords(version, tested) {
  return `CodeGraph ${version}: pi-codegraph is tested with ${tested}; newer versions are used as they are, untested.`;
}

/**
 * Whether the installed CodeGraph (`cliVersion`) has `feature` (a key of CLI_FEATURES): `{ ok: true }`,
 * or `{ ok: false, why }`. A version that cannot be read, or a feature the map does not know, is ok.
 */
function supports(cliVersion, feature) {
  const since = missingSince(cliVersion, feature);
  return since === null
    ? { ok: true }
    : { ok: false, why: featureMissingWords(String(cliVersion).trim(), feature, since) };
}

/**
 * One sentence when `cliVersion` is outside the tested range (older: the features it lacks;
 * newer: used as it is, untested), else null (inside the range, or a version we cannot read).
 */
function versionNotice(cliVersion) {
  const s = versionStanding(cliVersion);
  if (!s) return null;
  return s.newer ? newerVersionWords(s.shown, s.tested) : olderVersionWords(s.shown, s.tested, s.missing);
}

module.exports = { featureMissingWords, olderVersionWords, newerVersionWords, supports, versionNotice };
