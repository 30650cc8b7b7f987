// The /codegraph verbs' progress in the terminal UI: Pi's BorderedLoader as Pi builds it (a border,
// a cancellable loader, the cancel key's hint, a border), from the same public parts, because the
// message has to change while CodeGraph runs and BorderedLoader keeps its loader private.

/**
 * `{ component, setMessage(text), dispose() }` for `ui.custom()`: Esc (Pi's cancel key) calls
 * `onAbort`. `peers`: Container, Spacer, Text, CancellableLoader (pi-tui), DynamicBorder, keyHint
 * (pi-coding-agent), as Pi hands them to extensions/index.js.
 */
function progressBox(peers, tui, theme, message, onAbort) {
  const { CancellableLoader, Container, DynamicBorder, Spacer, Text, keyHint } = peers;
  const border = (s) => theme.fg("border", s);
  const loader = new CancellableLoader(
    tui,
    (s) => theme.fg("accent", s),
    (s) => theme.fg("muted", s),
    message,
  );
  loader.onAbort = onAbort;
  const component = new Container();
  component.addChild(new DynamicBorder(border));
  component.addChild(loader);
  component.addChild(new Spacer(1));
  component.addChild(new Text(keyHint("tui.select.cancel", "cancel"), 1, 0));
  component.addChild(new Spacer(1));
  component.addChild(new DynamicBorder(border));
  // Pi gives keys to the custom component; the loader's own handler knows the cancel key.
  component.handleInput = (data) => loader.handleInput(data);
  return {
    component,
    setMessage: (text) => loader.setMessage(text),
    dispose: () => loader.dispose(),
  };
}

/** Whether Pi handed over every part progressBox builds with. */
const canBuildProgressBox = (peers) =>
  ["CancellableLoader", "Container", "DynamicBorder", "Spacer", "Text", "keyHint"].every(
    (name) => typeof peers?.[name] === "function",
  );

module.exports = { progressBox, canBuildProgressBox };
