// What the tools and the verbs take from Pi itself, picked from Pi's modules in one place: Pi's
// entry (extensions/index.js) hands over the modules Pi's loader gives it, index.js (the SDK) and
// the tests' Pi host the ones installed beside them.

/**
 * The peers from the four modules' namespaces: TypeBox's `Type`; pi-ai's `StringEnum`; pi-tui's
 * `Text`, `Box` (a report's card) and the parts of Pi's bordered loader (`Container`, `Spacer`, `CancellableLoader`); Pi's
 * `DynamicBorder`, `formatSize`, `getAgentDir` and `keyHint`.
 */
function peersFrom({ typebox, piAi, piTui, piCodingAgent }) {
  const { Type } = typebox;
  const { StringEnum } = piAi;
  const { Box, CancellableLoader, Container, Markdown, Spacer, Text } = piTui;
  const { DynamicBorder, formatSize, getAgentDir, getMarkdownTheme, keyHint } = piCodingAgent;
  return {
    Type,
    Text,
    Box,
    StringEnum,
    CancellableLoader,
    Container,
    DynamicBorder,
    Spacer,
    formatSize,
    getAgentDir,
    getMarkdownTheme,
    keyHint,
    Markdown,
  };
}

/** The peers installed beside this package (the SDK, tests): `import()`, as they are ES modules. */
async function installedPeers() {
  const [typebox, piTui, piAi, piCodingAgent] = await Promise.all([
    import("typebox"),
    import("@earendil-works/pi-tui"),
    import("@earendil-works/pi-ai"),
    import("@earendil-works/pi-coding-agent"),
  ]);
  return peersFrom({ typebox, piAi, piTui, piCodingAgent });
}

module.exports = { peersFrom, installedPeers };
