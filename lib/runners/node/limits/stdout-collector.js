// The bounded collector of one run's stdout (crates/core/src/limits/stdout_collector.rs). Memory is
// bounded by construction: it keeps at most the command's byte cap (MAX_OUTPUT_BYTES for what the
// model sees, LARGEST_CAP_BYTES at most, +3 to finish a character) and stops storing at its line cap + 1; everything after is only counted (and
// spilled); the end of the cleaned stream is kept apart (tail()).

const { MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, OUTPUT_TAIL_BYTES } = require("../../../contract/limits.js");
const { countLines, cut, isContinuation } = require("../../../contract/limits.js");
const { TextCleaner, cleanText } = require("../sanitize.js");
const { Spill } = require("../full-output.js");

/**
 * Collects stdout within the caps. Once a cap is passed, the whole stream (from its first byte)
 * also goes to a full-output file, when `spillTarget` ({ workspace it must stay out of, TMPDIR }) is given.
 */
class StdoutCollector {
  constructor(spillTarget, caps = { bytes: MAX_OUTPUT_BYTES, lines: MAX_OUTPUT_LINES }) {
    Object.assign(this, { spillTarget, caps, spill: null, keptNewlines: 0, storing: true });
    // What is kept, as the chunks read (joined when read: a large cap must not copy per chunk).
    Object.assign(this, { keptParts: [], keptLength: 0 });
    // seenBytes: raw bytes read. The totals the model is told are counted on the cleaned text,
    // like the kept counts (a CR is a line end there, an invalid byte a 3-byte U+FFFD).
    Object.assign(this, { seenBytes: 0, counter: new TextCleaner(), cleanBytes: 0, cleanNewlines: 0, cleanLast: "" });
    // The last OUTPUT_TAIL_BYTES (or fewer, from a character boundary) of the cleaned stream.
    this.end = Buffer.alloc(0);
  }

  /** Counts cleaned text towards the totals, and keeps its end. */
  countClean(text) {
    if (!text) return;
    this.cleanBytes += Buffer.byteLength(text);
    this.cleanNewlines += text.split("\n").length - 1;
    this.cleanLast = text.at(-1);
    // A UTF-16 unit is at least one byte: the last OUTPUT_TAIL_BYTES units hold the last bytes
    // (a surrogate half cut off at the front falls off below, as a partial character).
    const end = Buffer.concat([this.end, Buffer.from(text.slice(-OUTPUT_TAIL_BYTES))]);
    let from = Math.max(0, end.length - OUTPUT_TAIL_BYTES);
    while (isContinuation(end[from])) from += 1;
    this.end = end.subarray(from);
  }

  /**
   * The end of everything printed so far, cleaned like the text, whatever the caps kept: at most
   * OUTPUT_TAIL_BYTES, never a cut character; when the output is longer, from its first whole
   * line where one starts within it (unless only blanks follow the first newline: the end is then
   * part of one long line). A character or escape still pending in the cleaner shows once it completes.
   */
  tail() {
    const nl = this.end.indexOf(10);
    const wholeLine = nl !== -1 && /[^\t\n\f\r ]/.test(this.end.subarray(nl + 1).toString("latin1"));
    const cut = this.cleanBytes > this.end.length;
    return this.end.subarray(cut && wholeLine ? nl + 1 : 0).toString();
  }

  /** The bytes kept so far, as one buffer. */
  get kept() {
    if (this.keptParts.length !== 1) this.keptParts = [Buffer.concat(this.keptParts)];
    return this.keptParts[0];
  }

  push(chunk) {
    if (!chunk.length) return;
    this.seenBytes += chunk.length;
    this.countClean(this.counter.push(chunk));
    if (!this.storing) {
      this.spillWrite(chunk);
      return;
    }
    let take = Math.min(chunk.length, Math.max(0, this.caps.bytes + 3 - this.keptLength));
    for (let i = 0; i < take; i++) {
      if (chunk[i] === 10 && ++this.keptNewlines > this.caps.lines) {
        take = i + 1;
        break;
      }
    }
    if (take > 0) this.keptParts.push(chunk.subarray(0, take));
    this.keptLength += take;
    if (take < chunk.length || this.keptLength >= this.caps.bytes + 3 || this.keptNewlines > this.caps.lines) {
      this.storing = false;
      this.startSpill();
      this.spillWrite(chunk.subarray(take));
    }
  }

  /** Opens the spill file and writes everything kept so far into it. */
  startSpill() {
    if (this.spill || this.spillTarget === undefined) return;
    this.spill = Spill.create(this.spillTarget);
    this.spillWrite(this.kept);
  }

  spillWrite(chunk) {
    if (!(this.spill instanceof Spill)) return;
    try {
      this.spill.write(chunk);
    } catch (err) {
      this.spill.discard();
      this.spill = { reason: { is: "write", error: err.code ?? err.message } };
    }
  }

  /** What the model would see so far: `{ text, bytes, lines }` (bytes and lines seen). */
  preview() {
    return {
      text: cut(cleanText(this.kept), this.caps.bytes, this.caps.lines)[0],
      bytes: this.cleanBytes,
      lines: this.cleanNewlines,
    };
  }

  finish(totalsExact) {
    const decoded = cleanText(this.kept);
    this.countClean(this.counter.finish());
    const totalBytes = this.cleanBytes;
    const totalLines = this.cleanNewlines + (this.cleanBytes > 0 && this.cleanLast !== "\n" ? 1 : 0);
    const whole = this.seenBytes === this.kept.length && totalsExact;
    if (whole && Buffer.byteLength(decoded) <= this.caps.bytes && countLines(decoded) <= this.caps.lines) {
      this.discard();
      const keptBytes = Buffer.byteLength(decoded);
      const keptLines = countLines(decoded);
      return { text: decoded, truncated: false, totalBytes, totalLines, keptBytes, keptLines, totalsExact };
    }
    // Every truncated answer names its file, even one that never passed the storing cap.
    this.startSpill();
    const spill = this.spill;
    this.spill = null;
    const fullOutput = spill instanceof Spill ? spill.finish(totalsExact) : (spill ?? undefined);
    // The marker counts against the caps: the glue words it and fits the text to the caps with
    // it (lib/api/answer.js); here the stored text goes out whole, with its own counts.
    return {
      text: decoded,
      truncated: true,
      truncatedBy: "bytes", // provisional: the glue's fit says which cap cut the text it shows
      totalBytes,
      totalLines,
      keptBytes: Buffer.byteLength(decoded),
      keptLines: countLines(decoded),
      totalsExact,
      fullOutput,
      outputTail: this.tail(), // the end the text may not reach (a whole text ends the same way)
    };
  }

  /** A run that failed (or needs none) keeps no full-output file. */
  discard() {
    if (this.spill instanceof Spill) this.spill.discard();
    this.spill = null;
    this.spillTarget = undefined; // and starts none later
  }
}

module.exports = { StdoutCollector };
