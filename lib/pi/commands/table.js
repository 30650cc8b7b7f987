// /codegraph's one table: the first word typed → the module that handles it (loaded when first
// typed, not at Pi's start) and how it completes. Every handler takes the same command context,
// `{ glue, state, peers, refresh, say }`, built once per session (lib/pi/session.js).
//   tools …   /codegraph tools (the focused tools' choice): answers at once, even while a scan runs
//   projects …  /codegraph projects (list, add, remove); `roots`, its old name, still works
//   doctor    the whole readiness report (lib/pi/commands/status.js)
//   help      the verbs, a line each (also --help, -h, ?)
//   <verb> …  status, init, sync, rebuild, uninit, unlock, cancel, changes (lib/pi/commands/verbs.js)
//   (nothing) readiness in at most three lines, with the next step (lib/pi/commands/status.js)

const { HELP_WORDS, helpText } = require("../../words/command.js");

const SUBCOMMANDS = [
  {
    word: "tools",
    waitsForScan: false,
    load: () => require("./tools.js"),
    handle: (m, rest, ctx, context) => m.handleTools(rest, ctx, context),
    complete: (m, prefix) => m.toolsCompletions(prefix),
  },
  {
    word: "projects",
    aliases: ["roots"],
    waitsForScan: true,
    load: () => require("./roots.js"),
    handle: (m, rest, ctx, context) => m.handleRoots(rest, ctx, context),
    complete: (m, prefix, context, cwd) => m.rootsCompletions(prefix, context.state, cwd),
  },
  {
    word: "doctor",
    waitsForScan: true,
    load: () => require("./status.js"),
    handle: (m, _rest, ctx, context) => m.handleReport(ctx, context),
    complete: () => null,
  },
  {
    word: "help",
    waitsForScan: false,
    load: () => null,
    handle: (_m, _rest, ctx, context) => context.show(ctx, "help", helpText(), "info"),
    complete: () => null,
  },
];
/** Any other first word: a verb (its own module tells a known one from a typo). */
const VERBS = {
  word: "",
  waitsForScan: true,
  load: () => require("./verbs.js"),
  handle: (m, args, ctx, context) => m.handleVerb(args, ctx, context),
  complete: (_m, prefix, context, cwd) =>
    require("./verb-completions.js").verbCompletions(
      prefix,
      context.state.diagnosis?.cliVersion,
      context.state.verbRoots(),
      {
        problemCode: context.state.serving?.().problemCode,
        cwd,
      },
    ),
};

/** Nothing typed: the short report, from readiness as it is once a scan still running has settled. */
const REPORT = {
  word: "",
  waitsForScan: true,
  load: () => require("./status.js"),
  handle: (m, _rest, ctx, context) => m.handleBrief(ctx, context),
};

/** `{ entry, rest }` for what was typed after "/codegraph " (`rest`: after the entry's word). */
function entryFor(args) {
  const text = String(args ?? "");
  const typed = text.trim().split(/\s+/)[0].toLowerCase();
  const first = HELP_WORDS.includes(typed) ? "help" : typed;
  const entry = SUBCOMMANDS.find((e) => e.word === first || e.aliases?.includes(first));
  return entry ? { entry, rest: text.trim().slice(typed.length) } : { entry: VERBS, rest: text };
}

/** Runs `/codegraph <args>` with the session's command context. */
async function runSubcommand(args, ctx, context) {
  const { entry, rest } = String(args ?? "").trim() ? entryFor(args) : { entry: REPORT, rest: "" };
  // Every label (a verb's, cancel's, roots remove's) means what it will mean after the scan.
  if (entry.waitsForScan) await context.state.scanSettled(ctx).catch(() => {});
  await entry.handle(entry.load(), rest, ctx, context);
}

/** The completions for `prefix` (a promise while a scan that may add labels still runs). */
function completeSubcommand(prefix, context, ctx) {
  const { entry } = entryFor(/\s/.test(String(prefix ?? "")) ? prefix : "");
  const complete = () => entry.complete(entry.load(), prefix, context, ctx.cwd);
  if (!entry.waitsForScan || !context.state.scanning) return complete();
  return context.state.scanSettled(ctx).then(complete, complete);
}

module.exports = { completeSubcommand, runSubcommand };
