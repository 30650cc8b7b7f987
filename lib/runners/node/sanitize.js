// Clean text for the model: CLI bytes decoded, terminal escapes removed. A port of
// crates/core/src/sanitize/clean.rs: the same state machine (a sequence may strip at most itself;
// text is never hidden). Masking secrets is words (lib/words/redact.js), done where text reaches
// a message.

/** Payload bytes (UTF-8) a string sequence (OSC, DCS, SOS, PM, APC) may hide before it is given up on. */
const STRING_PAYLOAD_MAX = 4096;
/** Parameter and intermediate characters a CSI may hold before it is given up on. */
const CSI_PARAMS_MAX = 256;

const ST_GROUND = 0;
const ST_ESC = 1; // after ESC
const ST_ESC_INTER = 2; // after ESC and an intermediate such as `(`: one final byte follows
const ST_CSI = 3; // inside a CSI (count: parameter/intermediate characters so far)
const ST_STR = 4; // inside a string sequence (count: payload bytes so far)
const ST_STR_ESC = 5; // inside a string sequence, after ESC

const ESC_INTERMEDIATES = new Set("()*+-./#% ");
const ESC_TWO_CHAR = new Set("78=>cDEHMNOZ\\");
const ESC_STRINGS = new Set("]PX^_");
const C1_STRINGS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
const isControlPoint = (c) => c < 0x20 || (c >= 0x7f && c <= 0x9f);
const utf8Len = (c) => (c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);
const leadMask = (lead) => (lead <= 0xdf ? 0x1f : lead <= 0xef ? 0x0f : 0x07);

/**
 * Streaming decoder of CLI output into plain text; O(n), constant memory. The same output for
 * any split of the input. The rules (crates/core/src/sanitize/clean.rs has the long version):
 * - UTF-8 decoded; each maximal invalid subsequence becomes one U+FFFD (as TextDecoder does).
 * - Kept: printable characters, `\n`, `\t`. CR becomes LF, CRLF one LF. Other C0 controls, DEL
 *   and C1 controls (U+0080–U+009F) are dropped.
 * - CSI (ESC `[` or U+009B) with at most CSI_PARAMS_MAX parameters and a final byte: dropped;
 *   any other character ends an unfinished CSI and is handled as text.
 * - OSC, DCS, SOS, PM, APC (ESC `]` `P` `X` `^` `_`, or U+009D U+0090 U+0098 U+009E U+009F):
 *   dropped up to BEL, ESC `\`, U+009C, CAN or SUB; a newline or CR ends one too and is kept, as
 *   does the payload reaching STRING_PAYLOAD_MAX bytes (the rest is shown as text).
 * - ESC + an intermediate + one final byte, or ESC + one of `78=>cDEHMNOZ\`: dropped.
 * - ESC + anything else: only the ESC is dropped.
 */
class TextCleaner {
  constructor() {
    Object.assign(this, { state: ST_GROUND, count: 0, afterCr: false });
    Object.assign(this, { lead: 0, code: 0, need: 0, first: false });
  }

  /** The cleaned text of `chunk` (a Buffer or Uint8Array). */
  push(chunk) {
    const out = [];
    const len = chunk.length;
    let i = 0;
    while (i < len) {
      // Fast path: a run of printable ASCII, tabs and newlines in plain text is kept as it is.
      if (this.state === ST_GROUND && this.need === 0 && !this.afterCr) {
        let j = i;
        for (; j < len; j++) {
          const b = chunk[j];
          if (!((b >= 0x20 && b <= 0x7e) || b === 0x0a || b === 0x09)) break;
        }
        if (j > i) {
          out.push(Buffer.from(chunk.buffer, chunk.byteOffset + i, j - i).toString("latin1"));
          i = j;
          continue;
        }
      }
      this.byte(chunk[i], out);
      i += 1;
    }
    return out.join("");
  }

  /** Flushes what is pending: an incomplete UTF-8 sequence becomes U+FFFD; an unfinished escape is dropped. */
  finish() {
    const out = [];
    if (this.need > 0) {
      this.need = 0;
      this.char(0xfffd, out);
    }
    return out.join("");
  }

  byte(b, out) {
    if (this.need > 0) {
      // The first continuation byte has a narrower range after some lead bytes (no overlong
      // forms, no surrogates, nothing above U+10FFFF), as in str::from_utf8.
      let lo = 0x80;
      let hi = 0xbf;
      if (this.first) {
        if (this.lead === 0xe0) lo = 0xa0;
        else if (this.lead === 0xed) hi = 0x9f;
        else if (this.lead === 0xf0) lo = 0x90;
        else if (this.lead === 0xf4) hi = 0x8f;
      }
      if (b >= lo && b <= hi) {
        this.code = (this.code << 6) | (b & 0x3f);
        this.first = false;
        this.need -= 1;
        if (this.need === 0) this.char(this.code, out);
        return;
      }
      // The sequence so far is a maximal invalid subsequence; this byte starts afresh.
      this.need = 0;
      this.char(0xfffd, out);
    }
    if (b < 0x80) this.char(b, out);
    else if (b >= 0xc2 && b <= 0xdf) this.startSequence(b, 1);
    else if (b >= 0xe0 && b <= 0xef) this.startSequence(b, 2);
    else if (b >= 0xf0 && b <= 0xf4) this.startSequence(b, 3);
    else this.char(0xfffd, out);
  }

  startSequence(lead, need) {
    Object.assign(this, { lead, need, code: lead & leadMask(lead), first: true });
  }

  /** One decoded code point. One that ends a sequence without belonging to it is handled again. */
  char(c, out) {
    const afterCr = this.afterCr;
    this.afterCr = false;
    for (;;) {
      let consumed = true;
      switch (this.state) {
        case ST_GROUND:
          this.ground(c, afterCr, out);
          break;
        case ST_ESC: {
          const ch = String.fromCodePoint(c);
          if (ch === "[") [this.state, this.count] = [ST_CSI, 0];
          else if (ESC_STRINGS.has(ch)) [this.state, this.count] = [ST_STR, 0];
          else if (ESC_INTERMEDIATES.has(ch)) this.state = ST_ESC_INTER;
          else if (ESC_TWO_CHAR.has(ch)) this.state = ST_GROUND;
          else [this.state, consumed] = [ST_GROUND, false];
          break;
        }
        case ST_ESC_INTER:
          this.state = ST_GROUND;
          consumed = c >= 0x30 && c <= 0x7e;
          break;
        case ST_CSI:
          if (c >= 0x40 && c <= 0x7e) this.state = ST_GROUND;
          else if (c >= 0x20 && c <= 0x3f && this.count < CSI_PARAMS_MAX) this.count += 1;
          else [this.state, consumed] = [ST_GROUND, false];
          break;
        case ST_STR:
          if (c === 0x07 || c === 0x9c || c === 0x18 || c === 0x1a) this.state = ST_GROUND;
          else if (c === 0x1b) this.state = ST_STR_ESC;
          else if (c === 0x0a || c === 0x0d) [this.state, consumed] = [ST_GROUND, false];
          else if (this.count + utf8Len(c) <= STRING_PAYLOAD_MAX) this.count += utf8Len(c);
          else [this.state, consumed] = [ST_GROUND, false];
          break;
        default: // ST_STR_ESC
          if (c === 0x5c) this.state = ST_GROUND;
          else [this.state, consumed] = [ST_ESC, false];
      }
      if (consumed) return;
    }
  }

  ground(c, afterCr, out) {
    if (c === 0x0a) {
      if (!afterCr) out.push("\n");
    } else if (c === 0x09) out.push("\t");
    else if (c === 0x0d) {
      out.push("\n");
      this.afterCr = true;
    } else if (c === 0x1b) this.state = ST_ESC;
    else if (c === 0x9b) [this.state, this.count] = [ST_CSI, 0];
    else if (C1_STRINGS.has(c)) [this.state, this.count] = [ST_STR, 0];
    else if (!isControlPoint(c)) out.push(String.fromCodePoint(c));
  }
}

/** Decodes CLI output into plain text in one go; the same as a TextCleaner fed any split. */
function cleanText(bytes) {
  const cleaner = new TextCleaner();
  return cleaner.push(bytes) + cleaner.finish();
}

module.exports = { TextCleaner, cleanText };
