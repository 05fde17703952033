// Patch sizes: how many bytes a blocklist update costs when it is sent as a patch
// (`newer.diff(older)`, `filter.applyPatch(patch)`; docs/FORMAT.md §17) instead
// of the whole filter, for every family, on the real lists.
//
//   node bench/patch.mjs                        # 1% churn, 5 timed runs, writes bench/results/patch.md
//   node bench/patch.mjs --churn 0.001 --runs 3 --no-write
//   node bench/run.mjs --only patch             # the same, from the runner
//
// Options: --churn C (share of the list deleted and of new keys added per day,
// default 0.01), --runs R (timed diff and apply runs, the median kept; default 5),
// --data DIR (folder with blocklist_domains.txt and benign_domains.txt; default
// ../shared/data), --out DIR (default bench/results), --no-write (print only).
//
// Days. Day 0: every domain of blocklist_domains.txt (334,082). Day 1: the same
// filter object after adding c = round(C · N0) new keys (benign domains that are
// not listed, in file order) and deleting c of its keys (every (N0/c)-th, from the
// first); day 2 likewise (the next c benign domains; every (N0/c)-th key from the
// middle of a step). Bloom filters cannot delete: their days only add. Adds go
// before deletes, so that the growing filter, full after day 0, grows on day 1.
//
// Filters, each sized for N0 + 2c keys (the list and two days of adds) unless said:
// CuckooFilter at ε = 0.1% and 1%, bit-packed and semi-sorted buckets (b = 4);
// a growing CuckooFilter (ε = 0.1%, semi-sorted, expansion 2) whose capacity is
// the largest, in steps of 1% below N0, that holds day 0 in one sub-filter and
// needs a second one on day 1; BloomFilter at ε = 1% and 0.1%; RedisCuckooFilter
// (CF.RESERVE: bucket size 2, 8-bit fingerprints, expansion 1) and RedisBloomFilter
// (BF.RESERVE ε = 1% NONSCALING).
//
// Per filter: full = day 1's toBytes() length; patch = day1.diff(day 0 bytes);
// bytes per changed key = patch / (keys added + keys deleted) (Bloom: per key
// added); diff ms = median of R diffs; apply ms = median of R applyPatch calls on
// fresh copies of day 0 (fromBytes is not timed). Checked every run (failures are
// printed, marked in the table and make the exit status 1): the patched copy is
// byte-identical to day 1; day 1→2 applied after it gives day 2; the spanning
// patch day 0→2 applied by applyPatchBytes gives day 2; the day 1→2 patch on day
// 0 throws FilterFormatError 'patch-wrong-base'; every day-1 key is found.
//
// Rebuilt, for contrast: the patch from day 0 to a cuckoo filter (ε = 0.1%, semi-sorted)
// built afresh from the day-1 list (day 0's keys in file order less the deleted, then the
// added) instead of changing day 0's filter: a fresh build kicks differently.
//
// Safe Browsing for scale: its lists are 4-byte SHA-256 prefixes of expressions
// (here `domain/`); an update sends the added prefixes and the removed entries'
// indices in the sorted list: 4 bytes each raw, or Rice-Golomb coded deltas (the
// Update API's compressed form, parameter k chosen for the smallest size; the
// protobuf framing not counted).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, locateData, readLines } from './data.mjs';
import { epsLabel, fmtInt, fmtNum, fmtPct, loadAverage, machine, madeBy, markdownTable } from './report.mjs';
import { nowMs, stats } from './stats.mjs';

const { values: opt } = parseArgs({
  options: {
    churn: { type: 'string', default: '0.01' },
    runs: { type: 'string', default: '5' },
    data: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results') },
    'no-write': { type: 'boolean', default: false },
  },
});
const CHURN = Number(opt.churn);
const RUNS = Number(opt.runs);
if (!(CHURN > 0 && CHURN <= 0.1)) throw new Error(`--churn: ${opt.churn} is not in (0, 0.1]`);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs: bad value ${opt.runs}`);
const distFile = join(ROOT, 'dist', 'index.mjs');
if (!existsSync(distFile)) throw new Error('dist/index.mjs is missing: run `bash scripts/build.sh`');
const lib = await import(pathToFileURL(distFile).href);
if (typeof lib.CuckooFilter.prototype.diff !== 'function') throw new Error('dist/index.mjs has no diff(): build a version with patches');

// Targets of issue 24: bytes per changed key and patch / full filter at 1% churn.
const CUCKOO_TARGET = 8; // bytes per changed key, CuckooFilter at ε = 0.1%
const BLOOM_TARGET = 10; // bytes per added key, BloomFilter at ε = 1%
const RATIO_TARGET = 0.1; // patch / full filter

// ---------------------------------------------------------------------------
// The days' keys.
const files = locateData(opt.data);
const day0 = [...new Set(readLines(files.blocklist))];
const N0 = day0.length;
const listed = new Set(day0);
const c = Math.max(1, Math.round(CHURN * N0));
const fresh = readLines(files.benign).filter((k) => !listed.has(k));
if (fresh.length < 2 * c) throw new Error(`benign_domains.txt has ${fresh.length} unlisted domains, ${2 * c} needed`);
const step = Math.floor(N0 / c);
const pick = (offset) => Array.from({ length: c }, (_, i) => day0[i * step + offset]);
const days = [
  null,
  { add: fresh.slice(0, c), remove: pick(0) },
  { add: fresh.slice(c, 2 * c), remove: pick(step >> 1) },
];
const removed1 = new Set(days[1].remove);

// ---------------------------------------------------------------------------
// The filters.
const SIZED = N0 + 2 * c;
const ROWS = [
  { name: 'CuckooFilter, bit-packed', eps: 0.001, deletes: true, make: () => lib.CuckooFilter.create({ capacity: SIZED, falsePositiveRate: 0.001, semiSort: false }) },
  { name: 'CuckooFilter, semi-sorted', eps: 0.001, deletes: true, make: () => lib.CuckooFilter.create({ capacity: SIZED, falsePositiveRate: 0.001, semiSort: true }) },
  { name: 'CuckooFilter, bit-packed', eps: 0.01, deletes: true, make: () => lib.CuckooFilter.create({ capacity: SIZED, falsePositiveRate: 0.01, semiSort: false }) },
  { name: 'CuckooFilter, semi-sorted', eps: 0.01, deletes: true, make: () => lib.CuckooFilter.create({ capacity: SIZED, falsePositiveRate: 0.01, semiSort: true }) },
  { name: 'CuckooFilter, growing (expansion 2)', eps: 0.001, deletes: true, growing: true },
  { name: 'BloomFilter', eps: 0.01, deletes: false, make: () => lib.BloomFilter.create({ capacity: SIZED, falsePositiveRate: 0.01 }) },
  { name: 'BloomFilter', eps: 0.001, deletes: false, make: () => lib.BloomFilter.create({ capacity: SIZED, falsePositiveRate: 0.001 }) },
  { name: 'RedisCuckooFilter (CF.RESERVE, b = 2)', eps: null, deletes: true, make: () => lib.RedisCuckooFilter.create({ capacity: SIZED, bucketSize: 2 }) },
  { name: 'RedisBloomFilter (BF.RESERVE NONSCALING)', eps: 0.01, deletes: false, make: () => lib.RedisBloomFilter.create({ errorRate: 0.01, capacity: SIZED, nonScaling: true }) },
];

/** Applies day `d`'s changes to `f` (adds, then deletes where the family can); returns the keys changed. */
function advance(f, d, deletes) {
  f.addAll(days[d].add);
  if (!deletes) return days[d].add.length;
  let deleted = 0;
  for (const k of days[d].remove) if (f.delete(k)) ++deleted;
  if (deleted !== days[d].remove.length) throw new Error(`day ${d}: ${days[d].remove.length - deleted} keys not deleted`);
  return days[d].add.length + deleted;
}

/** The growing filter's day 0: the largest capacity (N0, 0.99·N0, ...) that holds day 0 in one sub-filter and grows on day 1. */
async function growingDay0() {
  for (let capacity = N0; capacity > N0 * 0.9; capacity = Math.floor(capacity * 0.99)) {
    const f = await lib.CuckooFilter.create({ capacity, falsePositiveRate: 0.001, expansion: 2 });
    f.addAll(day0);
    if (f.subFilterCount === 1) {
      const probe = await lib.CuckooFilter.fromBytes(f.toBytes());
      probe.addAll(days[1].add);
      const grows = probe.subFilterCount === 2;
      probe.dispose();
      if (grows) return { f, capacity };
    }
    f.dispose();
  }
  throw new Error('no capacity within 10% below N0 makes the growing filter grow on day 1');
}

const equal = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;

/** Times `fn` RUNS times; returns the stats of the milliseconds and the last result. */
function timed(fn) {
  const ms = [];
  let result;
  for (let i = 0; i < RUNS; ++i) {
    const t = nowMs();
    result = fn(i);
    ms.push(nowMs() - t);
  }
  return { ms: stats(ms), result };
}

async function measure(row) {
  const family = row.growing ? lib.CuckooFilter : null;
  let f;
  let note = '';
  if (row.growing) {
    const g = await growingDay0();
    f = g.f;
    note = `capacity ${fmtInt(g.capacity)}`;
  } else {
    f = await row.make();
    f.addAll(day0);
  }
  const Family = family ?? f.constructor;
  const bytes0 = f.toBytes();
  const subFilters0 = f.subFilterCount;
  const changed = advance(f, 1, row.deletes);
  const bytes1 = f.toBytes();
  const subFilters1 = f.subFilterCount;
  const diff = timed(() => f.diff(bytes0));
  const patch = diff.result;
  const bases = [];
  for (let i = 0; i < RUNS; ++i) bases.push(await Family.fromBytes(bytes0));
  const apply = timed((i) => bases[i].applyPatch(patch));

  const failures = [];
  if (!equal(bases[0].toBytes(), bytes1)) failures.push('day 0 + patch ≠ day 1');
  const found = bases[0].hasAll(row.deletes ? [...day0.filter((k) => !removed1.has(k)), ...days[1].add] : [...day0, ...days[1].add]);
  const falseNegatives = found.length - found.filter(Boolean).length;
  if (falseNegatives) failures.push(`${falseNegatives} day-1 keys not found after the patch`);

  const changed2 = advance(f, 2, row.deletes);
  const bytes2 = f.toBytes();
  const patch12 = f.diff(bytes1);
  const patch02 = f.diff(bytes0);
  bases[0].applyPatch(patch12);
  if (!equal(bases[0].toBytes(), bytes2)) failures.push('day 1 + patch 1→2 ≠ day 2');
  if (!equal(await lib.applyPatchBytes(bytes0, patch02), bytes2)) failures.push('applyPatchBytes(day 0, patch 0→2) ≠ day 2');
  const wrongBase = await Family.fromBytes(bytes0);
  try {
    wrongBase.applyPatch(patch12);
    failures.push('patch 1→2 applied to day 0');
  } catch (e) {
    if (!(e instanceof lib.FilterFormatError && e.reason === 'patch-wrong-base')) failures.push(`patch 1→2 on day 0: ${e.name} ${e.reason ?? ''} (not patch-wrong-base)`);
  }
  if (!equal(wrongBase.toBytes(), bytes0)) failures.push('a refused patch changed the filter');
  for (const b of [...bases, wrongBase, f]) b.dispose();
  return {
    name: row.name,
    eps: row.eps,
    deletes: row.deletes,
    full: bytes1.length,
    changed,
    changed2,
    patch: patch.length,
    patch12: patch12.length,
    patch02: patch02.length,
    subFilters: [subFilters0, subFilters1],
    diffMs: diff.ms,
    applyMs: apply.ms,
    note,
    failures,
  };
}

/** Patch bytes from day 0 to a filter built afresh from the day-1 list, and that filter's bytes (ε = 0.1%, semi-sorted). */
async function rebuilt() {
  const options = { capacity: SIZED, falsePositiveRate: 0.001, semiSort: true };
  const old = await lib.CuckooFilter.create(options);
  old.addAll(day0);
  const fresh1 = await lib.CuckooFilter.create(options);
  fresh1.addAll([...day0.filter((k) => !removed1.has(k)), ...days[1].add]);
  const result = { patch: fresh1.diff(old).length, full: fresh1.byteLength };
  old.dispose();
  fresh1.dispose();
  return result;
}

// ---------------------------------------------------------------------------
// Safe Browsing: 4-byte SHA-256 prefixes, raw and Rice-Golomb coded.
const prefixOf = (domain) => createHash('sha256').update(`${domain}/`).digest().readUInt32BE(0);

/** Bytes of sorted integers as Rice-Golomb coded deltas (first value as 32 bits), with the best parameter k. */
function riceBytes(sorted) {
  if (sorted.length === 0) return 0;
  let best = Infinity;
  for (let k = 0; k < 32; ++k) {
    let bits = 32;
    for (let i = 1; i < sorted.length; ++i) bits += Math.floor((sorted[i] - sorted[i - 1]) / 2 ** k) + 1 + k;
    best = Math.min(best, bits);
  }
  return Math.ceil(best / 8);
}

function safeBrowsing() {
  const list = [...new Set(day0.map(prefixOf))].sort((a, b) => a - b);
  const index = new Map(list.map((p, i) => [p, i]));
  const added = [...new Set(days[1].add.map(prefixOf))].filter((p) => !index.has(p)).sort((a, b) => a - b);
  const removedIdx = days[1].remove.map((k) => index.get(prefixOf(k))).sort((a, b) => a - b);
  const changed = days[1].add.length + days[1].remove.length;
  return {
    fullRaw: 4 * list.length,
    fullRice: riceBytes(list),
    patchRaw: 4 * (added.length + removedIdx.length),
    patchRice: riceBytes(added) + riceBytes(removedIdx),
    changed,
  };
}

// ---------------------------------------------------------------------------
const mach = machine();
const wall = nowMs();
process.stderr.write(`patch: day 0 = ${fmtInt(N0)} domains (${relative(ROOT, files.blocklist)}${files.sample ? ', IN-REPO SAMPLE' : ''}); per day +${fmtInt(c)} −${fmtInt(c)} keys; ${RUNS} runs\n`);
const results = [];
for (const row of ROWS) {
  const r = await measure(row);
  results.push(r);
  process.stderr.write(`  ${r.name} ε=${r.eps ? epsLabel(r.eps) : '—'}: full ${fmtInt(r.full)} B, patch ${fmtInt(r.patch)} B${r.failures.length ? `, FAILED: ${r.failures.join('; ')}` : ''}\n`);
}
const sb = safeBrowsing();
const fromScratch = await rebuilt();
const totalS = (nowMs() - wall) / 1e3;

const perKey = (r) => r.patch / r.changed;
const ms = (s) => (s.count > 1 ? `${fmtNum(s.median, 1)} (${fmtNum(s.min, 1)}–${fmtNum(s.max, 1)})` : fmtNum(s.median, 1));
const rows = results.map((r) => [
  r.name + (r.note ? ` (${r.note})` : '') + (r.subFilters[1] !== r.subFilters[0] ? `, sub-filters ${r.subFilters[0]} → ${r.subFilters[1]}` : ''),
  r.eps ? epsLabel(r.eps) : '≤ 1.57%',
  fmtInt(r.full),
  r.deletes ? `+${fmtInt(c)} −${fmtInt(r.changed - c)}` : `+${fmtInt(r.changed)}`,
  fmtInt(r.patch),
  fmtNum(perKey(r), 2),
  fmtPct(r.patch / r.full),
  fmtInt(r.patch12),
  fmtInt(r.patch02),
  ms(r.diffMs),
  ms(r.applyMs),
  r.failures.length ? `**FAILED**: ${r.failures.join('; ')}` : 'ok',
]);
rows.push(
  ['Safe Browsing, 4-byte prefixes, raw', '—', fmtInt(sb.fullRaw), `+${fmtInt(c)} −${fmtInt(c)}`, fmtInt(sb.patchRaw), fmtNum(sb.patchRaw / sb.changed, 2), fmtPct(sb.patchRaw / sb.fullRaw), '', '', '', '', ''],
  ['Safe Browsing, Rice-Golomb coded', '—', fmtInt(sb.fullRice), `+${fmtInt(c)} −${fmtInt(c)}`, fmtInt(sb.patchRice), fmtNum(sb.patchRice / sb.changed, 2), fmtPct(sb.patchRice / sb.fullRice), '', '', '', '', ''],
);
const header = ['filter', 'ε', 'full bytes', 'keys changed day 0→1', 'patch bytes 0→1', 'bytes per changed key', 'patch / full', 'patch 1→2', 'patch 0→2', 'diff ms', 'apply ms', 'checks'];

const pass = (ok) => (ok ? '**PASS**' : '**FAIL**');
const targetLines = [];
for (const r of results) {
  if (r.name.startsWith('CuckooFilter, bit') || r.name.startsWith('CuckooFilter, semi')) {
    if (r.eps !== 0.001) continue;
    targetLines.push(`- ${r.name}, ε = 0.1%: ${fmtNum(perKey(r), 2)} bytes per changed key (target ≤ ${CUCKOO_TARGET}: ${pass(perKey(r) <= CUCKOO_TARGET)}), patch ${fmtPct(r.patch / r.full)} of the filter (target ≤ 10%: ${pass(r.patch / r.full <= RATIO_TARGET)}).`);
  } else if (r.name === 'BloomFilter' && r.eps === 0.01) {
    targetLines.push(`- BloomFilter, ε = 1%: ${fmtNum(perKey(r), 2)} bytes per added key (target ≤ ${BLOOM_TARGET}: ${pass(perKey(r) <= BLOOM_TARGET)}), patch ${fmtPct(r.patch / r.full)} of the filter (target ≤ 10%: ${pass(r.patch / r.full <= RATIO_TARGET)}).`);
  }
}
const failed = results.some((r) => r.failures.length);
const md = [
  '# Patch sizes: updating a blocklist by the change',
  '',
  `Made by ${madeBy('patch.mjs')} in ${fmtNum(totalS, 1)} s on ${mach.cpu} (${mach.cores} cores), node ${mach.node}; load average ${mach.loadAverageAtStart.join(' ')} at start, ${loadAverage().join(' ')} at end` +
    `${mach.nice ? `; run at nice ${mach.nice}` : ''}. ` +
    `Day 0: the ${fmtInt(N0)} domains of ${files.sample ? 'the in-repo SAMPLE' : 'blocklist_domains.txt'}; each day adds ${fmtInt(c)} unlisted benign domains (${fmtPct(CHURN)}) and deletes ${fmtInt(c)} listed ones (Bloom filters only add). ` +
    `Filters sized for ${fmtInt(SIZED)} keys (day 0 and two days of adds). Times: median (min–max) of ${RUNS} runs. bench/patch.mjs says how each number is made.`,
  '',
  markdownTable(header, rows),
  '',
  '**Targets** (issue 24, at this churn):',
  '',
  ...targetLines,
  '',
  `Rebuilt instead of changed: the patch from day 0 to a semi-sorted CuckooFilter (ε = 0.1%) built afresh from the day-1 list is ${fmtInt(fromScratch.patch)} bytes, ` +
    `${fmtPct(fromScratch.patch / fromScratch.full)} of the filter (${fmtNum(fromScratch.patch / (2 * c), 2)} per changed key): a patch is small between versions of one filter changed by add and delete.`,
  '',
  `Safe Browsing for scale: its list of ${fmtInt(N0)} domains is ${fmtInt(sb.fullRaw)} bytes of 4-byte prefixes (${fmtInt(sb.fullRice)} Rice-coded); ` +
    `the day-1 update, added prefixes and removed indices, ${fmtInt(sb.patchRaw)} bytes raw (4 per changed key) or ${fmtInt(sb.patchRice)} Rice-coded (${fmtNum(sb.patchRice / sb.changed, 2)} per changed key). ` +
    'A 4-byte prefix list is an exact-match set with a false-positive rate of about N/2^32 per lookup (here ' +
    `${fmtPct(N0 / 2 ** 32)}), confirmed by a full-hash request to the server; a filter answers on its own.`,
  '',
  failed ? '**Some checks FAILED** (last column): the patches above are not trustworthy.' : `Checks: every patch reproduced its target byte for byte (day 0 + patch = day 1; + patch 1→2 = day 2; applyPatchBytes(day 0, patch 0→2) = day 2), the day 1→2 patch was refused on day 0 ('patch-wrong-base') without a change, and every day-1 key was found.`,
  '',
].join('\n');
console.log(md);
if (!opt['no-write']) {
  mkdirSync(opt.out, { recursive: true });
  writeFileSync(join(opt.out, 'patch.md'), md);
  process.stderr.write(`wrote ${relative(ROOT, join(opt.out, 'patch.md'))}\n`);
}
if (failed) process.exitCode = 1;
