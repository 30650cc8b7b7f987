// Which CodeGraph CLI versions have which command (a stub: the lead merges the real table over
// it). `supports(cliVersion, feature)` → `{ ok: true }` or `{ ok: false, why }`; features:
// "status --json", "init --yes", "sync", "index", "uninit --force", "unlock". An unknown version
// is supported.

/** Whether the CLI `cliVersion` has `feature`. */
function supports(_cliVersion, _feature) {
  return { ok: true };
}

module.exports = { supports };
