// Number formatting and small statistics for the benchmark's tables.

/** count, median, min, max of finite numbers (nulls when there are none). */
export function stats(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return { count: 0, median: null, min: null, max: null };
  const mid = v.length >> 1;
  const median = v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  return { count: v.length, median, min: v[0], max: v[v.length - 1] };
}

const UNITS = [
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
  [1, ''],
];

function unitFor(v) {
  for (const [d, u] of UNITS) if (Math.abs(v) >= d) return [d, u];
  return [1, ''];
}

function digits(x) {
  return x >= 100 ? 0 : x >= 10 ? 1 : 2;
}

/** Operations per second: 8.85M, 112k. */
export function fmtOps(v) {
  if (v == null) return '—';
  const [d, u] = unitFor(v);
  return `${(v / d).toFixed(digits(v / d))}${u}`;
}

/** median (min–max) of ops/s, min and max in the median's unit. */
export function fmtOpsRange(s) {
  if (s.median == null) return '—';
  const [d, u] = unitFor(s.median);
  const k = digits(s.median / d);
  const m = `${(s.median / d).toFixed(k)}${u}`;
  if (s.count < 2) return m;
  return `${m} (${(s.min / d).toFixed(k)}–${(s.max / d).toFixed(k)})`;
}

export function fmtNum(v, decimals = 2) {
  if (v == null || !Number.isFinite(v)) return '—';
  return v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

export function fmtInt(v) {
  if (v == null || !Number.isFinite(v)) return '—';
  return Math.round(v).toLocaleString('en-US');
}

/** A probability as a percentage with 3 significant digits: 0.0839%. */
export function fmtPct(p) {
  if (p == null || !Number.isFinite(p)) return '—';
  if (p === 0) return '0';
  return `${+(p * 100).toPrecision(3)}%`;
}

/** A GitHub-flavoured Markdown table; numeric-looking columns right-aligned. */
export function markdownTable(header, rows) {
  const esc = (c) => String(c ?? '').replace(/\|/g, '\\|');
  const numeric = header.map((_, i) => i > 0 && rows.some((r) => /^[~*]*[\d—]/.test(String(r[i] ?? ''))));
  const lines = [`| ${header.map(esc).join(' | ')} |`, `|${header.map((_, i) => (numeric[i] ? '---:' : '---')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.map(esc).join(' | ')} |`);
  return lines.join('\n');
}
