// The core's source results as every runner promises them, whichever build of the core answered
// (the native addon in-process, or the WebAssembly core in the Node runner's worker): napi leaves
// a missing value out where the contract says null, and puts its status where the contract's
// code belongs.

/** An outline with null where the core leaves a value out (a file's language, a definition's parent). */
function outlined(found) {
  for (const file of found?.files ?? []) {
    file.language ??= null;
    for (const d of file.definitions ?? []) d.parent ??= null;
  }
  return found;
}

/** A rejection with the contract's code, which the core's message leads with (`CODEGRAPH_INVALID_REQUEST: …`). */
function coded(err) {
  const code = /^(CODEGRAPH_[A-Z_]+):/.exec(String(err?.message ?? ""))?.[1];
  if (code && err && typeof err === "object") err.code = code;
  return err;
}

module.exports = { coded, outlined };
