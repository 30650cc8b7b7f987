// The call's snapshot of process.env as the Node runner reads it (crates/core/src/environment.rs
// `EnvSnapshot::get`, `get_set`), taken when the call was made, as the addon takes it.

const { IS_WINDOWS } = require("./limits.js");

/** A value of the snapshot; Windows names are case-insensitive (a copy of process.env is not). */
function envGet(env, key) {
  if (!env) return undefined;
  if (!IS_WINDOWS || key in env) return env[key];
  const found = Object.keys(env).find((k) => k.toUpperCase() === key.toUpperCase());
  return found === undefined ? undefined : env[found];
}

/** A non-empty value of the snapshot, as the user would mean it. */
const envSet = (env, key) => envGet(env, key) || undefined;

module.exports = { envGet, envSet };
