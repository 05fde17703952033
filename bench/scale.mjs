// Lookups as lists grow: every family at 10^5, 10^6 and 10^7 keys (and 3·10^7 with --n), in Node.js and natively.
//
//   node bench/scale.mjs                                    # Node.js and native, 10^5 .. 10^7 (about 10 min)
//   node bench/scale.mjs --n 100000,1000000,10000000,30000000 --rounds 5
//   node bench/scale.mjs --dist before=/tmp/before-dist,after=dist \
//     --native-bin before=/tmp/before/scale_bench,after=build/bench/scale_bench   # two builds interleaved
//   node bench/scale.mjs --families cuckoo,bloom --n 1000000,10000000 --no-native
//
// For each N, --procs new Node.js processes (bench/scale.mjs --worker) one after another each make every family's
// filter of N keys and a second one of the same keys as URL entries, then time, in --rounds rounds, each cell as
// the fastest of --passes passes (CPU time of the process, process.cpuUsage: time spent waiting for a CPU on a
// shared machine is not counted), the builds of --dist alternating their order round by round; cells are medians
// over the rounds of all the processes (a table of 10^7 keys costs what the host's shared last-level cache leaves
// it: the same build's wasm batch at 10^7 differed by up to 1.8× from one process to the next, so one process is
// not enough; each process's own hasAll median is printed below its table):
//   table        the filter's toBytes() length
//   has          ns per call: a loop of has(q) over the queries
//   hasAll       ns per key: hasAll(queries, out) into a Uint8Array
//   hasAllUrls   ns per URL: hasAllUrls(urlQueries, out), on the filter of the keys as URL entries
//   URL probes   ns per URL: hasAll(probes, out) on the same filter, probes the expressions hasAllUrls looks up (each
//                URL's, in urlExpressions' order, up to the first the filter may hold): hasAllUrls less this is
//                the URL batch's own work (canonicalizing, the expressions, the URLs' rounds)
//   wasm batch   ns per key: the core's batch lookup alone, as hasAll calls it (<family>_contain_batch through
//                dist/testing.mjs's rawBoundary, chunk by chunk as hasAll cuts them, each chunk's bytes encoded
//                beforehand and copied into one region): hasAll less this is its JavaScript side (reading and
//                encoding the strings, the answers)
//   bloomfilter  ns per call: test(q) of the npm package bloomfilter (bench/node_modules; m = ⌈−N ln ε / ln²2⌉,
//                k = round(m/N · ln 2): 10 at ε = 0.1%), left out if it is not installed
// and natively build/bench/scale_bench (bench/native/scale_bench.cc: bash bench/native/build.sh builds it) on the
// same keys: ContainBatch in chunks of 8192 keys (the loop hasAll's chunks run in wasm), Contain per key, the
// URL batch's loop, and "native load": the memory's floor, ns per byte loaded from a random place of a buffer of
// the table's size with as many loads in flight as the CPU allows (a lookup that reads L cache lines per key
// costs at least L times it), and "native latency": ns per load of a chain of loads, each place read from the one
// before (what a round of a batch that waits on its last round pays, once per group); the median over its --reps,
// over --native-runs runs (the binaries of --native-bin alternating).
// Families: cuckoo (CuckooFilter.create({ capacity: N, falsePositiveRate: ε }): b = 4, f = 13, semi-sorted, the
// default), cuckoo-packed (the same, semiSort: false), bloom (BloomFilter, ε), redis-cf (RedisCuckooFilter,
// CF.RESERVE N with bucket size 2: it grows a second sub-filter before the last key), redis-bf
// (RedisBloomFilter, BF.RESERVE ε N NONSCALING), fuse (BinaryFuseFilter.build(keys, { falsePositiveRate: ε }):
// f = 10, arity 4). ε = --eps (0.001).
// Keys: member i is line i of blocklist_domains.txt and past its L lines `<label>.<line i mod L>`, the label of
// round floor(i / L) (data.mjs deriveLabel); non-members are the benign lines that are no member. --queries Q
// (200,000): Q/2 members evenly spaced over the N, the first Q/2 non-members, interleaved. URL queries:
// `https://<query>/<tail>` with tail i mod 4 of '', 'index.html', 'a/b/c.php?x=1', 'login#top'. Every answer is
// checked: each member found by has, hasAll and hasAllUrls, hasAll answering as has, hasAllUrls as its URL probes,
// every build alike.
// Prints Markdown: the date, the machine, the load average (1, 5, 15 min) at the start and end of each N; per
// build a table of every cell, the ratios 10^7 / 10^6 (and 3·10^7 / 10^6) against the goals (hasAll and
// hasAllUrls ≤ 1.5× in Node.js, the native batch ≤ 2×), and with two builds the second's cells over the first's (median of
// per-round ratios). --json FILE also writes the raw figures. Round -1 is a warm-up, not kept.
// Options: --n LIST, --families LIST, --eps E, --queries Q, --rounds R (5), --passes P (3), --procs P (3), --dist LABEL=DIR,...
// (default after=dist), --native-bin LABEL=PATH,... (default the build's), --native-runs R (3), --native-reps R
// (5), --no-native, --no-node, --no-urls, --data DIR, --json FILE, --help.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, deriveLabel, locateData, readLines } from './data.mjs';
import { helpText, loadAverage, machine, markdownTable } from './report.mjs';

const FAMILIES = ['cuckoo', 'cuckoo-packed', 'bloom', 'redis-cf', 'redis-bf', 'fuse'];
const { values: opt } = parseArgs({
  options: {
    n: { type: 'string', default: '100000,1000000,10000000' },
    families: { type: 'string', default: FAMILIES.join(',') },
    eps: { type: 'string', default: '0.001' },
    queries: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '5' },
    procs: { type: 'string', default: '3' },
    passes: { type: 'string', default: '3' },
    dist: { type: 'string', default: `after=${join(ROOT, 'dist')}` },
    'native-bin': { type: 'string' },
    'native-runs': { type: 'string', default: '3' },
    'native-reps': { type: 'string', default: '5' },
    'no-native': { type: 'boolean', default: false },
    'no-node': { type: 'boolean', default: false },
    'no-urls': { type: 'boolean', default: false },
    data: { type: 'string' },
    json: { type: 'string' },
    worker: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opt.help) {
  console.log(helpText(import.meta.url, 'import '));
  process.exit(0);
}

const eps = Number(opt.eps);
const families = opt.families.split(',').filter(Boolean);
for (const f of families) if (!FAMILIES.includes(f)) throw new Error(`--families: ${f} is not one of ${FAMILIES.join(', ')}`);
/** `label=path,...` as [label, path] pairs. */
const labelled = (text) =>
  text.split(',').filter(Boolean).map((item) => {
    const at = item.indexOf('=');
    return at < 0 ? [item, resolve(item)] : [item.slice(0, at), resolve(item.slice(at + 1))];
  });
const TAILS = ['', 'index.html', 'a/b/c.php?x=1', 'login#top'];

// ---------------------------------------------------------------------------
// The keys (bench/native/scale_bench.cc has the same rule).

function workload(n, queryCount) {
  const { blocklist, benign } = locateData(opt.data);
  const list = readLines(blocklist);
  const member = (i) => (i < list.length ? list[i] : `${deriveLabel(Math.floor(i / list.length))}.${list[i % list.length]}`);
  const listed = new Set(list);
  const labels = new Set();
  for (let r = 1; r <= Math.floor((n - 1) / list.length); r++) labels.add(deriveLabel(r));
  const half = Math.floor(queryCount / 2);
  const others = [];
  for (const d of readLines(benign)) {
    if (others.length === half) break;
    if (listed.has(d)) continue;
    const dot = d.indexOf('.');
    if (dot >= 0 && labels.has(d.slice(0, dot)) && listed.has(d.slice(dot + 1))) continue;
    others.push(d);
  }
  if (others.length < half) throw new Error(`only ${others.length} non-members`);
  const queries = [];
  for (let j = 0; j < half; j++) {
    queries.push(member(Math.floor((j * n) / half)));
    queries.push(others[j]);
  }
  const urlQueries = queries.map((q, i) => `https://${q}/${TAILS[i % TAILS.length]}`);
  function* members() {
    for (let i = 0; i < n; i++) yield member(i);
  }
  // Fresh, flat strings (a template literal makes a rope).
  return { members, queries: JSON.parse(JSON.stringify(queries)), urlQueries: JSON.parse(JSON.stringify(urlQueries)) };
}

// ---------------------------------------------------------------------------
// Worker: one N, every family, every build.

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
/** ns per item of fn() over `count` items: the fastest of `passes` passes, in CPU time. */
function time(fn, count, passes) {
  let best = Infinity;
  for (let p = 0; p < passes; p++) {
    const t = cpuNs();
    fn();
    best = Math.min(best, cpuNs() - t);
  }
  return best / count;
}

async function make(lib, family, n, members, urls) {
  const keys = urls ? undefined : members();
  switch (family) {
    case 'cuckoo':
    case 'cuckoo-packed': {
      const f = await lib.CuckooFilter.create({ capacity: n, falsePositiveRate: eps, semiSort: family === 'cuckoo' });
      urls ? f.addUrls(members()) : f.addAll(keys);
      return f;
    }
    case 'bloom': {
      const f = await lib.BloomFilter.create({ capacity: n, falsePositiveRate: eps });
      urls ? f.addUrls(members()) : f.addAll(keys);
      return f;
    }
    case 'redis-cf': {
      const f = await lib.RedisCuckooFilter.create({ capacity: n, bucketSize: 2 });
      urls ? f.addUrls(members()) : f.addAll(keys);
      return f;
    }
    case 'redis-bf': {
      const f = await lib.RedisBloomFilter.create({ errorRate: eps, capacity: n, nonScaling: true });
      urls ? f.addUrls(members()) : f.addAll(keys);
      return f;
    }
    case 'fuse':
      return lib.BinaryFuseFilter.build(members(), { falsePositiveRate: eps, urls });
  }
  throw new Error(family);
}
/**
 * The core's batch lookup of `f` alone, without hasAll's JavaScript side: `queries` encoded beforehand and cut into
 * chunks where hasAll cuts them (dist/testing.mjs's batchChunkEnds); run() copies each chunk's bytes and offsets
 * into one region of wasm memory, as hasAll writes its chunks, and looks them up (answers() also collects the
 * answers); free() gives the region back.
 */
async function wasmBatch(dir, f, queries) {
  const { rawBoundary, batchChunkEnds } = await import(pathToFileURL(join(dir, 'testing.mjs')).href);
  const raw = await rawBoundary();
  const handle = raw.handleOf(f);
  const contain = raw.exports[`${raw.prefixOf(f)}_contain_batch`];
  const encoder = new TextEncoder();
  const chunks = [];
  let most = 0;
  let mostKeys = 0;
  let at = 0;
  for (const end of batchChunkEnds(queries)) {
    const keys = queries.slice(at, end).map((q) => encoder.encode(q));
    const offsets = new Uint32Array(keys.length + 1);
    keys.forEach((k, i) => (offsets[i + 1] = offsets[i] + k.length));
    const bytes = new Uint8Array(offsets[keys.length]);
    keys.forEach((k, i) => bytes.set(k, offsets[i]));
    chunks.push({ bytes, offsets });
    most = Math.max(most, bytes.length);
    mostKeys = Math.max(mostKeys, keys.length);
    at = end;
  }
  const keysPtr = raw.malloc(most);
  const offsetsPtr = raw.malloc(4 * (mostKeys + 1));
  const resultsPtr = raw.malloc(mostKeys);
  if (!keysPtr || !offsetsPtr || !resultsPtr) throw new Error('wasm batch: out of wasm memory');
  const lookUp = (each) => {
    // Views taken after the mallocs, which may have grown memory; nothing grows it below.
    const heap = raw.heapU8();
    const heap32 = raw.heapU32();
    for (const c of chunks) {
      heap.set(c.bytes, keysPtr);
      heap32.set(c.offsets, offsetsPtr >>> 2);
      contain(handle, keysPtr, offsetsPtr, c.offsets.length - 1, resultsPtr);
      each?.(heap.slice(resultsPtr, resultsPtr + c.offsets.length - 1));
    }
  };
  return {
    run: () => lookUp(),
    answers() {
      const parts = [];
      lookUp((part) => parts.push(part));
      return Buffer.concat(parts);
    },
    free() {
      for (const ptr of [keysPtr, offsetsPtr, resultsPtr]) raw.free(ptr);
    },
  };
}
const CLASS = { cuckoo: 'CuckooFilter', 'cuckoo-packed': 'CuckooFilter', bloom: 'BloomFilter', 'redis-cf': 'RedisCuckooFilter', 'redis-bf': 'RedisBloomFilter', fuse: 'BinaryFuseFilter' };

// The expressions hasAllUrls looks up for each URL, as keys: its expressions in urlExpressions' order up to the
// first the filter may hold (all of them if none), fresh flat strings; URL i's are keys[ends[i - 1] .. ends[i])
// (from 0 for the first).
async function probedExpressions(lib, filter, urlQueries) {
  const keys = [];
  const ends = new Uint32Array(urlQueries.length);
  for (let i = 0; i < urlQueries.length; i++) {
    for (const e of await lib.urlExpressions(urlQueries[i])) {
      keys.push(e);
      if (filter.has(e)) break;
    }
    ends[i] = keys.length;
  }
  return { keys: JSON.parse(JSON.stringify(keys)), ends };
}

async function worker(config) {
  const { n, queryCount, dists, rounds, passes, urls } = config;
  const { members, queries, urlQueries } = workload(n, queryCount);
  const libs = [];
  for (const [label, dir] of dists) libs.push({ label, lib: await import(pathToFileURL(join(dir, 'index.mjs')).href) });
  const count = queries.length;
  // Each family's filters in every build: made in the first, loaded from its bytes in the others.
  const subjects = [];
  for (const family of config.families) {
    const s = { family, builds: [] };
    const first = await make(libs[0].lib, family, n, members, false);
    const firstUrls = urls ? await make(libs[0].lib, family, n, members, true) : null;
    const bytes = first.toBytes();
    const urlBytes = firstUrls?.toBytes();
    s.bytes = bytes.length;
    for (let i = 0; i < libs.length; i++) {
      const cls = libs[i].lib[CLASS[family]];
      const f = i === 0 ? first : await cls.fromBytes(bytes);
      const u = !urls ? null : i === 0 ? firstUrls : await cls.fromBytes(urlBytes);
      s.builds.push({ f, u, w: await wasmBatch(dists[i][1], f, queries) });
    }
    if (urls) s.probes = await probedExpressions(libs[0].lib, firstUrls, urlQueries);
    subjects.push(s);
  }
  let bloomfilter = null;
  if (config.bloomfilter) {
    try {
      const { BloomFilter } = createRequire(import.meta.url)('bloomfilter');
      const m = Math.ceil((-n * Math.log(eps)) / (Math.LN2 * Math.LN2));
      const k = Math.max(1, Math.round((m / n) * Math.LN2));
      bloomfilter = new BloomFilter(m, k);
      for (const key of members()) bloomfilter.add(key);
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  // Answers: every member found, hasAll as has, every build alike.
  const out = new Uint8Array(count);
  const urlOut = new Uint8Array(count);
  for (const s of subjects) {
    let reference = null;
    for (const b of s.builds) {
      const single = Uint8Array.from(queries, (q) => (b.f.has(q) ? 1 : 0));
      b.f.hasAll(queries, out);
      if (Buffer.compare(single, out) !== 0) throw new Error(`${s.family}: hasAll answers differently from has`);
      b.w.run();
      if (Buffer.compare(b.w.answers(), out) !== 0) throw new Error(`${s.family}: the wasm batch answers differently from hasAll`);
      const answers = [Buffer.from(out)];
      if (b.u) {
        answers.push(Buffer.from(b.u.hasAllUrls(urlQueries, urlOut)));
        const probed = b.u.hasAll(s.probes.keys, new Uint8Array(s.probes.keys.length));
        for (let i = 0; i < count; i++) {
          const some = probed.subarray(i > 0 ? s.probes.ends[i - 1] : 0, s.probes.ends[i]).includes(1);
          if (some !== (urlOut[i] === 1)) throw new Error(`${s.family}: hasAllUrls answers differently from its probes`);
        }
      }
      for (const a of answers) for (let i = 0; i < count; i += 2) if (a[i] !== 1) throw new Error(`${s.family}: member ${queries[i]} not found`);
      const all = Buffer.concat(answers);
      if (reference && Buffer.compare(reference, all) !== 0) throw new Error(`${s.family}: the builds answer differently`);
      reference = all;
    }
    s.hits = reference.subarray(0, count).reduce((a, x) => a + x, 0);
    if (urls) s.urlHits = reference.subarray(count).reduce((a, x) => a + x, 0);
  }
  if (bloomfilter) for (let i = 0; i < count; i += 2) if (!bloomfilter.test(queries[i])) throw new Error('bloomfilter: a member not found');

  let sink = 0;
  const cells = subjects.map((s) => s.builds.map(() => ({ has: [], hasAll: [], hasAllUrls: [], probes: [], wasm: [] })));
  const probesOut = new Uint8Array(Math.max(0, ...subjects.map((s) => s.probes?.keys.length ?? 0)));
  const bloomfilterNs = [];
  // Round -1 warms every cell up, untimed.
  const keep = (list, r, value) => r >= 0 && list.push(value);
  for (let r = -1; r < rounds; r++) {
    for (let si = 0; si < subjects.length; si++) {
      const s = subjects[si];
      const order = s.builds.map((_, i) => i);
      if (r % 2 === 1) order.reverse();
      for (const i of order) {
        const { f, u, w } = s.builds[i];
        const c = cells[si][i];
        keep(c.has, r, time(() => {
          for (const q of queries) if (f.has(q)) sink++;
        }, count, passes));
        keep(c.hasAll, r, time(() => (sink += f.hasAll(queries, out)[0]), count, passes));
        keep(c.wasm, r, time(() => w.run(), count, passes));
        if (u) keep(c.hasAllUrls, r, time(() => (sink += u.hasAllUrls(urlQueries, urlOut)[0]), count, passes));
        if (u) keep(c.probes, r, time(() => (sink += u.hasAll(s.probes.keys, probesOut)[0]), count, passes));
      }
    }
    if (bloomfilter) {
      keep(bloomfilterNs, r, time(() => {
        for (const q of queries) if (bloomfilter.test(q)) sink++;
      }, count, passes));
    }
  }
  if (sink < 0) console.error('');
  for (const s of subjects) for (const b of s.builds) {
    b.w.free();
    b.f.dispose();
    b.u?.dispose();
  }
  return {
    n,
    labels: libs.map((l) => l.label),
    subjects: subjects.map((s, si) => ({ family: s.family, bytes: s.bytes, hits: s.hits, urlHits: s.urlHits, cells: cells[si] })),
    bloomfilter: bloomfilter ? bloomfilterNs : null,
  };
}

if (opt.worker) {
  const result = await worker(JSON.parse(opt.worker));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

// ---------------------------------------------------------------------------
// Runner.

const ns = opt.n.split(',').map(Number);
const dists = labelled(opt.dist);
const nativeBins = labelled(opt['native-bin'] ?? `${dists.at(-1)[0]}=${join(ROOT, 'build', 'bench', 'scale_bench')}`);
const sorted = (a) => [...a].sort((x, y) => x - y);
const median = (a) => {
  if (a.length === 0) return NaN;
  const s = sorted(a);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const started = new Date();
const host = machine();
const loads = [];
const node = {}; // n → worker result
const native = {}; // label → n → family → [runs]

for (const n of ns) {
  const loadStart = loadAverage();
  if (!opt['no-node']) {
    const config = { n, queryCount: Number(opt.queries), dists, rounds: Number(opt.rounds), passes: Number(opt.passes), families, urls: !opt['no-urls'], bloomfilter: true };
    const heap = Math.max(4096, Math.ceil(n / 1e6) * 400);
    for (let proc = 0; proc < Number(opt.procs); proc++) {
      const r = spawnSync(process.execPath, [`--max-old-space-size=${heap}`, fileURLToPath(import.meta.url), '--worker', JSON.stringify(config), ...(opt.data ? ['--data', opt.data] : [])], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (r.status !== 0) throw new Error(`worker for N = ${n} failed (status ${r.status})`);
      const result = JSON.parse(r.stdout.trim().split('\n').at(-1));
      // Each process's rounds join the cells' lists; perProcess keeps each process's median hasAll.
      for (const s of result.subjects) s.perProcess = s.cells.map((c) => [median(c.hasAll)]);
      if (!node[n]) {
        node[n] = result;
        continue;
      }
      node[n].subjects.forEach((s, si) => {
        s.cells.forEach((c, i) => {
          for (const key of Object.keys(c)) c[key].push(...result.subjects[si].cells[i][key]);
          s.perProcess[i].push(...result.subjects[si].perProcess[i]);
        });
      });
      if (node[n].bloomfilter) node[n].bloomfilter.push(...result.bloomfilter);
    }
  }
  if (!opt['no-native']) {
    for (let run = 0; run < Number(opt['native-runs']); run++) {
      const order = run % 2 === 0 ? nativeBins : [...nativeBins].reverse();
      for (const [label, bin] of order) {
        if (!existsSync(bin)) throw new Error(`${bin} not found: bash bench/native/build.sh builds it`);
        const args = [`--n=${n}`, `--families=${families.join(',')}`, `--queries=${opt.queries}`, `--reps=${opt['native-reps']}`, `--eps=${eps}`];
        if (opt['no-urls']) args.push('--no-urls');
        if (opt.data) args.push(`--data=${opt.data}`);
        else args.push(`--data=${locateData().blocklist.replace(/\/blocklist_domains\.txt$/, '')}`);
        const text = execFileSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
        for (const line of text.trim().split('\n')) {
          const row = JSON.parse(line);
          if (row.falseNegatives !== 0) throw new Error(`native ${label} ${row.family}: ${row.falseNegatives} false negatives`);
          (((native[label] ??= {})[n] ??= {})[row.family] ??= []).push(row);
        }
      }
    }
  }
  loads.push({ n, start: loadStart, end: loadAverage() });
  console.error(`N = ${n} done, load ${loads.at(-1).end.join(' ')}`);
}

// ---------------------------------------------------------------------------
// Report.

const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '—');
const sizeText = (bytes) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1e3)} KB`);
const nText = (n) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n));
const labels = [...new Set([...dists.map((d) => d[0]), ...nativeBins.map((b) => b[0])])];
const nodeCell = (n, family, li, key) => {
  const s = node[n]?.subjects.find((x) => x.family === family);
  const i = node[n]?.labels.indexOf(labels[li]);
  return s && i >= 0 ? median(s.cells[i][key]) : NaN;
};
const nativeCell = (n, family, label, key) => median((native[label]?.[n]?.[family] ?? []).map((row) => row[key]));
const lines = [];
lines.push(`Run ${started.toISOString().slice(0, 16).replace('T', ' ')}–${new Date().toISOString().slice(11, 16)} UTC by \`node bench/scale.mjs ${process.argv.slice(2).join(' ')}\`.`);
lines.push(`Machine: ${host.cpu}, ${host.cores} cores, ${host.memoryGiB} GiB, ${host.os}; Node.js ${host.node} (V8 ${host.v8}).`);
lines.push(`Load average (1, 5, 15 min): ${loads.map((l) => `N = ${nText(l.n)}: ${l.start.join(' ')} at start, ${l.end.join(' ')} at end`).join('; ')}.`);
lines.push(`${opt.queries} queries, half members; ε = ${eps}; Node.js: median of ${opt.procs} processes × ${opt.rounds} rounds, each the fastest of ${opt.passes} passes; native: median of ${opt['native-runs']} runs × ${opt['native-reps']} reps. ns per key (CPU time).`);
lines.push('');
for (let li = 0; li < labels.length; li++) {
  const label = labels[li];
  lines.push(`**${label}**`);
  lines.push('');
  const header = ['family', 'N', 'table', 'has', 'hasAll', 'hasAllUrls', 'URL probes', 'wasm batch', 'native batch', 'native has', 'native URLs', 'native load', 'native latency'];
  const bf = ns.some((n) => node[n]?.bloomfilter);
  if (bf) header.push('bloomfilter test');
  const rows = [];
  for (const family of families) {
    for (const n of ns) {
      const bytes = node[n]?.subjects.find((x) => x.family === family)?.bytes ?? nativeCell(n, family, label, 'bytes');
      const row = [family, nText(n), sizeText(bytes), fmt(nodeCell(n, family, li, 'has')), fmt(nodeCell(n, family, li, 'hasAll')), fmt(nodeCell(n, family, li, 'hasAllUrls')), fmt(nodeCell(n, family, li, 'probes')), fmt(nodeCell(n, family, li, 'wasm'), 1), fmt(nativeCell(n, family, label, 'batch'), 1), fmt(nativeCell(n, family, label, 'has'), 1), opt['no-urls'] ? '—' : fmt(nativeCell(n, family, label, 'url'), 1), fmt(nativeCell(n, family, label, 'load'), 2), fmt(nativeCell(n, family, label, 'latency'), 0)];
      if (bf) row.push(family === families[0] ? fmt(median(node[n]?.bloomfilter ?? [])) : '');
      rows.push(row);
    }
  }
  lines.push(markdownTable(header, rows));
  lines.push('');
  // Growth against 10^6: the goals.
  const big = ns.filter((n) => n > 1e6);
  if (ns.includes(1e6) && big.length > 0) {
    const header2 = ['family', ...big.flatMap((n) => [`hasAll ${nText(n)}/1M`, `hasAllUrls ${nText(n)}/1M`, `URL probes ${nText(n)}/1M`, `has ${nText(n)}/1M`, `wasm batch ${nText(n)}/1M`, `native batch ${nText(n)}/1M`])];
    const rows2 = families.map((family) => [
      family,
      ...big.flatMap((n) => [
        fmt(nodeCell(n, family, li, 'hasAll') / nodeCell(1e6, family, li, 'hasAll'), 2),
        fmt(nodeCell(n, family, li, 'hasAllUrls') / nodeCell(1e6, family, li, 'hasAllUrls'), 2),
        fmt(nodeCell(n, family, li, 'probes') / nodeCell(1e6, family, li, 'probes'), 2),
        fmt(nodeCell(n, family, li, 'has') / nodeCell(1e6, family, li, 'has'), 2),
        fmt(nodeCell(n, family, li, 'wasm') / nodeCell(1e6, family, li, 'wasm'), 2),
        fmt(nativeCell(n, family, label, 'batch') / nativeCell(1e6, family, label, 'batch'), 2),
      ]),
    ]);
    lines.push(`Growth (goals: hasAll and hasAllUrls ≤ 1.5×, native batch ≤ 2×):`);
    lines.push('');
    lines.push(markdownTable(header2, rows2));
    lines.push('');
  }
  // The spread the processes' pages make: each process's median hasAll at each N above 10^6.
  if (Number(opt.procs) > 1 && !opt['no-node']) {
    for (const n of big) {
      const each = families.map((family) => {
        const s = node[n]?.subjects.find((x) => x.family === family);
        const i = node[n]?.labels.indexOf(label);
        return s && i >= 0 ? `${family} ${s.perProcess[i].map((x) => fmt(x)).join(' / ')}` : null;
      });
      lines.push(`hasAll at ${nText(n)}, each process's median: ${each.filter(Boolean).join('; ')}.`);
      lines.push('');
    }
  }
}
// Two builds in Node.js: the second's over the first's, median of per-round ratios.
if (dists.length === 2 && !opt['no-node']) {
  lines.push(`**${dists[1][0]} / ${dists[0][0]}** (Node.js, median of per-round ratios):`);
  lines.push('');
  const rows = [];
  for (const family of families) {
    for (const n of ns) {
      const s = node[n]?.subjects.find((x) => x.family === family);
      if (!s) continue;
      const ratio = (key) => median(s.cells[1][key].map((b, r) => b / s.cells[0][key][r]));
      rows.push([family, nText(n), fmt(ratio('has'), 3), fmt(ratio('hasAll'), 3), fmt(ratio('hasAllUrls'), 3), fmt(ratio('probes'), 3), fmt(ratio('wasm'), 3)]);
    }
  }
  lines.push(markdownTable(['family', 'N', 'has', 'hasAll', 'hasAllUrls', 'URL probes', 'wasm batch'], rows));
  lines.push('');
}
if (!ns.some((n) => node[n]?.bloomfilter) && !opt['no-node']) lines.push('(bloomfilter is not installed in bench/node_modules: its column is left out.)');
console.log(lines.join('\n'));
if (opt.json) writeFileSync(opt.json, JSON.stringify({ started, machine: host, loads, node, native }, null, 1));
