// The end of one run's stderr, kept for a failure's diagnosis: clean and bounded (lib/words redacts it)
// (crates/core/src/limits/stderr_tail.rs).

const { CUT_MARK, STDERR_TAIL_BYTES, isContinuation } = require("../../../contract/limits.js");
const { cleanText } = require("../sanitize.js");

/** Keeps the final STDERR_TAIL_BYTES of stderr, as clean text. */
class StderrTail {
  constructor() {
    this.tail = Buffer.alloc(0);
    this.seenBytes = 0;
  }
  push(chunk) {
    this.seenBytes += chunk.length;
    this.tail = Buffer.from(
      Buffer.concat([this.tail, chunk.subarray(-STDERR_TAIL_BYTES)]).subarray(-STDERR_TAIL_BYTES),
    );
  }
  finish() {
    const cut = this.seenBytes > this.tail.length;
    // When older bytes were dropped, the first line is a fragment: a secret's name may have
    // fallen off while its value stayed. Start at the first whole line, unless nothing but blanks
    // follows it: the tail is then one long line, shown cut (stderr_tail.rs).
    const nl = this.tail.indexOf(10);
    const wholeLine = nl !== -1 && /[^\t\n\f\r ]/.test(this.tail.subarray(nl + 1).toString("latin1"));
    let start = 0;
    const fragment = cut && !wholeLine;
    if (cut && wholeLine) start = nl + 1;
    else if (fragment) start = fragmentStart(this.tail);
    const text = Buffer.from(cleanText(this.tail.subarray(start)));
    const room = STDERR_TAIL_BYTES - (fragment ? Buffer.byteLength(CUT_MARK) : 0);
    let from = Math.max(0, text.length - room); // replacement characters can grow it
    while (isContinuation(text[from])) from += 1;
    return (fragment ? CUT_MARK : "") + text.subarray(from).toString();
  }
}

/** A partial first word longer than this is text, not a secret's value, and is kept. */
const MAX_PARTIAL_WORD = 512;

/**
 * Where a fragment of one long line starts: past its partial first word when that is short and
 * more follows (a secret's value whose name was cut off), else on the first character boundary.
 */
function fragmentStart(buf) {
  const ws = buf
    .subarray(0, MAX_PARTIAL_WORD)
    .findIndex((b) => b === 9 || b === 10 || b === 12 || b === 13 || b === 32);
  if (ws !== -1 && /[^\t\n\f\r ]/.test(buf.subarray(ws).toString("latin1"))) return ws + 1;
  let start = 0;
  while (start < 3 && isContinuation(buf[start])) start += 1;
  return start;
}

module.exports = { StderrTail };
