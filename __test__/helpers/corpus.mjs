// The shared corpora (__test__/corpora/*.json, which the Rust tests read too): their values as
// bytes and text, and a seeded generator for the sweeps.
import fs from "node:fs";
import path from "node:path";
import { root } from "./index.mjs";

/** A corpus file, parsed. */
export const readCorpus = (name) => JSON.parse(fs.readFileSync(path.join(root, "__test__", "corpora", name), "utf8"));

/**
 * A corpus value as a Buffer: a string, or a list of strings and [string, times] repeats; with
 * `raw`, `\xHH` in a string is one raw byte (everything else is its UTF-8).
 */
export function bytesOf(spec, raw = true) {
  const parts = Array.isArray(spec) ? spec : [spec];
  return Buffer.concat(
    parts.map((part) => {
      const [text, times] = typeof part === "string" ? [part, 1] : part;
      const pieces = raw ? text.split(/(\\x[0-9a-fA-F]{2})/) : [text];
      const one = Buffer.concat(
        pieces.map((p) =>
          /^\\x[0-9a-fA-F]{2}$/.test(p) ? Buffer.from([Number.parseInt(p.slice(2), 16)]) : Buffer.from(p),
        ),
      );
      return Buffer.concat(Array(times).fill(one));
    }),
  );
}

/** A corpus value as text (no byte escapes). */
export const textOf = (spec) => bytesOf(spec, false).toString();

/** A seeded xorshift32 generator: `next()` a uint32, `below(n)` an integer in [0, n). */
export function seeded(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return { next, below: (n) => next() % n };
}
