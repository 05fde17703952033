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
    loadAverageAtStart: loadAverage(),
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
// The command that made a results file, as anyone can run it: an --out folder (a path of the machine that ran it)
// is left out, since the file it describes is where it was written.
export const madeBy = (script) => {
  const args = process.argv.slice(2).filter((a, i, all) => a !== '--out' && all[i - 1] !== '--out' && !a.startsWith('--out='));
  return `\`node bench/${script}${args.length > 0 ? ` ${args.join(' ')}` : ''}\``;
};

/** The comment lines at the top of an entry point, up to `stop` (its --help). */
export function helpText(moduleUrl, stop) {
  const src = readFileSync(new URL(moduleUrl), 'utf8');
  return src.split('\n').filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n').split(stop)[0];
}

// ---------------------------------------------------------------------------
// The tables of run.mjs: one row per implementation from stats.mjs summarize().

const range = (s, f) => (s.count > 1 && s.min !== s.max ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : f(s.median));
/** The cells of the result tables, by column header. */
const CELLS = {
  'add/s': (r) => opsCell(r.addOps),
  'has/s members': (r) => opsCell(r.hasOps),
  'has/s non-members': (r) => opsCell(r.hasNonOps),
  'addAll/s': (r) => opsCell(r.addAllOps),
  'hasAll/s': (r) => opsCell(r.hasAllOps),
  'hasAll/s members': (r) => opsCell(r.hasAllOps),
  'hasAll/s non-members': (r) => opsCell(r.hasAllNonOps),
  'delete/s': (r) => opsCell(r.deleteOps),
  'measured ε': (r) => range(r.fpr, fmtPct),
  'false neg.': ({ falseNegatives: fn }) => (fn.max === 0 ? '0' : `**${fmtInt(fn.max)}**${fn.min !== fn.max ? ` (min ${fmtInt(fn.min)})` : ''}`),
  'bits/item memory': (r) => (r.memMeasured ? '~' : '') + fmtNum(r.memBits.median, 1),
  'bits/item memory [2 decimals]': (r) => fmtNum(r.memBits.median, 2),
  'bits/item serialized': (r) => fmtNum(r.serBits.median, 1),
  'serialized bytes': (r) => fmtInt(r.serializedBytes.median),
  'load ms': (r) => (r.loadMs.count > 1 ? `${fmtNum(r.loadMs.median, 2)} (${fmtNum(r.loadMs.min, 2)}–${fmtNum(r.loadMs.max, 2)})` : fmtNum(r.loadMs.median, 2)),
  parameters: (r) => r.params ?? '',
};
export const MAIN_COLUMNS = ['add/s', 'has/s members', 'has/s non-members', 'addAll/s', 'hasAll/s', 'delete/s', 'measured ε', 'false neg.', 'bits/item memory', 'bits/item serialized', 'serialized bytes', 'load ms'];

/** A failure as one line: the error's name, code, phase and message, or why the runs stopped. */
const failure = (r) => (r.error ? `${r.error.name ?? 'Error'}${r.error.code ? ` ${r.error.code}` : ''} in ${r.error.phase}: ${r.error.message}` : r.stopped);

/** A table of summarized rows with these columns (CELLS; a [note] is not in the header), then `extra` rows as they are. */
export function resultsTable(rows, columns, extra = []) {
  const body = rows.map((r) =>
    r.runs
      ? [r.name + (r.error ? ' ⚠' : ''), String(r.runs) + (r.stopped?.startsWith('time') ? '*' : ''), ...columns.map((c) => CELLS[c](r))]
      : [r.name, '0', `**failed**: ${failure(r)}`, ...Array(columns.length - 1).fill('')],
  );
  return markdownTable(['implementation', 'runs', ...columns.map((c) => c.replace(/ \[.*\]$/, ''))], [...body, ...extra]);
}

/** Notes under a config's table: parameters, correctness findings, errors, memory method. */
export function notesFor(rows) {
  const notes = [];
  for (const r of rows) {
    const parts = [];
    if (r.version) parts.push(r.version);
    if (r.params) parts.push(r.params);
    if (r.error) parts.push(`**${r.error.name ?? 'error'}${r.error.code ? ` ${r.error.code}` : ''} in ${r.error.phase}: ${r.error.message}**`);
    if (r.stopped?.startsWith('time')) parts.push(`stopped after ${r.runs} run(s): ${r.stopped}`);
    if (r.memberSample || r.nonMemberSample) {
      parts.push(
        `under 500k ops/s in the warm-up, so each run looks up ${r.memberSample ? `${fmtInt(r.memberSample)} evenly spaced members` : 'every member'} and ` +
          `${r.nonMemberSample ? `${fmtInt(r.nonMemberSample)} evenly spaced non-members` : 'every non-member'} (ε and false negatives over those) and deletes at most ${fmtInt(r.lookupSample)} keys; the build adds every member`,
      );
    }
    if (r.refused?.max) parts.push(`**add refused ${fmtInt(r.refused.max)} keys** (returned false: filter full)`);
    const c = r.checks ?? {};
    if (r.falseNegatives?.max) {
      parts.push(`**${fmtInt(r.falseNegatives.max)} of ${fmtInt(r.fnChecked)} members looked up reported absent (${fmtPct(r.falseNegatives.max / r.fnChecked)} false negatives)**`);
    }
    if (c.hasAllFalseNegatives) parts.push(`**hasAll: ${fmtInt(c.hasAllFalseNegatives)} false negatives**`);
    if (c.addAllFalseNegatives) parts.push(`**addAll-built filter: ${fmtInt(c.addAllFalseNegatives)} false negatives**`);
    if (c.loadFalseNegatives) parts.push(`**after load: ${fmtInt(c.loadFalseNegatives)} of ${fmtInt(c.loadCheck)} sampled members absent**`);
    if (c.deleteMissing) parts.push(`**delete of added keys found nothing ${fmtInt(c.deleteMissing)} times**`);
    if (c.deleteFalseNegatives) parts.push(`**after deleting half: ${fmtInt(c.deleteFalseNegatives)} of ${fmtInt(c.deleteCheck)} sampled kept members absent**`);
    if (r.memMeasured && r.heapBits?.median != null) parts.push(`memory measured as V8 heap growth${r.impl === 'set' ? ' incl. the key strings' : ''}`);
    notes.push(`- ${r.name}: ${parts.join('; ')}`);
  }
  return notes.join('\n');
}
