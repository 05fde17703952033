// The reports' pieces: number formats, Markdown tables and cells, the machine
// a run was made on and the line that says how it was made. Charts are chart.mjs.
import { readFileSync } from 'node:fs';
import os from 'node:os';

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

/** ε as a percentage label: 1%, 0.1%. */
export const epsLabel = (eps) => `${+(eps * 100).toPrecision(3)}%`;

/** A cell of ops/s stats: median (min–max). */
export const opsCell = (s) => (s ? fmtOpsRange(s) : '—');

/** A cell of a ratio's stats: median× (min–max); `bold` marks the median. */
export function ratioCell(r, { digits = 2, bold = false } = {}) {
  if (r?.median == null) return '—';
  const m = `${fmtNum(r.median, digits)}×`;
  return `${bold ? `**${m}**` : m} (${fmtNum(r.min, digits)}–${fmtNum(r.max, digits)})`;
}

/** The machine a run is made on, and its load at the start. */
export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    v8: process.versions.v8,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: os.loadavg().map((x) => +x.toFixed(2)),
    nice: os.getPriority(),
  };
}

export const loadAverage = () => os.loadavg().map((x) => +x.toFixed(2));

/** Fraction of all cores' time spent busy over `ms` milliseconds (from os.cpus() counters). */
export async function cpuBusy(ms) {
  const snap = () => os.cpus().reduce((a, c) => ({ idle: a.idle + c.times.idle, total: a.total + Object.values(c.times).reduce((x, y) => x + y, 0) }), { idle: 0, total: 0 });
  const a = snap();
  await new Promise((r) => setTimeout(r, ms));
  const b = snap();
  const total = b.total - a.total;
  return total > 0 ? +(1 - (b.idle - a.idle) / total).toFixed(3) : 0;
}

/** The command line that made a report, as `node bench/SCRIPT args`. */
export const madeBy = (script) => `\`node bench/${script}${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}\``;

/** The comment lines at the top of an entry point, up to `stop` (its --help). */
export function helpText(moduleUrl, stop) {
  const src = readFileSync(new URL(moduleUrl), 'utf8');
  return src.split('\n').filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n').split(stop)[0];
}
