// A command description as the Node runner reads it (crates/core/src/command.rs and
// src/args/command.rs): read field by field from whatever was passed, each wrong field a coded
// CODEGRAPH_INVALID_OPTIONS (the positional text CODEGRAPH_INVALID_REQUEST), so nothing starts
// for a malformed description; and the argv it builds, always an array with `--` before the text.

const { invalidOptions, invalidRequest } = require("./errors.js");
const { MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, MAX_WRITE_TIMEOUT_MS } = require("./limits.js");
const { MIN_CAP_BYTES, MIN_CAP_LINES } = require("./limits.js");

const MAX_OPTIONS = 32;
const MAX_OPTION_BYTES = 1024;
const MAX_SUBCOMMAND_LENGTH = 32;
const SUBCOMMAND = /^[a-z][a-z-]*$/;
/** `--name` or `--name=value`: a name of lowercase letters, digits and dashes; no NUL or line break. */
const OPTION = /^--[a-z0-9][a-z0-9-]*(=[^\0\n\r]*)?$/;

/** The description object itself. */
function commandObject(command) {
  if (command === null || typeof command !== "object")
    throw invalidOptions("the command is not a command description object");
  return command;
}

/** A field, read once (a getter or Proxy trap that throws is the caller's problem, coded). */
function commandField(command, name) {
  try {
    return command[name];
  } catch {
    throw invalidOptions(`command.${name} cannot be read`);
  }
}

/** The user's text: absent without a `positional` key; present, a string (as explore's request). */
function commandPositional(command) {
  let present;
  try {
    present = "positional" in command;
  } catch {
    throw invalidOptions("command.positional cannot be read");
  }
  if (!present) return undefined;
  const text = commandField(command, "positional");
  if (typeof text !== "string") throw invalidRequest("it is not a string");
  return text;
}

/** The rest of the description, checked as the core checks it: `{ subcommand, options, positional, caps, ... }`. */
function readCommand(command, positional) {
  const subcommand = commandField(command, "subcommand");
  if (typeof subcommand !== "string") throw invalidOptions("command.subcommand must be a string");
  const options = stringList(commandField(command, "options"));
  const whole = (name) => {
    const n = commandField(command, name);
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 2 ** 32 - 1)
      throw invalidOptions(`command.${name} must be a whole number`);
    return n;
  };
  const caps = { bytes: whole("maxBytes"), lines: whole("maxLines") };
  const timeoutMs = commandField(command, "timeoutMs");
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1)
    throw invalidOptions("command.timeoutMs must be a number of milliseconds from 1 to 2147483647");
  const flag = (name) => {
    const b = commandField(command, name);
    if (typeof b !== "boolean") throw invalidOptions(`command.${name} must be true or false`);
    return b;
  };
  const progress = commandField(command, "progress");
  if (progress !== "stdout" && progress !== "none") throw invalidOptions('command.progress must be "stdout" or "none"');
  const checked = {
    subcommand,
    options,
    positional,
    caps,
    timeoutMs: Math.trunc(timeoutMs),
    writesIndex: flag("writesIndex"),
    needsIndex: flag("needsIndex"),
    progress: progress === "stdout",
  };
  checkCommand(checked);
  return checked;
}

/** An array of strings (the options), copied element by element; a Proxy that throws is coded too. */
function stringList(value) {
  const notAList = () => invalidOptions("command.options must be an array of strings");
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
    throw invalidOptions(
      `the command's subcommand must be 1 to ${MAX_SUBCOMMAND_LENGTH} lowercase letters and dashes, starting with a letter`,
    );
  if (options.length > MAX_OPTIONS) throw invalidOptions(`the command has more than ${MAX_OPTIONS} options`);
  const bad = options.find((o) => Buffer.byteLength(o) > MAX_OPTION_BYTES || !OPTION.test(o));
  if (bad !== undefined)
    throw invalidOptions(
      `the command option ${JSON.stringify([...bad].slice(0, 40).join(""))} is not --name or --name=value (a name of lowercase letters, digits and dashes; a value without NUL or line breaks; at most ${MAX_OPTION_BYTES} bytes)`,
    );
  const within = (n, lo, hi) => n >= lo && n <= hi;
  if (!within(caps.bytes, MIN_CAP_BYTES, MAX_OUTPUT_BYTES) || !within(caps.lines, MIN_CAP_LINES, MAX_OUTPUT_LINES))
    throw invalidOptions(
      `the command's caps must be ${MIN_CAP_BYTES} to ${MAX_OUTPUT_BYTES} bytes and ${MIN_CAP_LINES} to ${MAX_OUTPUT_LINES} lines`,
    );
  if (writesIndex && timeoutMs > MAX_WRITE_TIMEOUT_MS)
    throw invalidOptions(`an index-writing command's timeout is at most ${MAX_WRITE_TIMEOUT_MS} ms`);
}

/** The CLI's arguments: the subcommand, its options, and `--` before the user's text. */
function commandArgv({ subcommand, options, positional }) {
  return positional === undefined ? [subcommand, ...options] : [subcommand, ...options, "--", positional];
}

module.exports = { commandObject, commandPositional, readCommand, commandArgv };
