// The Node runner's source worker: a worker thread that runs the source scan (source-scan.js),
// the changed-files walk (source-changes.js) and the outline (source-outline.js), so that no read of repository files, no ignore
// pattern and no regular expression over its lines ever runs on the host's thread (Pi's event
// loop). One request at a time, in order; each message `{ id, op, cwd, request, cancel }` is
// answered `{ id, value }` or `{ id, error: { message, code } }`. source-thread.js drives it.

const { parentPort } = require("node:worker_threads");
const { changedSource } = require("./source-changes.js");
const { outlineSource } = require("./source-outline.js");
const { scanSource } = require("./source-scan.js");

const OPERATIONS = { scanSource, changedSource, outlineSource };

parentPort.on("message", ({ id, op, cwd, request, cancel }) => {
  try {
    const value = OPERATIONS[op](cwd, request, cancel ? new Int32Array(cancel) : null);
    parentPort.postMessage({ id, value });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: String(err?.message ?? err), code: err?.code } });
  }
});
