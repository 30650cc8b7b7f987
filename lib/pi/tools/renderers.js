// How Pi draws each of this package's tools' rows, the one place for it: the registered tools take
// their renderers from here (lib/pi/tools/registration.js), and so does the resolver the extension
// registers while Pi loads it (lib/pi/extension.js, `pi.registerToolRenderer`, Pi ≥ 1.0.1). A
// resumed session (`pi -c`, `/resume`) or a reloaded one (`/reload`) is drawn with the renderers
// that exist at that moment, before the session's start has registered the tools: through the
// resolver its rows look as they did. Once the tools are registered, theirs come first.

const { FOCUSED_WORDS, TOOL_NAME } = require("../guidance.js");
const { renderCall, renderFocusedCall, renderResult } = require("../render.js");
const { focusedTool } = require("./focused.js");

/** `{ renderCall, renderResult }` of this package's tool `name` over Pi's `peers`; undefined for another name. */
function toolRenderers(name, peers) {
  if (name === TOOL_NAME)
    return {
      renderCall: (args, theme, context) => renderCall(peers, args, theme, context),
      renderResult: (result, options, theme, context) => renderResult(peers, result, options, theme, context),
    };
  const spec = focusedTool(name);
  if (!spec) return undefined;
  const doing = FOCUSED_WORDS[spec.name].doing ?? `codegraph ${spec.short}`;
  return {
    renderCall: (args, theme, context) => renderFocusedCall(peers, spec, args, theme, context),
    renderResult: (result, options, theme, context) =>
      renderResult(peers, result, options, theme, context, doing, spec),
  };
}

module.exports = { toolRenderers };
