// Bloom or cuckoo, by size and by false-positive rate: the untimed half of the
// comparison (bench/run.mjs runs the timed half in its workers).
//
//   node bench/compare.mjs [--n 100000] [--eps 0.1,0.05,...] [--non-members 10000000]
//                          [--fill-capacity 50000] [--fill-eps 0.01] [--json FILE]
//
// 1. Sweep: per ε, a CuckooFilter with b = 2, 4 and 8 (bit-packed), one with
//    b = 4 semi-sorted (semiSort: true), and a BloomFilter for N
//    keys, given the first N blocklisted domains by addAll: bits per item, the
//    measured rate with its 95% interval over the real benign domains, then
//    derived ones for about 200 expected false positives (made a chunk at a
//    time, never all held), false negatives; and a fine grid of ε, sizes only.
// 2. Fill: capacity C at ε (--fill-eps), keys added up to 4C, the rate measured
//    every C/4, for both filters without and with growth.
// bench/README.md ("Bloom or cuckoo: the comparison") says how each number is made.
//
// Prints the tables as Markdown, or with --json writes everything to FILE.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, derived, loadKeys, readLines, locateData } from './data.mjs';
import { epsLabel, fmtInt, fmtNum, fmtPct, markdownTable } from './report.mjs';
import { bloomBitsFor, bloomSizing, countTrue, wilson } from './stats.mjs';

export const SWEEP_EPS = [0.1, 0.05, 0.03, 0.02, 0.01, 0.005, 0.001, 0.0001, 0.00001];
export const BUCKET_SIZES = [2, 4, 8];
/** The cuckoo filters of the sweep: bit-packed at each b, and semi-sorted (b = 4 only). */
export const CUCKOOS = [
  ...BUCKET_SIZES.map((b) => ({ id: `cuckoo-b${b}`, b, semiSort: false })),
  { id: 'cuckoo-b4-semi', b: 4, semiSort: true },
];
/** Expected false positives the non-member count aims for at each ε. */
const TARGET_FALSE_POSITIVES = 200;
const CHUNK = 1 << 16;

/** Fill checkpoints, in multiples of the capacity. */
export const FILL_POINTS = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4];

/**
 * Non-member keys beyond the real ones (data.mjs derived(): a label prefixed
 * to each real non-member, round after round, skipping members and real
 * benign domains): visit(chunk) with chunks of at most CHUNK keys until `count` keys.
 */
function forDerived(count, real, exclude, visit) {
  let chunk = [];
  let made = 0;
  for (const k of derived(real, exclude)) {
    if (made++ === count) break;
    chunk.push(k);
    if (chunk.length === CHUNK) {
      visit(chunk);
      chunk = [];
    }
  }
  if (chunk.length) visit(chunk);
}

/** Each CuckooFilter of CUCKOOS and a BloomFilter, all for n keys at ε: [{ id, type, b, f }]. */
async function filtersAt({ CuckooFilter, BloomFilter }, n, eps) {
  const out = [];
  for (const { id, b, semiSort } of CUCKOOS) out.push({ id, type: 'cuckoo', b, f: await CuckooFilter.create({ capacity: n, falsePositiveRate: eps, bucketSize: b, semiSort }) });
  return [...out, { id: 'bloom', type: 'bloom', f: await BloomFilter.create({ capacity: n, falsePositiveRate: eps }) }];
}

async function sweep(lib, { n, epsList, maxNonMembers, dir }) {
  const keys = loadKeys(n, { dir });
  const { members, nonMembers } = keys;
  const exclude = new Set(members);
  for (const k of readLines(locateData(dir).benign)) exclude.add(k);
  const rows = [];
  for (const eps of epsList) {
    const filters = await filtersAt(lib, n, eps);
    for (const x of filters) {
      try {
        x.added = x.f.addAll(members);
      } catch (e) {
        if (e.code !== 'ERR_FILTER_FULL') throw e;
        x.added = e.added;
        x.full = true;
      }
      x.falseNegatives = x.added - countTrue(x.f.hasAll(members.slice(0, x.added)));
      x.fpReal = countTrue(x.f.hasAll(nonMembers));
      x.fpDerived = 0;
    }
    const want = Math.min(maxNonMembers, Math.max(nonMembers.length, Math.ceil(TARGET_FALSE_POSITIVES / eps)));
    const derived = want - nonMembers.length;
    if (derived > 0) forDerived(derived, nonMembers, exclude, (chunk) => {
      for (const x of filters) x.fpDerived += countTrue(x.f.hasAll(chunk));
    });
    for (const x of filters) {
      const f = x.f;
      const fp = x.fpReal + x.fpDerived;
      const row = {
        eps,
        id: x.id,
        type: x.type,
        bucketSize: x.b,
        added: x.added,
        full: !!x.full,
        bytes: f.byteLength,
        bitsPerItem: (f.byteLength * 8) / x.added,
        lowerBound: Math.log2(1 / eps),
        falseNegatives: x.falseNegatives,
        nonMembers: want,
        realNonMembers: nonMembers.length,
        derivedNonMembers: Math.max(0, derived),
        falsePositives: fp,
        falsePositivesReal: x.fpReal,
        measured: fp / want,
        interval: wilson(fp, want),
        expected: f.expectedFalsePositiveRate,
      };
      if (x.type === 'cuckoo') Object.assign(row, { fingerprintBits: f.fingerprintBits, bound: f.falsePositiveRate, loadFactor: f.loadFactor });
      else Object.assign(row, { bitCount: f.bitCount, hashCount: f.hashCount, optimalBits: bloomSizing(n, eps).bits });
      rows.push(row);
      f.dispose();
    }
    process.stderr.write(`compare: ε = ${eps}: ${rows.slice(-filters.length).map((r) => `${r.id} ${fmtNum(r.bitsPerItem, 2)} bits, ${r.falsePositives}/${fmtInt(r.nonMembers)} FP`).join('; ')}\n`);
  }
  return { n, members: members.length, likeForLike: likeForLike(rows), realNonMembers: nonMembers.length, excludedNonMembers: keys.excludedNonMembers, digest: keys.digest, rows };
}

/**
 * Each cuckoo filter against a Bloom filter at the rate the cuckoo filter
 * measured (not the ε it was configured with, which its integer f undercuts):
 * per b, the largest measured rate below which the cuckoo filter is the smaller
 * one, interpolated in log p between the two sweep points where the sign of
 * (cuckoo bits − Bloom bits) last changes; null if it never does.
 */
function likeForLike(rows) {
  const out = {};
  for (const { id } of CUCKOOS) {
    const pts = rows
      .filter((r) => r.id === id && r.measured > 0)
      .map((r) => ({ eps: r.eps, measured: r.measured, bits: r.bitsPerItem, bloomBits: bloomBitsFor(r.measured) }))
      .sort((x, y) => y.measured - x.measured);
    let crossover = null;
    const d = (p) => p.bits - p.bloomBits;
    if (pts.length && d(pts.at(-1)) < 0) {
      let i = pts.length - 1;
      while (i > 0 && d(pts[i - 1]) < 0) --i;
      if (i > 0) {
        const a = pts[i - 1];
        const c = pts[i];
        const t = d(a) / (d(a) - d(c));
        crossover = 10 ** (Math.log10(a.measured) + t * (Math.log10(c.measured) - Math.log10(a.measured)));
      } else crossover = pts[0].measured;
    }
    out[id] = { points: pts, crossover };
  }
  return out;
}

/** Bits per item of capacity of each filter on a fine grid of ε (create only), and where the cuckoo filter is smaller. */
async function sizeGrid(lib, n) {
  const grid = [];
  for (let i = 0; i <= 240; ++i) {
    const eps = 10 ** (-1 - i / 60);
    const point = { eps };
    for (const { id, f } of await filtersAt(lib, n, eps)) {
      point[id] = (f.byteLength * 8) / n;
      if (id !== 'bloom') point[`bound-${id.slice('cuckoo-'.length)}`] = f.falsePositiveRate;
      f.dispose();
    }
    grid.push(point);
  }
  // Per b: the largest ε of the grid from which on (all smaller ε) the cuckoo filter is smaller,
  // and the fraction of grid points above it where it already is.
  const crossover = {};
  for (const { id } of CUCKOOS) {
    let from = null;
    for (let i = grid.length - 1; i >= 0 && grid[i][id] < grid[i].bloom; --i) from = grid[i].eps;
    const above = grid.filter((p) => from == null || p.eps > from);
    crossover[id] = { alwaysBelow: from, smallerAbove: above.filter((p) => p[id] < p.bloom).length, pointsAbove: above.length };
  }
  return { grid, crossover };
}

async function fill(lib, { capacity, eps, dir }) {
  const { CuckooFilter, BloomFilter } = lib;
  const total = Math.round(capacity * FILL_POINTS.at(-1));
  const keys = loadKeys(total, { dir });
  const { members, nonMembers } = keys;
  const variants = [
    { id: 'bloom', label: 'BloomFilter, no growth', make: () => BloomFilter.create({ capacity, falsePositiveRate: eps }) },
    { id: 'bloom-x2', label: 'BloomFilter, expansion 2', make: () => BloomFilter.create({ capacity, falsePositiveRate: eps, expansion: 2 }) },
    { id: 'cuckoo', label: 'CuckooFilter (b = 4), no growth', make: () => CuckooFilter.create({ capacity, falsePositiveRate: eps, semiSort: false }) },
    { id: 'cuckoo-x2', label: 'CuckooFilter (b = 4), expansion 2', make: () => CuckooFilter.create({ capacity, falsePositiveRate: eps, expansion: 2, semiSort: false }) },
  ];
  const curves = [];
  for (const v of variants) {
    const f = await v.make();
    const points = [];
    let added = 0;
    let fullAt = null;
    for (const x of FILL_POINTS) {
      const upTo = Math.round(capacity * x);
      try {
        added += f.addAll(members.slice(added, upTo));
      } catch (e) {
        if (e.code !== 'ERR_FILTER_FULL') throw e;
        added += e.added;
        fullAt = added;
      }
      const fp = countTrue(f.hasAll(nonMembers));
      points.push({
        x: added / capacity,
        added,
        falsePositives: fp,
        measured: fp / nonMembers.length,
        interval: wilson(fp, nonMembers.length),
        expected: f.expectedFalsePositiveRate,
        bytes: f.byteLength,
        bitsPerKey: (f.byteLength * 8) / added,
        subFilters: f.subFilterCount,
        falseNegatives: added - countTrue(f.hasAll(members.slice(0, added))),
      });
      if (fullAt != null) break;
    }
    f.dispose();
    curves.push({ id: v.id, label: v.label, fullAt, points });
    const last = points.at(-1);
    process.stderr.write(`compare: fill ${v.label}: ${fmtPct(last.measured)} at ${fmtNum(last.x, 2)}C${fullAt != null ? ' (full)' : ''}\n`);
  }
  return { capacity, eps, members: members.length, nonMembers: nonMembers.length, curves };
}

/** Everything compare.mjs measures, as one object. */
export async function measure({ n = 100000, epsList = SWEEP_EPS, maxNonMembers = 10_000_000, fillCapacity = 50000, fillEps = 0.01, dir } = {}) {
  const lib = await import(pathToFileURL(join(ROOT, 'dist', 'index.mjs')).href);
  const t0 = Date.now();
  const sizes = await sizeGrid(lib, n);
  const sw = await sweep(lib, { n, epsList, maxNonMembers, dir });
  const fl = await fill(lib, { capacity: fillCapacity, eps: fillEps, dir });
  return { sweep: sw, sizes, fill: fl, elapsedS: (Date.now() - t0) / 1e3 };
}

const NAMES = { 'cuckoo-b2': 'cuckoo b = 2', 'cuckoo-b4': 'cuckoo b = 4', 'cuckoo-b8': 'cuckoo b = 8', 'cuckoo-b4-semi': 'cuckoo b = 4 semi-sorted', bloom: 'Bloom' };

/** Markdown tables of a measure() result. */
export function markdown(res) {
  const out = [];
  const sw = res.sweep;
  const byEps = new Map();
  for (const r of sw.rows) {
    if (!byEps.has(r.eps)) byEps.set(r.eps, {});
    byEps.get(r.eps)[r.id] = r;
  }
  const ids = Object.keys(NAMES);
  out.push(
    markdownTable(
      ['ε', 'log2(1/ε)', ...ids.map((id) => `${NAMES[id]} bits/item`), 'smallest'],
      [...byEps].map(([eps, g]) => {
        const best = ids.reduce((a, id) => (g[id] && g[id].bitsPerItem < g[a].bitsPerItem ? id : a), 'bloom');
        return [epsLabel(eps), fmtNum(Math.log2(1 / eps), 2), ...ids.map((id) => (g[id] ? `${fmtNum(g[id].bitsPerItem, 2)}${g[id].full ? ' (full)' : ''}` : '—')), NAMES[best]];
      }),
    ),
  );
  out.push('');
  const rate = (r) => `${fmtPct(r.measured)} (${fmtPct(r.interval[0])}–${fmtPct(r.interval[1])})`;
  out.push(
    markdownTable(
      ['ε', 'non-members (real + derived)', ...ids.map((id) => (id === 'bloom' ? 'Bloom: m, k; measured (95%)' : `${NAMES[id]}: f, 2b/2^f; measured (95%)`)), 'false neg.'],
      [...byEps].map(([eps, g]) => [
        epsLabel(eps),
        `${fmtInt(g.bloom.realNonMembers)} + ${fmtInt(g.bloom.derivedNonMembers)}`,
        ...ids.map((id) => {
          const r = g[id];
          if (!r) return '—';
          return r.type === 'bloom' ? `${fmtInt(r.bitCount)}, ${r.hashCount}; ${rate(r)}` : `${r.fingerprintBits}, ${fmtPct(r.bound)}; ${rate(r)}`;
        }),
        String(ids.reduce((a, id) => a + (g[id]?.falseNegatives ?? 0), 0)),
      ]),
    ),
  );
  return out.join('\n');
}

/** Markdown table of the fill curves. */
export function fillMarkdown(fl) {
  const head = ['keys added / capacity', ...fl.curves.map((c) => c.label)];
  const rows = FILL_POINTS.map((x) => [
    `${x}`,
    ...fl.curves.map((c) => {
      const p = c.points.find((q) => Math.abs(q.x - x) < 1e-9);
      if (p) return `${fmtPct(p.measured)} · ${fmtNum(p.bitsPerKey, 1)} b/key${p.subFilters > 1 ? ` · ${p.subFilters} subs` : ''}`;
      const last = c.points.at(-1);
      if (c.fullAt != null && last && x > last.x && x - 0.25 < last.x + 1e-9) return `full at ${fmtNum(last.x, 3)}C: ${fmtPct(last.measured)}`;
      return '';
    }),
  ]);
  return markdownTable(head, rows);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values: opt } = parseArgs({
    options: {
      n: { type: 'string', default: '100000' },
      eps: { type: 'string', default: SWEEP_EPS.join(',') },
      'non-members': { type: 'string', default: '10000000' },
      'fill-capacity': { type: 'string', default: '50000' },
      'fill-eps': { type: 'string', default: '0.01' },
      data: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const res = await measure({
    n: Number(opt.n),
    epsList: opt.eps.split(',').map(Number),
    maxNonMembers: Number(opt['non-members']),
    fillCapacity: Number(opt['fill-capacity']),
    fillEps: Number(opt['fill-eps']),
    dir: opt.data,
  });
  if (opt.json) writeFileSync(opt.json, JSON.stringify(res) + '\n');
  else console.log(`${markdown(res)}\n\n${fillMarkdown(res.fill)}`);
}
