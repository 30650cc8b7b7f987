// The bounded collectors of one run's stdout and stderr.

const { cleanText, redact } = require("./sanitize.js");
const { Spill } = require("./spill.js");
const { MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, STDERR_TAIL_BYTES, MARKER_LINES, countLines } = require("./limits.js");
const { countNewlines, cut, isContinuation, truncationMarker } = require("./limits.js");

/**
 * Keeps at most MAX_OUTPUT_BYTES (+3 to finish a character) and stops storing at line MAX_OUTPUT_LINES + 1;
 * everything after is only counted. Once a cap is passed the whole stream, from its first byte,
 * also goes to a full-output file (when a directory was given).
 */
class StdoutCollector {
  constructor(spillDir) {
    Object.assign(this, { spillDir, spill: null, kept: Buffer.alloc(0), keptNewlines: 0, storing: true });
    Object.assign(this, { seenBytes: 0, seenNewlines: 0, lastByte: undefined });
  }

  push(chunk) {
    if (!chunk.length) return;
    this.seenBytes += chunk.length;
    this.seenNewlines += countNewlines(chunk);
    this.lastByte = chunk[chunk.length - 1];
    if (!this.storing) {
      this.spill = this.spill?.write(chunk) ?? null;
      return;
    }
    let take = Math.min(chunk.length, Math.max(0, MAX_OUTPUT_BYTES + 3 - this.kept.length));
    for (let i = 0; i < take; i++) {
      if (chunk[i] === 10 && ++this.keptNewlines > MAX_OUTPUT_LINES) {
        take = i + 1;
        break;
      }
    }
    this.kept = Buffer.concat([this.kept, chunk.subarray(0, take)]);
    if (take < chunk.length || this.kept.length >= MAX_OUTPUT_BYTES + 3 || this.keptNewlines > MAX_OUTPUT_LINES) {
      this.storing = false;
      const spill = this.spillDir ? Spill.create(this.spillDir) : null;
      this.spill = spill?.write(this.kept)?.write(chunk.subarray(take)) ?? null;
    }
  }

  /** What the model would see so far (for progress reports). */
  preview() {
    return { text: cut(cleanText(this.kept))[0], seenBytes: this.seenBytes, seenLines: this.seenNewlines };
  }

  finish(totalsExact) {
    const decoded = cleanText(this.kept);
    const totalBytes = this.seenBytes;
    const totalLines = this.seenNewlines + (this.lastByte !== undefined && this.lastByte !== 10 ? 1 : 0);
    const whole = totalBytes === this.kept.length && totalsExact;
    if (whole && Buffer.byteLength(decoded) <= MAX_OUTPUT_BYTES && countLines(decoded) <= MAX_OUTPUT_LINES) {
      const keptBytes = Buffer.byteLength(decoded);
      const keptLines = countLines(decoded);
      return { text: decoded, truncated: false, totalBytes, totalLines, keptBytes, keptLines, totalsExact };
    }
    // Every truncated answer names its file, even one that never passed the storing cap.
    if (this.storing && !this.spill && this.spillDir)
      this.spill = Spill.create(this.spillDir)?.write(this.kept) ?? null;
    const b = { truncated: true, truncatedBy: "bytes", totalBytes, totalLines, totalsExact };
    b.fullOutput = this.spill?.finish(totalsExact);
    // The marker counts against the caps: reserve its worst case (the longer gap, the largest
    // kept counts), so text + marker never exceed MAX_OUTPUT_BYTES or MAX_OUTPUT_LINES.
    const reserve = Buffer.byteLength(
      truncationMarker({ ...b, text: "x", keptBytes: MAX_OUTPUT_BYTES, keptLines: MAX_OUTPUT_LINES }),
    );
    const [text, cutBy] = cut(decoded, MAX_OUTPUT_BYTES - reserve, MAX_OUTPUT_LINES - MARKER_LINES);
    return {
      ...b,
      text,
      truncatedBy: cutBy ?? "bytes",
      keptBytes: Buffer.byteLength(text),
      keptLines: countLines(text),
    };
  }

  /** A run that failed keeps no full-output file. */
  discard() {
    this.spill?.discard();
    this.spill = null;
  }
}

/** Keeps the final STDERR_TAIL_BYTES of stderr, as clean, redacted text. */
class StderrTail {
  constructor() {
    this.tail = Buffer.alloc(0);
  }
  push(chunk) {
    this.tail = Buffer.from(Buffer.concat([this.tail, chunk]).subarray(-STDERR_TAIL_BYTES));
  }
  finish() {
    let start = 0;
    while (start < 3 && isContinuation(this.tail[start])) start += 1; // a character cut at the ring's start
    const text = Buffer.from(redact(cleanText(this.tail.subarray(start))));
    let from = Math.max(0, text.length - STDERR_TAIL_BYTES); // replacement characters can grow it
    while (isContinuation(text[from])) from += 1;
    return text.subarray(from).toString();
  }
}

module.exports = { StdoutCollector, StderrTail };
