// A command description as the Node runner reads it (crates/core/src/command.rs and
// src/args/command.rs): read field by field from whatever was passed, each wrong field a coded
// CODEGRAPH_INVALID_OPTIONS (the positional text CODEGRAPH_INVALID_REQUEST), so nothing starts
// for a malformed description; and the argv it builds, always an array with `--` before the text.

const path = require("node:path");
const { invalidOptions, invalidRequest } = require("../../contract/problems.js");
const { isTimeout, MAX_WRITE_TIMEOUT_MS } = require("../../contract/limits.js");
const { LARGEST_CAP_BYTES, LARGEST_CAP_LINES, MIN_CAP_BYTES, MIN_CAP_LINES } = require("../../contract/limits.js");

const MAX_OPTIONS = 32;
const MAX_OPTION_BYTES = 1024;
const MAX_SUBCOMMAND_LENGTH = 32;
const SUBCOMMAND = /^[a-z][a-z-]*$/;
/** `--name` or `--name=value`: a name of lowercase letters, digits and dashes; no NUL or line break. */
const OPTION = /^--[a-z0-9][a-z0-9-]*(=[^\0\n\r]*)?$/;

/** The description object itself. */
function commandObject(command) {
  if (command === null || typeof command !== "object") throw invalidOptions({ is: "notCommand" });
  return command;
}

/** A field, read once (a getter or Proxy trap that throws is the caller's problem, coded). */
function commandField(command, name) {
  try {
    return command[name];
  } catch {
    throw invalidOptions({ is: "commandUnreadable", field: name });
  }
}

/** The user's text: absent without a `positional` key; present, a string (as explore's request). */
function commandPositional(command) {
  let present;
  try {
    present = "positional" in command;
  } catch {
    throw invalidOptions({ is: "commandUnreadable", field: "positional" });
  }
  if (!present) return undefined;
  const text = commandField(command, "positional");
  if (typeof text !== "string") throw invalidRequest({ is: "notString" });
  return text;
}

/** The rest of the description, checked as the core checks it: `{ subcommand, options, positional, caps, ... }`. */
function readCommand(command, positional) {
  const subcommand = commandField(command, "subcommand");
  if (typeof subcommand !== "string") throw expected("subcommand", "string");
  const options = stringList(commandField(command, "options"));
  const whole = (name) => {
    const n = commandField(command, name);
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 2 ** 32 - 1) throw expected(name, "wholeNumber");
    return n;
  };
  const caps = { bytes: whole("maxBytes"), lines: whole("maxLines") };
  const timeoutMs = commandField(command, "timeoutMs");
  if (!isTimeout(timeoutMs)) throw invalidOptions({ is: "timeoutMs", field: "command.timeoutMs" });
  const flag = (name) => {
    const b = commandField(command, name);
    if (typeof b !== "boolean") throw expected(name, "boolean");
    return b;
  };
  const progress = commandField(command, "progress");
  if (progress !== "stdout" && progress !== "none") throw expected("progress", "progress");
  const checked = {
    subcommand,
    options,
    positional,
    caps,
    timeoutMs: Math.trunc(timeoutMs),
    writesIndex: flag("writesIndex"),
    needsIndex: flag("needsIndex"),
    allowInterrupted: optionalFlag(command, "allowInterrupted"),
    progress: progress === "stdout",
    workspace: workspaceField(command),
  };
  checkCommand(checked);
  return checked;
}

/** An optional boolean field: absent, undefined or null is false. */
function optionalFlag(command, name) {
  const b = commandField(command, name);
  if (b === undefined || b === null) return false;
  if (typeof b !== "boolean") throw expected(name, "boolean");
  return b;
}

/**
 * `workspace` (Pi's, when cwd is another root the command runs in on its behalf): absent,
 * undefined or null is none; otherwise an absolute path without NUL.
 */
function workspaceField(command) {
  const value = commandField(command, "workspace");
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.includes("\0") || !path.isAbsolute(value))
    throw expected("workspace", "absolutePath");
  return value;
}

/** An array of strings (the options), copied element by element; a Proxy that throws is coded too. */
function stringList(value) {
  const notAList = () => expected("options", "stringList");
  try {
    // Bounded before reading: the description allows far fewer (checkCommand).
    if (!Array.isArray(value) || value.length > 1024) throw notAList();
    const list = Array.from({ length: value.length }, (_, i) => value[i]);
    if (!list.every((o) => typeof o === "string")) throw notAList();
    return list;
  } catch {
    throw notAList();
  }
}

/** The description's own rules (the positional text is checked by the preflight, as a request). */
function checkCommand({ subcommand, options, caps, timeoutMs, writesIndex }) {
  if (subcommand.length > MAX_SUBCOMMAND_LENGTH || !SUBCOMMAND.test(subcommand))
    throw invalidOptions({ is: "subcommand", maxBytes: MAX_SUBCOMMAND_LENGTH });
  if (options.length > MAX_OPTIONS) throw invalidOptions({ is: "tooManyOptions", max: MAX_OPTIONS });
  const bad = options.find((o) => Buffer.byteLength(o) > MAX_OPTION_BYTES || !OPTION.test(o));
  if (bad !== undefined)
    throw invalidOptions({ is: "badOption", shown: [...bad].slice(0, 40).join(""), maxBytes: MAX_OPTION_BYTES });
  const within = (n, lo, hi) => n >= lo && n <= hi;
  if (!within(caps.bytes, MIN_CAP_BYTES, LARGEST_CAP_BYTES) || !within(caps.lines, MIN_CAP_LINES, LARGEST_CAP_LINES))
    throw invalidOptions({
      is: "caps",
      minBytes: MIN_CAP_BYTES,
      maxBytes: LARGEST_CAP_BYTES,
      minLines: MIN_CAP_LINES,
      maxLines: LARGEST_CAP_LINES,
    });
  if (writesIndex && timeoutMs > MAX_WRITE_TIMEOUT_MS)
    throw invalidOptions({ is: "writeTimeout", field: "command.timeoutMs", maxMs: MAX_WRITE_TIMEOUT_MS });
}

/** `command.<field>` is not what it must be (`expected`: string, wholeNumber, boolean, progress, stringList, absolutePath). */
const expected = (field, what) => invalidOptions({ is: "commandField", field, expected: what });

/** The CLI's arguments: the subcommand, its options, and `--` before the user's text. */
function commandArgv({ subcommand, options, positional }) {
  return positional === undefined ? [subcommand, ...options] : [subcommand, ...options, "--", positional];
}

module.exports = { commandObject, commandPositional, readCommand, commandArgv };
