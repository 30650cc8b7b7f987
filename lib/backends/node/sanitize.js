// Clean text: CLI bytes decoded, terminal escapes removed, secrets masked (src/sanitize.rs).

/** Where ESC leads: CSI, OSC, and the strings (DCS, SOS, PM, APC) that only ST or BEL/CAN/SUB end. */
const AFTER_ESC = { "[": "csi", "]": "osc", P: "string", X: "string", "^": "string", _: "string" };

/**
 * Decodes bytes and drops escape sequences (CSI, OSC, DCS/SOS/PM/APC strings, ESC sequences) as
 * a VT parser would, keeping printable text, newlines and tabs and dropping other control
 * characters (NUL, CR, BEL, C1 …). Invalid UTF-8 becomes U+FFFD; a character cut at the very end
 * is held back, not replaced. Node differs: the addon runs the vte crate on raw bytes, so there a
 * lone C1 byte (0x80-0x9F, invalid UTF-8 on its own) is dropped, and 0x9C ends a DCS string;
 * here that byte decodes to U+FFFD first. CodeGraph prints valid UTF-8, so this never shows.
 */
function cleanText(bytes) {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes, { stream: true });
  let out = "";
  let state = "ground"; // ground, esc, escInter, csi, osc or string
  for (const ch of text) {
    const c = ch.codePointAt(0);
    if (state === "ground") {
      if (c === 0x1b) state = "esc";
      else if (c === 0x0a || c === 0x09 || !(c < 0x20 || (c >= 0x80 && c <= 0x9f))) out += ch;
    } else if (c === 0x18 || c === 0x1a) {
      state = "ground"; // CAN and SUB abort any sequence
    } else if (c === 0x1b) {
      state = "esc"; // ESC starts a new sequence, and ends an OSC or a string (ST is ESC \)
    } else if (state === "osc" || state === "string") {
      if (state === "osc" && c === 0x07) state = "ground"; // BEL ends an OSC; the rest is swallowed
    } else if (c < 0x20) {
      if (c === 0x0a || c === 0x09) out += ch; // inside ESC and CSI sequences, controls still act
    } else if (state === "esc") {
      if (AFTER_ESC[ch]) state = AFTER_ESC[ch];
      else if (c <= 0x2f) state = "escInter";
      else if (c <= 0x7e) state = "ground";
    } else if (c >= (state === "csi" ? 0x40 : 0x30) && c <= 0x7e) {
      state = "ground"; // the final byte of a CSI or ESC-intermediate sequence
    }
  }
  return out;
}

/** Masks `*TOKEN=`, `*SECRET=`, `*PASSWORD=`, `*API_KEY=` values (also with `:`) and Bearer tokens. */
function redact(text) {
  return text
    .replace(
      /([A-Z0-9_.-]*(?:TOKEN|SECRET|PASSWORD|API_KEY)["']?\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;]+)/gi,
      "$1[REDACTED]",
    )
    .replace(/(\bBearer\s+)[A-Za-z0-9._~+/=-]+/gi, "$1[REDACTED]");
}

module.exports = { cleanText, redact };
