// The binary fuse filter (BinaryFuseFilter, src/fuse/) measured: natively beside the figures its authors
// published, and in Node.js against CuckooFilter and BloomFilter on the real lists.
//
//   node bench/fuse.mjs                             # every part (about 12 min on 2 shared cores)
//   node bench/fuse.mjs --parts lookups,build --rounds 5 --no-write
//   bash bench/native/build.sh && node bench/fuse.mjs --parts native
//
// Parts (--parts, default native,lookups,build,fpr), each a section of bench/results/fuse.md between its
// <!-- fuse.mjs:PART --> markers; a run rewrites the sections of its parts and keeps every other line of the
// file (the findings written around them):
//   native   build/bench/fuse_bench (bench/native/fuse_bench.cc; bash bench/native/build.sh builds it) on
//            1,000,000 and 10,000,000 random 64-bit keys and on the 334,082 blocklist domains, f = 8 and 16,
//            arity 3 and 4: bits per key, ns per key built (Build from the keys' hashes), ns per query of
//            ContainHash over precomputed hashes and of Contain over the keys' bytes, members and non-members
//            apart. The best of --native-reps repetitions (Google Benchmark's min, the repetitions of all rows
//            interleaved in a random order), CPU time with wall time beside.
//   lookups  the three families on the blocklist (members: its 334,082 domains; non-members: the 204,889 of
//            benign_domains.txt) at ε = 1%, 0.1% and 0.01%: BinaryFuseFilter.build(keys, { falsePositiveRate:
//            ε, arity }) for arity 4 and 3 (f = max(8, ⌈log2 1/ε⌉): 8, 10, 14); CuckooFilter.create({ capacity:
//            n, falsePositiveRate: ε }) then addAll; BloomFilter.create({ capacity: n, falsePositiveRate: ε })
//            then addAll. Bits per key (byteLength · 8 / n), the build (or create + addAll) in ms, `has` in ns
//            per call and `hasAll(keys, out)` in ns per key for members and non-members, the false-positive
//            rate measured on the benign list. Each configuration in its own process (JIT state and garbage never
//            cross); --rounds rounds, each running every process once in a rotating order; a run builds a fresh
//            filter (timed), then times each lookup as the fastest of --passes passes; cells are the median
//            (min–max) over the rounds, ratios the median of per-round ratios to CuckooFilter at the same ε.
//   build    BinaryFuseFilter.build of 1,000,000 distinct domains (the blocklist, the benign list, then
//            cdn.<domain>, api.<domain>, … of both as bench/data.mjs derives them), f = 10, both arities, and
//            CuckooFilter.create + addAll of the same keys beside: one untimed build of each, then --build-runs
//            rounds in a rotating order; median (min–max) wall and CPU time.
//   fpr      the false-positive rate of filters of the blocklist for f = 8, 10, 12, 16 and both arities, over
//            1,000,000 distinct non-members (the benign list, then cdn.<benign>, … not in the blocklist), with
//            the 95% Wilson interval, against 2^-f; then over --fpr-synthetic more distinct strings
//            (`<i in base 36>.fpr.invalid`, a reserved TLD: none is a member) for a tighter interval.
//
// Options: --parts LIST, --rounds R (lookups; default 21), --passes P (default 3), --build-runs R (default 5),
// --fpr-synthetic N (default 16000000; 0 to skip), --native-reps R (default 9), --native-n N,N (random key
// counts; default 1000000,10000000), --native-bin PATH (default build/bench/fuse_bench), --dist DIR (default
// dist; the library is DIR/index.mjs), --data DIR (default ../shared/data), --out DIR (default bench/results),
// --no-write (print only), --help.
//
// Time: lookups and builds in Node.js are CPU time of the process (process.cpuUsage, user + system): on a
// shared machine the time a process waits for a CPU is not counted; the wall time of builds is reported too.
// Every row says the 1-minute load average (os.loadavg) while it ran. Correctness is checked, never assumed:
// every member must be found by has and by hasAll, hasAll must answer as has did, and a false negative is
// printed in bold.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, derived, locateData, readLines } from './data.mjs';
import { epsLabel, fmtInt, fmtNum, fmtPct, helpText, loadAverage, machine, madeBy, markdownTable } from './report.mjs';
import { Worker, rotate, serve } from './rounds.mjs';
import { bestOf, countTrue, cpuMs, nowMs, pairedRatio, stats, wilson } from './stats.mjs';

const PARTS = ['native', 'lookups', 'build', 'fpr'];
const { values: opt } = parseArgs({
  options: {
    parts: { type: 'string', default: PARTS.join(',') },
    rounds: { type: 'string', default: '21' },
    passes: { type: 'string', default: '3' },
    'build-runs': { type: 'string', default: '5' },
    'fpr-synthetic': { type: 'string', default: '16000000' },
    'native-reps': { type: 'string', default: '9' },
    'native-n': { type: 'string', default: '1000000,10000000' },
    'native-bin': { type: 'string', default: join(ROOT, 'build', 'bench', 'fuse_bench') },
    dist: { type: 'string', default: join(ROOT, 'dist') },
    data: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results') },
    'no-write': { type: 'boolean', default: false },
    worker: { type: 'string' }, // worker mode: a lookups configuration as JSON
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const importLib = () => import(pathToFileURL(join(opt.dist, 'index.mjs')).href);
const fresh = (keys) => JSON.parse(JSON.stringify(keys)); // flat strings, as bench/data.mjs keySet makes them
const load1 = () => +os.loadavg()[0].toFixed(2);
const loadRange = (loads) => {
  const s = stats(loads);
  return s.min === s.max ? fmtNum(s.min, 1) : `${fmtNum(s.min, 1)}–${fmtNum(s.max, 1)}`;
};
/** median (min–max) of numbers, with `d` decimals. */
const cell = (s, d = 1) => (s.median == null ? '—' : s.count > 1 && s.min !== s.max ? `${fmtNum(s.median, d)} (${fmtNum(s.min, d)}–${fmtNum(s.max, d)})` : fmtNum(s.median, d));
const ratioCell = (r) => (r.median == null ? '—' : `${fmtNum(r.median, 2)}× (${fmtNum(r.min, 2)}–${fmtNum(r.max, 2)})`);

/** The blocklist (members) and the benign domains not in it (non-members), fresh strings. */
function realKeys() {
  const files = locateData(opt.data);
  if (files.sample) throw new Error('bench/fuse.mjs needs the full lists (../shared/data or --data DIR)');
  const members = [...new Set(readLines(files.blocklist))];
  const taken = new Set(members);
  const nonMembers = readLines(files.benign).filter((d) => !taken.has(d));
  return { members: fresh(members), nonMembers: fresh([...new Set(nonMembers)]), files };
}

// ---------------------------------------------------------------------------
// lookups: one configuration per process.

/** The lookups part's configurations: for each ε, fuse four-wise, fuse three-wise, cuckoo, Bloom. */
function lookupConfigs() {
  const out = [];
  for (const eps of [0.01, 0.001, 0.0001]) {
    out.push({ family: 'fuse', arity: 4, eps }, { family: 'fuse', arity: 3, eps }, { family: 'cuckoo', eps }, { family: 'bloom', eps });
  }
  return out;
}
const configName = (c) => (c.family === 'fuse' ? `BinaryFuseFilter ${c.arity}-wise` : c.family === 'cuckoo' ? 'CuckooFilter' : 'BloomFilter');
const configKey = (c) => `${c.family}${c.arity ?? ''}@${c.eps}`;

/** Builds the configuration's filter of `keys` (the timed build). */
async function makeFilter(lib, c, keys) {
  if (c.family === 'fuse') return lib.BinaryFuseFilter.build(keys, { falsePositiveRate: c.eps, arity: c.arity });
  const cls = c.family === 'cuckoo' ? lib.CuckooFilter : lib.BloomFilter;
  const f = await cls.create({ capacity: keys.length, falsePositiveRate: c.eps });
  f.addAll(keys);
  return f;
}

/** The parameters a filter was made with, as a table cell. */
function paramsOf(f) {
  const i = f.info();
  if (i.type === 'binary-fuse') return `f=${i.fingerprintBits} segments ${fmtInt(i.segmentCount)}×${fmtInt(i.segmentLength)}`;
  if (i.type === 'cuckoo') return `f=${i.subFilters[0].fingerprintBits} b=${i.bucketSize} ${i.encoding} α=${fmtNum(i.loadFactor, 3)}`;
  return `k=${i.hashCount} m=${fmtInt(i.bitCount)} bits`;
}

async function lookupWorker(c) {
  const lib = await importLib();
  const { members, nonMembers } = realKeys();
  const outM = new Uint8Array(members.length);
  const outN = new Uint8Array(nonMembers.length);
  const passes = Number(opt.passes);
  const ctx = { filter: null };
  const has = (keys) => {
    const f = ctx.filter;
    let hits = 0;
    for (let i = 0; i < keys.length; ++i) if (f.has(keys[i])) ++hits;
    return hits;
  };
  const one = async (timed) => {
    ctx.filter?.dispose();
    ctx.filter = null;
    const r = { load: load1() };
    const w0 = nowMs();
    const c0 = cpuMs();
    ctx.filter = await makeFilter(lib, c, members);
    r.buildCpuMs = cpuMs() - c0;
    r.buildMs = nowMs() - w0;
    const f = ctx.filter;
    const best = (pass, check) => bestOf(pass, { passes: timed ? passes : 1, clock: cpuMs, check });
    const hit = best(() => has(members));
    const non = best(() => has(nonMembers));
    const all = best(() => f.hasAll(members, outM), countTrue);
    const allNon = best(() => f.hasAll(nonMembers, outN), countTrue);
    const ns = (ms, n) => (ms * 1e6) / n;
    Object.assign(r, {
      hasNs: ns(hit.ms, members.length),
      hasNonNs: ns(non.ms, nonMembers.length),
      hasAllNs: ns(all.ms, members.length),
      hasAllNonNs: ns(allNon.ms, nonMembers.length),
      falseNegatives: members.length - hit.result,
      hasAllFalseNegatives: members.length - all.result,
      falsePositives: non.result,
      hasAllDisagrees: allNon.result !== non.result,
      n: members.length,
      nonMembers: nonMembers.length,
      bytes: f.byteLength,
      bitsPerKey: (f.byteLength * 8) / members.length,
      params: paramsOf(f),
      loadEnd: load1(),
    });
    return r;
  };
  serve(
    async () => {
      await one(false); // warm-up: module load, JIT, wasm memory grown
      await one(false);
      return { info: { node: process.version } };
    },
    () => one(true),
  );
}

async function lookupsPart() {
  const configs = lookupConfigs();
  const rounds = Number(opt.rounds);
  const started = nowMs();
  const loadStart = loadAverage();
  const self = fileURLToPath(import.meta.url);
  const workers = [];
  try {
    // One process prepares at a time (loads the keys, two warm-up runs), so the preparation does not load the
    // machine more than the runs do.
    for (const c of configs) {
      const w = new Worker(configKey(c), self, ['--worker', JSON.stringify(c), ...passThrough()], { timeoutMs: 600_000 });
      workers.push(w);
      await w.ready;
    }
    const runs = Object.fromEntries(configs.map((c) => [configKey(c), []]));
    for (let round = 0; round < rounds; ++round) {
      for (const w of rotate(workers, round)) runs[w.impl].push(await w.run());
      process.stderr.write(`lookups: round ${round + 1}/${rounds}\n`);
    }
    return { configs, runs, rounds, minutes: (nowMs() - started) / 6e4, loadStart, loadEnd: loadAverage() };
  } finally {
    for (const w of workers) w.close();
  }
}

/** The options a worker needs from the parent's command line. */
function passThrough() {
  const out = ['--passes', opt.passes, '--dist', opt.dist];
  if (opt.data) out.push('--data', opt.data);
  return out;
}

function lookupsReport(res) {
  const { configs, runs } = res;
  const row = (c) => {
    const rs = runs[configKey(c)];
    const s = (k) => stats(rs.map((r) => r[k]));
    const cuckoo = runs[configKey({ family: 'cuckoo', eps: c.eps })];
    return { c, rs, s, cuckoo, first: rs[0] };
  };
  const checks = [];
  for (const c of configs) {
    for (const r of runs[configKey(c)]) {
      if (r.falseNegatives || r.hasAllFalseNegatives) checks.push(`**${configName(c)} at ε = ${epsLabel(c.eps)}: ${r.falseNegatives} false negatives by has, ${r.hasAllFalseNegatives} by hasAll**`);
      if (r.hasAllDisagrees) checks.push(`**${configName(c)} at ε = ${epsLabel(c.eps)}: hasAll's false positives differ from has's**`);
    }
  }
  const lines = [];
  lines.push(
    `Made by ${madeBy('fuse.mjs')} (part lookups) in ${fmtNum(res.minutes, 1)} min on ${describeMachine()}; load average ${res.loadStart.join(' ')} at start, ${res.loadEnd.join(' ')} at end. ` +
      `Members: the ${fmtInt(configs.length && runs[configKey(configs[0])][0].n)} domains of blocklist_domains.txt; non-members: the ${fmtInt(runs[configKey(configs[0])][0].nonMembers)} of benign_domains.txt. ` +
      `${res.rounds} rounds; each configuration in its own process (two untimed warm-up runs), the processes taking turns in a rotating order; a run builds a fresh filter, then times each lookup as the fastest of ${opt.passes} passes. ` +
      `CPU time (user + system) of the process; cells are the median (min–max) over the rounds; "/ cuckoo" is the median of per-round ratios to CuckooFilter at the same ε (below 1: faster). Load: the 1-minute load average at the start of each run (min–max).`,
  );
  lines.push('');
  lines.push(checks.length ? checks.join('\n') : 'Checks: every run found every member by `has` and by `hasAll`, and `hasAll` reported the same false positives as `has`.');
  // The ε = 0.1% comparison (targets).
  lines.push('', '### ε ≤ 0.1%: BinaryFuseFilter against CuckooFilter', '');
  const head = ['filter', 'parameters', 'bits/key', 'bytes', 'has ns members', '/ cuckoo', 'has ns non-members', '/ cuckoo', 'hasAll ns/key members', '/ cuckoo', 'hasAll ns/key non-members', '/ cuckoo', 'load'];
  const rows = [];
  for (const c of configs.filter((x) => x.eps === 0.001 && x.family !== 'bloom')) {
    const { rs, s, cuckoo, first } = row(c);
    const vs = (k) => (c.family === 'cuckoo' ? '1' : ratioCell(pairedRatio(rs, cuckoo, k)));
    rows.push([configName(c), first.params, fmtNum(first.bitsPerKey, 2), fmtInt(first.bytes), cell(s('hasNs')), vs('hasNs'), cell(s('hasNonNs')), vs('hasNonNs'), cell(s('hasAllNs')), vs('hasAllNs'), cell(s('hasAllNonNs')), vs('hasAllNonNs'), loadRange(rs.map((r) => r.load))]);
  }
  lines.push(markdownTable(head, rows));
  // The three families (docs/choosing-a-filter.md's table).
  lines.push('', '### The three families at ε = 1%, 0.1%, 0.01% (334,082 blocklist domains)', '');
  const head3 = ['ε', 'filter', 'parameters', 'bits/key', 'has ns members', 'has ns non-members', 'hasAll ns/key members', 'hasAll ns/key non-members', 'false positives (benign)', 'build ms', 'load'];
  const rows3 = [];
  for (const c of configs) {
    const { rs, s, first } = row(c);
    const fp = first.falsePositives;
    const [lo, hi] = wilson(fp, first.nonMembers);
    rows3.push([
      epsLabel(c.eps),
      configName(c),
      first.params,
      fmtNum(first.bitsPerKey, 2),
      cell(s('hasNs')),
      cell(s('hasNonNs')),
      cell(s('hasAllNs')),
      cell(s('hasAllNonNs')),
      `${fmtPct(fp / first.nonMembers)} (${fmtPct(lo)}–${fmtPct(hi)})`,
      cell(s('buildCpuMs'), 0),
      loadRange(rs.map((r) => r.load)),
    ]);
  }
  lines.push(markdownTable(head3, rows3));
  // The same rows, medians only, in the shape docs/choosing-a-filter.md shows them.
  lines.push('', '#### The same, medians only (for docs/choosing-a-filter.md)', '');
  const compact = configs.map((c) => {
    const { rs, s, first } = row(c);
    const m = (k, d = 0) => fmtNum(s(k).median, d);
    return [epsLabel(c.eps), configName(c), fmtNum(first.bitsPerKey, 1), `${m('hasNs')} / ${m('hasNonNs')}`, `${m('hasAllNs')} / ${m('hasAllNonNs')}`, fmtPct(first.falsePositives / first.nonMembers), m('buildCpuMs'), loadRange(rs.map((r) => r.load))];
  });
  lines.push(markdownTable(['ε', 'filter', 'bits/key', 'has ns (members / non-members)', 'hasAll ns/key (members / non-members)', 'measured ε (benign)', 'build ms', 'load'], compact));
  lines.push(
    '',
    'Bits per key: the serialized size (`byteLength`, header and checksum included) × 8 / 334,082. False positives: of the 204,889 benign domains, with the 95% Wilson interval; ' +
      'a fuse filter\'s rate is 2^-f (0.39%, 0.098%, 0.0061% for f = 8, 10, 14). Build: CPU ms of `BinaryFuseFilter.build(keys, options)`, or of `create` + `addAll(keys)`, from the same array of strings; the wall times are in tmp/fuse-lookups.json.',
  );
  return lines.join('\n');
}

// ---------------------------------------------------------------------------
// build: 1,000,000 domains.

function millionKeys() {
  const files = locateData(opt.data);
  const real = [...new Set([...readLines(files.blocklist), ...readLines(files.benign)])];
  const taken = new Set(real);
  const keys = real.slice();
  for (const k of derived(real, taken)) {
    if (keys.length >= 1_000_000) break;
    taken.add(k);
    keys.push(k);
  }
  return { keys: fresh(keys), real: real.length };
}

async function buildPart() {
  const lib = await importLib();
  const { keys, real } = millionKeys();
  const loadStart = loadAverage();
  const started = nowMs();
  const configs = [
    { name: 'BinaryFuseFilter 4-wise, f = 10', make: () => lib.BinaryFuseFilter.build(keys, { falsePositiveRate: 0.001, arity: 4 }) },
    { name: 'BinaryFuseFilter 3-wise, f = 10', make: () => lib.BinaryFuseFilter.build(keys, { falsePositiveRate: 0.001, arity: 3 }) },
    {
      name: 'CuckooFilter ε = 0.1% (create + addAll)',
      make: async () => {
        const f = await lib.CuckooFilter.create({ capacity: keys.length, falsePositiveRate: 0.001 });
        f.addAll(keys);
        return f;
      },
    },
  ];
  const runs = configs.map(() => []);
  const checks = [];
  const out = new Uint8Array(keys.length);
  const runs0 = Number(opt['build-runs']);
  for (let round = -1; round < runs0; ++round) {
    const order = round < 0 ? configs.map((_, i) => i) : rotate(configs.map((_, i) => i), round);
    for (const i of order) {
      globalThis.gc?.();
      const load = load1();
      const w0 = nowMs();
      const c0 = cpuMs();
      const f = await configs[i].make();
      const r = { cpuMs: cpuMs() - c0, ms: nowMs() - w0, load, bits: (f.byteLength * 8) / keys.length };
      if (round === runs0 - 1) {
        const found = countTrue(f.hasAll(keys, out));
        if (found !== keys.length) checks.push(`**${configs[i].name}: ${keys.length - found} of the keys not found**`);
        r.found = found;
      }
      f.dispose();
      if (round >= 0) runs[i].push(r);
    }
  }
  const lines = [];
  lines.push(
    `Made by ${madeBy('fuse.mjs')} (part build) in ${fmtNum((nowMs() - started) / 6e4, 1)} min on ${describeMachine()}; load average ${loadStart.join(' ')} at start, ${loadAverage().join(' ')} at end. ` +
      `Keys: 1,000,000 distinct domains, one array of fresh strings: the ${fmtInt(real)} of blocklist_domains.txt and benign_domains.txt, then ${fmtInt(keys.length - real)} derived from them (cdn.<domain>, api.<domain>, …, as bench/data.mjs derives keys). ` +
      `One untimed build of each first, then ${runs0} rounds in a rotating order; median (min–max) over the rounds. Wall: the call's elapsed time (a promise: \`await\`ed); CPU: the process's user + system time over it. Target: BinaryFuseFilter.build of 1,000,000 domains in ≤ 1 s.`,
  );
  lines.push('');
  lines.push(checks.length ? checks.join('\n') : 'Checks: after the last round, `hasAll` of the 1,000,000 keys found every one in each filter.');
  lines.push('');
  const rows = configs.map((c, i) => {
    const w = stats(runs[i].map((r) => r.ms));
    const cpu = stats(runs[i].map((r) => r.cpuMs));
    return [c.name, cell(w, 0), cell(cpu, 0), fmtNum((cpu.median * 1e6) / keys.length, 0), fmtNum(runs[i][0].bits, 2), loadRange(runs[i].map((r) => r.load))];
  });
  lines.push(markdownTable(['build of 1,000,000 domains', 'wall ms', 'CPU ms', 'CPU ns/key', 'bits/key', 'load'], rows));
  return { text: lines.join('\n'), raw: { runs, names: configs.map((c) => c.name) } };
}

// ---------------------------------------------------------------------------
// fpr: measured false-positive rates against 2^-f.

async function fprPart() {
  const lib = await importLib();
  const files = locateData(opt.data);
  const members = fresh([...new Set(readLines(files.blocklist))]);
  const memberSet = new Set(members);
  const benign = [...new Set(readLines(files.benign))].filter((d) => !memberSet.has(d));
  const taken = new Set([...members, ...benign]);
  const nonMembers = benign.slice(0, 1_000_000);
  for (const k of derived(benign, taken)) {
    if (nonMembers.length >= 1_000_000) break;
    taken.add(k);
    nonMembers.push(k);
  }
  const non = fresh(nonMembers);
  const loadStart = loadAverage();
  const started = nowMs();
  const filters = [];
  for (const f of [8, 10, 12, 16]) {
    for (const arity of [4, 3]) filters.push({ f, arity, filter: await lib.BinaryFuseFilter.build(members, { fingerprintBits: f, arity }), hits: 0, synth: 0 });
  }
  const out = new Uint8Array(non.length);
  let fn = 0;
  const memberOut = new Uint8Array(members.length);
  for (const x of filters) {
    x.hits = countTrue(x.filter.hasAll(non, out));
    fn += members.length - countTrue(x.filter.hasAll(members, memberOut));
  }
  const synthetic = Number(opt['fpr-synthetic']);
  const chunk = 1_000_000;
  const outS = new Uint8Array(chunk);
  let synthCount = 0;
  for (let from = 0; from < synthetic; from += chunk) {
    const keys = [];
    for (let i = from; i < Math.min(synthetic, from + chunk); ++i) keys.push(`${i.toString(36)}.fpr.invalid`);
    for (const k of keys) if (memberSet.has(k)) throw new Error(`synthetic non-member ${k} is a member`);
    for (const x of filters) x.synth += countTrue(x.filter.hasAll(keys, outS.subarray(0, keys.length)));
    synthCount += keys.length;
  }
  const rows = filters.map((x) => {
    const p = 2 ** -x.f;
    const q = x.hits / non.length;
    const [lo, hi] = wilson(x.hits, non.length);
    const r = [`${x.f}`, `${x.arity}`, fmtPct(p), fmtInt(x.hits), fmtPct(q), `${fmtPct(lo)}–${fmtPct(hi)}`, fmtNum(q / p, 3), Math.abs(q / p - 1) <= 0.1 ? 'yes' : '**no**', lo <= p && p <= hi ? 'yes' : '**no**'];
    if (synthCount) {
      const qs = x.synth / synthCount;
      const [slo, shi] = wilson(x.synth, synthCount);
      r.push(fmtInt(x.synth), fmtPct(qs), `${fmtPct(slo)}–${fmtPct(shi)}`, fmtNum(qs / p, 3), Math.abs(qs / p - 1) <= 0.1 ? 'yes' : '**no**');
    }
    return r;
  });
  for (const x of filters) x.filter.dispose();
  const head = ['f', 'arity', '2^-f', 'false positives / 1,000,000', 'measured', '95% interval', 'measured / 2^-f', 'within 10%', '2^-f in the interval'];
  if (synthCount) head.push(`false positives / ${fmtInt(synthCount)} synthetic`, 'measured', '95% interval', 'measured / 2^-f', 'within 10%');
  const lines = [];
  lines.push(
    `Made by ${madeBy('fuse.mjs')} (part fpr) in ${fmtNum((nowMs() - started) / 6e4, 1)} min on ${describeMachine()}; load average ${loadStart.join(' ')} at start, ${loadAverage().join(' ')} at end (rates do not depend on it). ` +
      `Filters: BinaryFuseFilter.build of the ${fmtInt(members.length)} blocklist domains with \`fingerprintBits\` f and \`arity\`. Non-members: 1,000,000 distinct domains, none in the blocklist: the ${fmtInt(Math.min(benign.length, 1_000_000))} benign domains, then ${fmtInt(1_000_000 - Math.min(benign.length, 1_000_000))} derived from them (cdn.<domain>, …)` +
      (synthCount ? `; then ${fmtInt(synthCount)} synthetic strings \`<i in base 36>.fpr.invalid\` (i = 0, 1, …; the reserved TLD .invalid: none is a member).` : '.') +
      ` Interval: 95% Wilson score. Checks: ${fn === 0 ? 'every filter found all members (hasAll)' : `**${fn} false negatives**`}.`,
  );
  lines.push('', markdownTable(head, rows));
  return lines.join('\n');
}

// ---------------------------------------------------------------------------
// native: build/bench/fuse_bench.

/** fuse_bench's key sets: --native-n random ones, then the blocklist. */
const nativeSets = () => [
  ...opt['native-n'].split(',').map((n) => ({ name: `${fmtInt(Number(n))} random 64-bit keys`, args: ['--keys=random', `--n=${Number(n)}`] })),
  { name: 'the 334,082 blocklist domains (non-members: the 204,889 benign domains)', args: ['--keys=blocklist'] },
];

function nativePart() {
  if (!existsSync(opt['native-bin'])) throw new Error(`${opt['native-bin']} not found: bash bench/native/build.sh builds it`);
  const started = nowMs();
  const out = [];
  for (const set of nativeSets()) {
    const loadStart = loadAverage();
    const p = spawnSync(opt['native-bin'], [...set.args, `--benchmark_repetitions=${opt['native-reps']}`, '--benchmark_enable_random_interleaving=true', '--benchmark_report_aggregates_only=true', '--benchmark_format=json'], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    if (p.status !== 0) throw new Error(`fuse_bench ${set.args.join(' ')} failed: ${p.stderr.slice(-2000)}`);
    // Google Benchmark writes NaN (the cv of a counter whose mean is 0) and inf, which JSON has not.
    const json = JSON.parse(p.stdout.replace(/:\s*-?(?:nan|NaN|inf)\b/g, ': null'));
    const min = {};
    // The min aggregate of each row (a single repetition has no aggregates: its one run).
    for (const b of json.benchmarks) {
      if (b.aggregate_name === 'min' || (b.run_type === 'iteration' && opt['native-reps'] === '1')) min[b.run_name.replace(/\/(iterations:1\/)?real_time$/, '')] = b;
    }
    out.push({ set, min, context: json.context, loadStart, loadEnd: loadAverage(), keysLine: p.stderr.split('\n').find((l) => l.startsWith('keys:')) });
    process.stderr.write(`native: ${set.name} done\n`);
  }
  const lines = [];
  const ctx = out[0].context;
  lines.push(
    `Made by ${madeBy('fuse.mjs')} (part native) in ${fmtNum((nowMs() - started) / 6e4, 1)} min: build/bench/fuse_bench (bench/native/fuse_bench.cc, g++ ${gccVersion()} -O3, no -march; Google Benchmark ${ctx.library_build_type === 'debug' ? '(Debian\'s library, built as debug: its own timing loop, not the code timed)' : ''}) on ${describeMachine()}. ` +
      `Each cell is the best (Google Benchmark's min) of ${opt['native-reps']} repetitions, the repetitions of all rows run in a random interleaved order (--benchmark_enable_random_interleaving), so that a disturbance of a few seconds does not hit every repetition of one row: ns per key of CPU time (the process's, which leaves out the time it waited for a CPU on this shared machine) and, in parentheses, of wall time. A repetition of a lookup row is one or more passes over all keys, of a build row one Build; ns per key = a pass's time / its keys.`,
  );
  for (const r of out) {
    const sort = r.min.BM_SortUnique;
    lines.push('', `#### ${r.set.name}`, '');
    lines.push(`\`${relative(ROOT, opt['native-bin'])} ${r.set.args.join(' ')}\`; ${r.keysLine ?? ''}; load average ${r.loadStart.join(' ')} at start, ${r.loadEnd.join(' ')} at end.`, '');
    const rows = [];
    for (const f of [8, 16]) {
      for (const a of [3, 4]) {
        const tag = `/f:${f}/arity:${a}`;
        const b = r.min[`BM_Build${tag}`];
        // ns per key, CPU (wall): the CPU time of the best repetition's iteration, scaled as its wall time.
        const ns = (row, d = 1) => (row ? `${fmtNum((row.ns_per_key * row.cpu_time) / row.real_time, d)} (${fmtNum(row.ns_per_key, d)})` : '—');
        const g = (name) => ns(r.min[`${name}${tag}`]);
        const non = r.min[`BM_ContainHashNonMembers${tag}`];
        const fnTotal = ['BM_Build', 'BM_ContainHashMembers', 'BM_ContainMembers'].reduce((x, name) => x + (r.min[`${name}${tag}`]?.false_negatives ?? 0), 0);
        rows.push([
          `BinaryFuse${f} ${a}-wise`,
          fmtNum(b.bits_per_key, 2),
          fmtNum(b.slots_per_key, 4),
          ns(b, 0),
          g('BM_ContainHashMembers'),
          g('BM_ContainHashNonMembers'),
          g('BM_ContainMembers'),
          g('BM_ContainNonMembers'),
          fmtPct(non.fpr),
          fmtInt(b.attempts),
          fnTotal === 0 ? '0' : `**${fnTotal}**`,
        ]);
      }
    }
    lines.push(
      markdownTable(
        ['filter', 'bits/key', 'slots/key', 'build ns/key', 'ContainHash ns, members', 'ContainHash ns, non-members', 'Contain ns, members', 'Contain ns, non-members', 'measured ε', 'attempts', 'false neg.'],
        rows,
      ),
    );
    if (sort) {
      const cpu = (sort.ns_per_key * sort.cpu_time) / sort.real_time;
      lines.push('', `Of the build: std::sort + std::unique of the same ${fmtInt(sort.distinct)} hashes alone (BM_SortUnique), ${fmtNum(cpu, 0)} (${fmtNum(sort.ns_per_key, 0)}) ns/key.`);
    }
  }
  return { text: lines.join('\n'), raw: out.map((r) => ({ set: r.set.name, min: r.min, loadStart: r.loadStart, loadEnd: r.loadEnd })) };
}

function gccVersion() {
  const p = spawnSync('g++', ['-dumpfullversion'], { encoding: 'utf8' });
  return p.status === 0 ? p.stdout.trim() : '?';
}

function describeMachine() {
  const m = machine();
  return `${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}), Node.js ${m.node}`;
}

// ---------------------------------------------------------------------------
// The results file: each part's section between its markers; other lines kept.

const TITLES = {
  native: 'Native core beside the paper',
  lookups: 'Node.js: size, lookups and builds against CuckooFilter and BloomFilter',
  build: 'Node.js: building from 1,000,000 domains',
  fpr: 'False-positive rate against 2^-f',
};

function writeSections(path, sections) {
  let text = existsSync(path) ? readFileSync(path, 'utf8') : '# Binary fuse filters: measured\n';
  for (const part of PARTS) {
    if (!(part in sections)) continue;
    const begin = `<!-- fuse.mjs:${part} -->`;
    const end = `<!-- /fuse.mjs:${part} -->`;
    const body = `${begin}\n${sections[part]}\n${end}`;
    const a = text.indexOf(begin);
    const b = text.indexOf(end);
    if (a >= 0 && b > a) text = text.slice(0, a) + body + text.slice(b + end.length);
    else text = `${text.trimEnd()}\n\n## ${TITLES[part]}\n\n${body}\n`;
  }
  writeFileSync(path, text.endsWith('\n') ? text : `${text}\n`);
}

async function main() {
  if (opt.help) {
    console.log(helpText(import.meta.url, '\nimport'));
    return;
  }
  if (opt.worker) {
    await lookupWorker(JSON.parse(opt.worker));
    return;
  }
  const parts = opt.parts.split(',');
  for (const p of parts) if (!PARTS.includes(p)) throw new Error(`--parts: unknown '${p}' (${PARTS.join(', ')})`);
  const sections = {};
  const raw = {};
  for (const p of PARTS.filter((x) => parts.includes(x))) {
    process.stderr.write(`part ${p}: load average ${loadAverage().join(' ')}\n`);
    if (p === 'native') ({ text: sections.native, raw: raw.native } = nativePart());
    if (p === 'lookups') {
      const res = await lookupsPart();
      sections.lookups = lookupsReport(res);
      raw.lookups = res;
    }
    if (p === 'build') ({ text: sections.build, raw: raw.build } = await buildPart());
    if (p === 'fpr') sections.fpr = await fprPart();
    console.log(`\n## ${TITLES[p]}\n\n${sections[p]}\n`);
  }
  if (!opt['no-write']) {
    mkdirSync(join(opt.out, 'tmp'), { recursive: true });
    for (const [p, r] of Object.entries(raw)) writeFileSync(join(opt.out, 'tmp', `fuse-${p}.json`), JSON.stringify(r, null, 1));
    writeSections(join(opt.out, 'fuse.md'), sections);
    process.stderr.write(`wrote ${relative(process.cwd(), join(opt.out, 'fuse.md'))}\n`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
