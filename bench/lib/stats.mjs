// Small statistics and formatting helpers shared by the figures.

export function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile, p in [0, 100]. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

export function median(values) {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export const max = (values) => Math.max(...values);

/** The median wall time of `fn` (awaited) over `runs` runs after one warm-up, and its last value. */
export async function timed(fn, runs) {
  let value = await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    value = await fn();
    times.push(performance.now() - started);
  }
  return { ms: median(times), value };
}

/** Milliseconds with a precision that suits their size. */
export function ms(value) {
  if (!Number.isFinite(value)) return "n/a";
  if (Math.abs(value) < 10) return value.toFixed(3);
  if (Math.abs(value) < 100) return value.toFixed(2);
  return value.toFixed(1);
}

export function ratio(value, peer) {
  if (!Number.isFinite(value) || !Number.isFinite(peer) || peer === 0) return "n/a";
  return `${(value / peer).toFixed(3)}×`;
}

/** A figure's target on the worst of `ratios` (value / peer): `{ what, target, measured, met, why }`. */
export function worstRatioTarget(what, ratios, limit, why, digits = 3) {
  const worst = ratios.length ? Math.max(...ratios) : Number.NaN;
  const measured = Number.isFinite(worst) ? `${worst.toFixed(digits)}×` : "n/a";
  return { what, target: `≤ ${limit}×`, measured, met: worst <= limit, why };
}

export function mib(bytes) {
  return `${(bytes / (1024 * 1024)).toFixed(2)} MiB`;
}

/** A Markdown table whose columns are padded so it also reads well on a terminal. */
export function table(head, rows) {
  const cells = [head, ...rows].map((r) => r.map((c) => String(c)));
  const widths = head.map((_, i) => Math.max(3, ...cells.map((r) => [...(r[i] ?? "")].length)));
  const line = (r) => `| ${r.map((c, i) => c + " ".repeat(widths[i] - [...c].length)).join(" | ")} |`;
  return [line(cells[0]), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...cells.slice(1).map(line)].join(
    "\n",
  );
}
