// The verb a mistyped one most likely meant: `snyc` → `sync`, `rebuld` → `rebuild`, `stat` →
// `status`. Edit distance with transpositions (optimal string alignment), at most 1 for a word of
// up to 4 letters and 2 beyond, or a prefix of exactly one verb; no guess when two verbs tie.

/** The optimal string alignment distance between `a` and `b`. */
function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The one word of `words` that `typed` most likely meant, or undefined. */
function closestWord(typed, words) {
  const word = String(typed ?? "").toLowerCase();
  if (!word) return undefined;
  const prefixed = words.filter((w) => w.startsWith(word));
  if (prefixed.length === 1) return prefixed[0];
  const most = word.length <= 4 ? 1 : 2;
  const scored = words.map((w) => ({ w, d: editDistance(word, w) })).filter((s) => s.d <= most);
  const best = Math.min(...scored.map((s) => s.d));
  const at = scored.filter((s) => s.d === best);
  return at.length === 1 ? at[0].w : undefined;
}

module.exports = { closestWord, editDistance };
