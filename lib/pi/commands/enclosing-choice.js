// `/codegraph init` in a directory whose enclosing project has a CodeGraph index: a choice, not a
// consent, so Pi's select asks it (lib/words/verbs.js enclosingChoiceText).

const { enclosingChoiceText } = require("../../words/verbs.js");

/**
 * "enclosing" (use that project's index: added as a project, nothing written), "here" (a new
 * index of `f.cwd`: the choice is the consent), "none" (dismissed), or null where there is
 * nothing to choose (no enclosing index) or no select to ask with (the usual confirm asks then).
 */
async function askEnclosing(ctx, f) {
  if (!f.ancestorIndex || !ctx.hasUI || typeof ctx.ui?.select !== "function") return null;
  const words = enclosingChoiceText(f);
  let picked;
  try {
    picked = await ctx.ui.select(words.title, [words.useEnclosing, words.createHere]);
  } catch {}
  if (picked === words.useEnclosing) return "enclosing";
  return picked === words.createHere ? "here" : "none";
}

module.exports = { askEnclosing };
