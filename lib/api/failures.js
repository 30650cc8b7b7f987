// The one place a failure is worded: a runner's rejection (the addon's, converted by
// lib/runners/native.js, or the Node runner's: both a Problem `{ code, facts, details }` of
// lib/contract/problems.js), the glue's own (arguments, options, the queue) and a diagnosis's
// problems become the public words of lib/words/ here, once, with what the glue observed added
// to the facts first. Both runners go through the same lines, so they say the same thing.

// Loaded with the package, not when first needed: a call that meets an exhausted host (no file
// descriptor left) must still word its failure, and then no module can be read from disk
// (__test__/faults: out of resources). The same holds for answer.js and lib/pi/render.js.
const { argumentError } = require("../contract/arguments.js");
const { headline, problemWords, publicError, remediation } = require("../words/messages.js");
const { refusalFields } = require("../words/not-own.js");
const { withoutUndefined } = require("../contract/text.js");

/**
 * The public Error of a failure `err` (`{ code, facts, details? }`), with `moreFacts` added to its
 * facts and `context` to its details (`context` wins over the runner's details). A coded error
 * that carries no facts (a custom runner's own Error) keeps its words and gets the context in its
 * details; anything else is returned as it is (the caller decides what it means).
 */
function wordedError(err, moreFacts = {}, context = {}) {
  if (err?.facts && typeof err.code === "string")
    return publicError(err.code, { ...err.facts, ...moreFacts }, { ...(err.details ?? {}), ...context });
  if (err && typeof err === "object" && typeof err.code === "string" && err.code.startsWith("CODEGRAPH_"))
    err.details = { ...(err.details ?? {}), ...context };
  return err;
}

/** The public Error for `code` + `facts` (the glue's own failures: options, the queue, a bug). */
const failure = (code, facts, context = {}) => publicError(code, facts, context);

/** A focused tool's bad argument (lib/contract/arguments.js's rule), as the public Error. */
const invalidArgument = (tool, name, rule, more) => wordedError(argumentError(tool, name, rule, more));

/**
 * A runner's diagnosis (the addon's shape: `executableProblem`, `indexProblem`, `writeProblem`,
 * `removeProblem`, `problem`, each `{ code, facts }`) with its problems worded.
 */
function wordedDiagnosis(d) {
  const { executableProblem, indexProblem, problem, writeProblem, removeProblem, ...rest } = d;
  const line = (p) => (p ? headline(p.code, p.facts) : undefined);
  const words = { headline, remediation };
  return withoutUndefined({
    ...rest,
    executableProblem: line(executableProblem),
    indexProblem: line(indexProblem),
    ...(writeProblem ? refusalFields("write", writeProblem.code, writeProblem.facts, words) : {}),
    ...(removeProblem ? refusalFields("remove", removeProblem.code, removeProblem.facts, words) : {}),
    ...(problem ? problemWords(problem.code, problem.facts) : {}),
  });
}

/** Whether a runner's diagnosis carries its problems as facts (`{ code, facts }`), the runners' shape. */
const asFacts = (p) => p === undefined || (p !== null && typeof p === "object" && typeof p.code === "string");
/** A diagnosis worded, unless a custom runner already worded it (its problems are not facts). */
const diagnosisWords = (d) =>
  ["executableProblem", "indexProblem", "problem", "writeProblem", "removeProblem"].every((k) => asFacts(d?.[k]))
    ? wordedDiagnosis(d)
    : d;

/**
 * Which native binary is loaded (lib/runners/native.js addonInfo()), with why none could be
 * worded: the loader's story, or a failure's message (the addon could not even be tried).
 */
function wordedAddonInfo({ path, error, problem }) {
  return { path, error: error ?? (problem ? wordedError(problem).message : null) };
}

module.exports = { diagnosisWords, failure, invalidArgument, wordedAddonInfo, wordedDiagnosis, wordedError };
