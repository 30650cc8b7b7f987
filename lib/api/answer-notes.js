// What a focused call's answer is about, where CodeGraph's own text does not say it: `codegraph
// node` answers with its closest name when it has none by the name asked, and with a definition
// in another file when `--file` matches none; `codegraph callers` lists files that only import the
// symbol among its callers (tagged `[imports]`); and any not-found answer is checked against the
// source (lib/api/blind-spots.js). Read from the command that ran and the text it printed
// (CodeGraph 1.6.1's shapes), worded once (lib/words/), led into the answer by lib/api/answer.js.

const { answerNoteLines } = require("../words/answer-notes.js");
const { blindSpotLines, cutSearchLine } = require("../words/blind-spots.js");
const { callSiteLine } = require("../words/call-sites.js");
const { unindexedDefinitions } = require("./blind-spots.js");
const { unlistedUses } = require("./call-sites.js");

/** node's first line: `**calculateTotal** (function)`. */
const NODE_TITLE = /^\*\*(.+?)\*\* \(([\w ]+)\)$/u;
/** node's location line: `**Location:** src/cart.ts:11`. */
const NODE_LOCATION = /^\*\*Location:\*\* (.+?):(\d+)$/mu;
/** A callers row's kind, name and tag: `file        checkout.ts [imports]`. */
const CALLER_ROW = /^[a-z_]+ {2,}\S.*?(?: \[(\w+)\])?$/u;
/** The callers list's head: `Callers of "charge" (4):`. */
const CALLERS_HEAD = /^Callers of "/mu;

/** `--name=value` of a command description's options, or undefined. */
function optionValue(command, name) {
  const prefix = `--${name}=`;
  const found = (command.options ?? []).find((o) => typeof o === "string" && o.startsWith(prefix));
  return found?.slice(prefix.length);
}

/** The file a location names is the one asked for: the same path, or the asked one a tail of it. */
const sameFile = (at, asked) => at === asked || at.endsWith(`/${asked.replace(/^\.\//, "")}`);

/** `asked` names `got`: the same name, or a qualified name that ends in it (`Inventory.add`, `Inventory::add`). */
const namesIt = (asked, got) => asked === got || [".", "::", "#"].some((sep) => asked.endsWith(`${sep}${got}`));

/** node's answer: another symbol than the one asked, or its definition in another file than `--file`. */
function nodeFacts(command, text) {
  const asked = command.positional;
  if (typeof asked !== "string") return {}; // file mode
  const [first] = text.split("\n", 1);
  const title = NODE_TITLE.exec(first);
  if (!title) return {};
  const where = NODE_LOCATION.exec(text);
  const at = where ? { path: where[1], line: Number(where[2]) } : undefined;
  if (!namesIt(asked, title[1])) return { otherSymbol: { asked, got: title[1], kind: title[2], at } };
  const file = optionValue(command, "file");
  if (file && at && !sameFile(at.path, file)) return { otherFile: { asked, file, at } };
  return {};
}

/** callers' answer: how many of its rows are imports only (`[imports]`), of how many. */
function callersFacts(command, text) {
  if (!CALLERS_HEAD.test(text)) return {};
  let rows = 0;
  let imports = 0;
  for (const line of text.split("\n")) {
    const row = CALLER_ROW.exec(line);
    if (!row) continue;
    rows += 1;
    if (row[1] === "imports") imports += 1;
  }
  return imports > 0 ? { importRows: { symbol: command.positional, imports, rows } } : {};
}

/**
 * The facts of `command`'s answer `text` that CodeGraph's text leaves unsaid:
 * `{ otherSymbol?, otherFile?, importRows? }` (see nodeFacts, callersFacts); `{}` for other commands.
 */
function answerFacts(command, text) {
  try {
    if (typeof text !== "string") return {};
    if (command?.subcommand === "node") return nodeFacts(command, text);
    if (command?.subcommand === "callers") return callersFacts(command, text);
  } catch {} // a description that cannot be read: nothing to add
  return {};
}

/**
 * The note lines that lead `command`'s answer `text` ("" for none): what the answer is about
 * (answerFacts), where the index is blind to a name it lacks (lib/api/blind-spots.js), and the
 * calls, uses or implementations of a callers or impact answer's symbol that the source shows and
 * the answer does not list (lib/api/call-sites.js). `context`: `{ cwd, indexDir, scan, truncated,
 * early }` (`scan`: the runner's `scanSource`, if it has one; `early`: the search begun with the
 * call, lib/api/source-search.js).
 */
async function answerNotes(command, text, context = {}) {
  const facts = answerFacts(command, text);
  const [unindexed, unlisted] = await Promise.all([
    unindexedDefinitions(command, text, context.cwd, { ...context, facts }),
    unlistedUses(command, text, context.cwd, context),
  ]);
  const explore = command?.subcommand === "explore";
  const uses = callSiteLine(unlisted);
  const cut = unindexed.definitions.length === 0 ? cutSearchLine(unindexed.names, unindexed.cut) : "";
  return [
    ...answerNoteLines(facts),
    ...blindSpotLines(unindexed.definitions, { explore }),
    ...(cut ? [cut] : []),
    ...(uses ? [uses] : []),
  ].join("\n");
}

module.exports = { answerFacts, answerNotes };
