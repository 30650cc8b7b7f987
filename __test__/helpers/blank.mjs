// One rule for a blank request on both runners and for the focused tools' text arguments: only
// Unicode White_Space, controls (Cc) and format characters (Cf). JS trim() strips U+FEFF but keeps
// U+0085; Rust's trim() the reverse. Each entry is blank (faults/request.test.mjs through explore,
// tools-seam.test.mjs through each focused tool).
export const BLANK_TABLE = {
  "U+FEFF byte-order mark": "\ufeff",
  "U+0085 next line": "\u0085",
  "U+200B zero-width space": "\u200b",
  "U+200C/U+200D zero-width (non-)joiners": "\u200c\u200d",
  "U+2060 word joiner": "\u2060",
  "U+180E Mongolian vowel separator": "\u180e",
  "U+00AD soft hyphen": "\u00ad",
  "U+202E/U+2066 bidi controls": "\u202e\u2066",
  "U+E0041 tag character": "\u{e0041}",
  "U+3000 ideographic space and U+2028/U+2029": "\u3000\u2028\u2029",
  "C0 and C1 controls": "\u0001\u001b\u007f\u0090",
  "all of them with spaces": " \ufeff\u0085 \u200b\t\u00a0\u202e\n",
};
