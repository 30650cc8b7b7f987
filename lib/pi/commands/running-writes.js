// The /codegraph writes running now, shared by the verbs (lib/pi/commands/verbs.js) and their
// completion (verb-completions.js).

/** The write running in each workspace (one at a time per workspace, across sessions): cwd → { verb, controller }. */
const runningWrites = new Map();

module.exports = { runningWrites };
