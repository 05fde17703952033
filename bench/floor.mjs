// Where the time of one has() goes: microbenchmarks of each layer a lookup of a
// string key crosses, per key, on the real member keys (bench/data.mjs):
//
//   node --expose-gc bench/floor.mjs [--n 1000000] [--keys domains|urls] [--passes 7] [--eps 0.001] [--data DIR]
//                                    [--part cuckoo|bloom|all] [--summary median|min] [--out FILE.md]
//
// Each row is the median ns per key over --passes passes (min–max), and the
// lookups/s that cost alone would allow. The rows build up: the JS loop alone;
// the charCodeAt copy into a view over wasm memory that has() uses for short
// ASCII keys; TextEncoder.encodeInto (its path for other strings); the chunk
// packing of hasAll()/addAll() (offsets + rope concatenation + one encodeInto
// per chunk of ≤ 8192 keys and ≤ 32K code units, js/common/chunk.ts), and the same with
// Array.prototype.join; hasAll()'s answer array (a fresh Array of N booleans:
// above 16K elements V8 puts it in fresh pages, whose first touch costs page
// faults); a 32-bit FNV-1a in JS over the UTF-16 code units (what
// hashing without any copy would cost); an empty WebAssembly call with has()'s
// arguments (a hand-assembled module: (i32, i32, i32) -> i32 returning 0); the
// copy + that empty call (the boundary floor of one key per call); the core's
// cf_contain export called per key on keys already packed in wasm memory (XXH3
// + two bucket probes + the call, no copy); cf_contain_batch on the same packed
// keys; cuckoo-wasm has() on a 64-key filter (table hot) and on the full
// filter, and hasAll(); and bloomfilter's test() split the same way (its
// FNV-1a over the string and the k indexes: locations() alone, then test() on
// the full filter; one bloomfilter size only, since a second size would give
// its code a second typed-array type and slow it: one shape per process, as in
// bench/worker.mjs). Differences between rows are the cost of each layer; the
// last lines add up the floors of has() and hasAll() and set them against what
// 2× and 3× bloomfilter would need.
//
// --part bloom (bench/run.mjs's comparison) keeps the boundary rows and puts
// this package's BloomFilter in the cuckoo filter's place: bf_contain per key on
// the packed members of a full filter, and on a 64-key filter looked up with its
// own 64 keys over and over (its bits in L1 cache, every probe a hit: the
// difference is what the k probes cost in memory), bf_contain_batch,
// has() and hasAll(); then both filters grown 8× past their capacity (capacity
// N/8, expansion 2, all N keys: four sub-filters) against filters sized for N,
// looked up with non-members (which check every sub-filter): the wasm call per
// key on packed non-members, and has(). --part cuckoo is the rows above only;
// all (the default) is both. --summary min adds up the fastest pass of each row
// in the lines under the table instead of the median.
//
// The cf_* and bf_* rows measure the wasm side alone, which no public method
// does: they go through the test-only entry of the boundary (rawBoundary() of
// dist/testing.mjs: wasm memory, malloc/free, the hot exports by their wasm
// names, a filter's live handle), never through a filter's private members.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, loadKeys } from './data.mjs';
import { fmtNum, fmtOpsRange, markdownTable, fmtInt } from './report.mjs';
import { bloomSizing, stats } from './stats.mjs';

const { values: opt } = parseArgs({
  options: {
    n: { type: 'string', default: '1000000' },
    passes: { type: 'string', default: '7' },
    eps: { type: 'string', default: '0.001' },
    keys: { type: 'string', default: 'domains' }, // or urls (bench/data.mjs); --n is then at most 49,256
    data: { type: 'string' }, // folder of the lists (bench/data.mjs locateData)
    out: { type: 'string' }, // also write the table to this Markdown file
    part: { type: 'string', default: 'all' }, // cuckoo | bloom | all
    summary: { type: 'string', default: 'median' }, // the statistic the lines under the table add up: median | min
  },
});
if (!['cuckoo', 'bloom', 'all'].includes(opt.part)) throw new Error(`--part: '${opt.part}' is not cuckoo, bloom or all`);
const CUCKOO_ROWS = opt.part !== 'bloom';
const BLOOM_ROWS = opt.part !== 'cuckoo';
/** Filters grown this many times past their capacity in the growth rows. */
const GROWN_PAST = 8;
const N = Number(opt.n);
const PASSES = Number(opt.passes);
const EPS = Number(opt.eps);
const nowNs = () => process.hrtime.bigint();

// (module (func (export "f") (param i32 i32 i32) (result i32) i32.const 0))
const EMPTY_WASM = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x08, 0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x01, 0x7f, // type: (i32 i32 i32) -> i32
  0x03, 0x02, 0x01, 0x00, // function 0 has type 0
  0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, // export "f" = function 0
  0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x00, 0x0b, // body: i32.const 0, end
]);

/** Runs `pass` (returns a sink value) PASSES times after one warm-up; ns per key stats. */
function measure(name, keysPerPass, pass) {
  let sink = pass(); // warm-up (JIT)
  const ns = [];
  for (let i = 0; i < PASSES; ++i) {
    const t0 = nowNs();
    sink += pass();
    ns.push(Number(nowNs() - t0) / keysPerPass);
  }
  const s = stats(ns);
  return { name, ns: s, sink };
}

async function main() {
  const { members, nonMembers: allNon } = loadKeys(N, { dir: opt.data, keys: opt.keys });
  const n = members.length;
  const nonMembers = allNon.slice(0, n);
  const dist = (file) => import(pathToFileURL(join(ROOT, 'dist', file)).href);
  const { CuckooFilter, BloomFilter: WasmBloom } = await dist('index.mjs');
  const raw = await (await dist('testing.mjs')).rawBoundary();
  const { BloomFilter } = await import('bloomfilter');
  const { instance } = await WebAssembly.instantiate(EMPTY_WASM);
  const empty = instance.exports.f;
  const encoder = new TextEncoder();
  const memory = new WebAssembly.Memory({ initial: 1 });
  const scratch = new Uint8Array(memory.buffer, 1024, 4096);

  const full = await CuckooFilter.create({ capacity: n, falsePositiveRate: EPS });
  full.addAll(members);
  const tiny = await CuckooFilter.create({ capacity: 64, falsePositiveRate: EPS });
  for (let i = 0; i < 64; ++i) tiny.add(members[i]);
  const { bits, hashes } = bloomSizing(n, EPS);
  const bloomFull = new BloomFilter(bits, hashes);
  for (let i = 0; i < n; ++i) bloomFull.add(members[i]);

  // Keys packed once in wasm memory (chunks of 8192: bytes, offsets, room for the answers), for the cf_* and bf_* rows.
  const allocated = [];
  const malloc = (bytes) => {
    const ptr = raw.malloc(bytes);
    if (ptr === 0) throw new Error(`floor: malloc(${bytes}) failed in wasm memory`);
    allocated.push(ptr);
    return ptr;
  };
  const packKeys = (keys) => {
    const out = [];
    for (let i = 0; i < keys.length; i += 8192) {
      const chunk = keys.slice(i, i + 8192);
      const bytes = encoder.encode(chunk.join(''));
      const keysPtr = malloc(bytes.length);
      const offsetsPtr = malloc((chunk.length + 1) * 4);
      const resultsPtr = malloc(chunk.length);
      const offsets = new Uint32Array(chunk.length + 1);
      for (let j = 0, at = 0; j < chunk.length; ++j) {
        offsets[j] = at;
        at += encoder.encode(chunk[j]).length; // UTF-8 bytes: a few URLs are not ASCII
        offsets[j + 1] = at;
      }
      raw.heapU8().set(bytes, keysPtr); // fresh views: malloc may have grown memory
      raw.heapU32().set(offsets, offsetsPtr >>> 2);
      out.push({ keysPtr, offsetsPtr, resultsPtr, offsets, count: chunk.length });
    }
    return out;
  };
  const packed = packKeys(members);
  const packedNon = BLOOM_ROWS ? packKeys(nonMembers) : [];
  // The 64-key filter's own members, over and over: every probe finds its bit set, in L1 cache.
  const packedHot = BLOOM_ROWS ? packKeys(Array.from({ length: n }, (_, i) => members[i % 64])) : [];
  // This package's Bloom filters, and both kinds grown GROWN_PAST× past their capacity.
  const grownOptions = { capacity: Math.ceil(n / GROWN_PAST), falsePositiveRate: EPS, expansion: 2 };
  const wb = BLOOM_ROWS ? await WasmBloom.create({ capacity: n, falsePositiveRate: EPS }) : null;
  const wbTiny = BLOOM_ROWS ? await WasmBloom.create({ capacity: 64, falsePositiveRate: EPS }) : null;
  const wbGrown = BLOOM_ROWS ? await WasmBloom.create(grownOptions) : null;
  const cfGrown = BLOOM_ROWS ? await CuckooFilter.create(grownOptions) : null;
  if (BLOOM_ROWS) {
    wb.addAll(members);
    wbTiny.addAll(members.slice(0, 64));
    wbGrown.addAll(members);
    cfGrown.addAll(members);
  }
  const handle = raw.handleOf(full);
  const wasmView = new Uint8Array(memory.buffer, 1024, 4096);
  // has()'s copy of a short key (js/boundary/wasm-core.ts writeKey): the code units,
  // OR-ed together to check for non-ASCII once. Returns the length, or 0.
  const copyKey = (k) => {
    const len = k.length;
    let units = 0;
    for (let j = 0; j < len; ++j) {
      const c = k.charCodeAt(j);
      units |= c;
      wasmView[j] = c;
    }
    return units < 0x80 ? len : 0;
  };
  const packBuffer = new Uint8Array(1 << 20);
  const packOffsets = new Uint32Array(8193);
  const { cf_contain: contain, cf_contain_batch: containBatch, bf_contain: bfContain, bf_contain_batch: bfContainBatch } = raw.exports;
  /** The wasm call per key over packed keys (p), on the filter behind handle h. */
  const perKey = (fn, h, p) => () => {
    let s = 0;
    for (const c of p) {
      const o = c.offsets;
      for (let j = 0; j < c.count; ++j) s += fn(h, c.keysPtr + o[j], o[j + 1] - o[j]);
    }
    return s;
  };
  /** The batch export over the packed members, on the filter behind handle h. */
  const batch = (fn, h) => () => {
    for (const c of packed) fn(h, c.keysPtr, c.offsetsPtr, c.count, c.resultsPtr);
    return 1;
  };
  const loop = (f, keys) => () => {
    let s = 0;
    for (let i = 0; i < keys.length; ++i) if (f.has(keys[i])) ++s;
    return s;
  };

  const common = [
    measure('JS loop over the keys (reads length)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) s += members[i].length;
      return s;
    }),
    measure('charCodeAt copy into a wasm-memory view, ASCII check once per key (has() path)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) s += copyKey(members[i]);
      return s;
    }),
    measure('TextEncoder.encodeInto into a wasm-memory view (has() path for other strings)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) s += encoder.encodeInto(members[i], scratch).written;
      return s;
    }),
    measure('chunk packing as hasAll() does it: chunks of ≤ 8192 keys and ≤ 32K units, offsets + rope concatenation + one encodeInto', n, () => {
      let s = 0;
      for (let a = 0; a < n; ) {
        let joined = '';
        let used = 0;
        let q = a;
        for (; q < n && q - a < 8192 && used < 32768; ++q) {
          const k = members[q];
          packOffsets[q - a] = used;
          used += k.length;
          joined += k;
        }
        packOffsets[q - a] = used;
        s += encoder.encodeInto(joined, packBuffer).written;
        a = q;
      }
      return s;
    }),
    measure('the same chunks with Array.prototype.join instead of the rope', n, () => {
      let s = 0;
      for (let a = 0; a < n; ) {
        let used = 0;
        let q = a;
        for (; q < n && q - a < 8192 && used < 32768; ++q) {
          packOffsets[q - a] = used;
          used += members[q].length;
        }
        packOffsets[q - a] = used;
        s += encoder.encodeInto(members.slice(a, q).join(''), packBuffer).written;
        a = q;
      }
      return s;
    }),
    measure(`hasAll()'s answer array: new Array(${fmtInt(n)}) and one boolean per key`, n, () => {
      const out = new Array(n);
      for (let i = 0; i < n; ++i) out[i] = packBuffer[i & 0xffff] !== 0;
      return out.length;
    }),
    measure('FNV-1a 32 in JS over charCodeAt (a hash with no copy)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) {
        const k = members[i];
        let h = 0x811c9dc5;
        for (let j = 0; j < k.length; ++j) h = Math.imul(h ^ k.charCodeAt(j), 0x01000193);
        s ^= h;
      }
      return s;
    }),
    measure('empty wasm call f(ptr, len, handle)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) s += empty(1024, members[i].length, 8);
      return s + 1;
    }),
    measure('charCodeAt copy + empty wasm call (boundary floor of has())', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) s += empty(1024, copyKey(members[i]), 8);
      return s + 1;
    }),
  ];
  const cuckooRows = () => [
    measure(`cf_contain per key, keys already in wasm memory (XXH3 + probes + call), ${fmtInt(n)} keys`, n, perKey(contain, handle, packed)),
    measure('cf_contain_batch per key, keys already in wasm memory', n, batch(containBatch, handle)),
    measure('cuckoo-wasm has(), 64-key filter (hot)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) if (tiny.has(members[i])) ++s;
      return s;
    }),
    measure(`cuckoo-wasm has(), ${fmtInt(n)}-key filter (members)`, n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) if (full.has(members[i])) ++s;
      return s;
    }),
    measure(`cuckoo-wasm hasAll(), ${fmtInt(n)}-key filter, per key`, n, () => {
      const r = full.hasAll(members);
      return r.length;
    }),
  ];
  const bloomfilterRows = () => [
    measure('bloomfilter locations() alone (FNV-1a + k indexes)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) s += bloomFull.locations(members[i])[0];
      return s;
    }),
    measure(`bloomfilter test(), ${fmtInt(n)}-key filter (members)`, n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) if (bloomFull.test(members[i])) ++s;
      return s;
    }),
    measure(`bloomfilter test(), ${fmtInt(n)}-key filter (non-members)`, n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) if (bloomFull.test(nonMembers[i])) ++s;
      return s;
    }),
  ];
  const grownLabel = `grown ${GROWN_PAST}× (capacity ${fmtInt(grownOptions.capacity)}, expansion 2)`;
  const bloomRows = () => [
    measure(`bf_contain per key, keys already in wasm memory (XXH3 + k probes + call), ${fmtInt(n)}-key BloomFilter (members)`, n, perKey(bfContain, raw.handleOf(wb), packed)),
    measure('bf_contain per key, 64-key BloomFilter, its 64 members over and over (its bits in L1 cache)', n, perKey(bfContain, raw.handleOf(wbTiny), packedHot)),
    measure(`bf_contain per key, ${fmtInt(n)}-key BloomFilter (non-members)`, n, perKey(bfContain, raw.handleOf(wb), packedNon)),
    measure('bf_contain_batch per key, keys already in wasm memory (members)', n, batch(bfContainBatch, raw.handleOf(wb))),
    measure(`BloomFilter has(), ${fmtInt(n)}-key filter (members)`, n, loop(wb, members)),
    measure(`BloomFilter has(), ${fmtInt(n)}-key filter (non-members)`, n, loop(wb, nonMembers)),
    measure(`BloomFilter hasAll(), ${fmtInt(n)}-key filter, per key (members)`, n, () => wb.hasAll(members).length),
    measure(`cf_contain per key, CuckooFilter sized for ${fmtInt(n)} (non-members)`, n, perKey(contain, handle, packedNon)),
    measure(`cf_contain per key, CuckooFilter ${grownLabel} (non-members)`, n, perKey(contain, raw.handleOf(cfGrown), packedNon)),
    measure(`bf_contain per key, BloomFilter ${grownLabel} (non-members)`, n, perKey(bfContain, raw.handleOf(wbGrown), packedNon)),
    measure(`CuckooFilter has(), sized for ${fmtInt(n)} (non-members)`, n, loop(full, nonMembers)),
    measure(`CuckooFilter has(), ${grownLabel} (non-members)`, n, loop(cfGrown, nonMembers)),
    measure(`BloomFilter has(), ${grownLabel} (non-members)`, n, loop(wbGrown, nonMembers)),
  ];
  const rows = [...common, ...(CUCKOO_ROWS ? cuckooRows() : []), ...(BLOOM_ROWS ? bloomRows() : []), ...bloomfilterRows()];
  for (const ptr of allocated) raw.free(ptr);
  for (const f of [full, tiny, wb, wbTiny, wbGrown, cfGrown]) f?.dispose();

  const avgLen = members.reduce((a, k) => a + k.length, 0) / n;
  const head = `floor: ${fmtInt(n)} member ${opt.keys === 'urls' ? 'URLs' : 'domains'} (average ${fmtNum(avgLen, 1)} bytes), ε = ${EPS}, median of ${PASSES} passes, node ${process.version}, ${os.cpus()[0]?.model?.trim()}, load average ${os.loadavg()[0].toFixed(2)}`;
  const table =
    markdownTable(
      ['what, per key', 'ns (min–max)', 'lookups/s at that cost alone'],
      rows.map((r) => [
        r.name,
        `${fmtNum(r.ns.median, 1)} (${fmtNum(r.ns.min, 1)}–${fmtNum(r.ns.max, 1)})`,
        fmtOpsRange({ median: 1e9 / r.ns.median, count: 1 }),
      ]),
    );
  const stat = opt.summary === 'min' ? 'min' : 'median';
  const ns = (prefix) => rows.find((r) => r.name.startsWith(prefix)).ns[stat];
  const pack = ns('chunk packing as hasAll()');
  const answers = ns("hasAll()'s answer array");
  const bloom = ns('bloomfilter test()');
  const bloomNon = ns(`bloomfilter test(), ${fmtInt(n)}-key filter (non-members)`);
  const copyCall = ns('charCodeAt copy + empty wasm call');
  const f1 = (x) => fmtNum(x, 1);
  const lines = [];
  if (CUCKOO_ROWS) {
    const perCall = ns('cf_contain per key');
    const perBatch = ns('cf_contain_batch');
    const hasFull = ns(`cuckoo-wasm has(), ${fmtInt(n)}`);
    lines.push(
      `- has(): the wasm side (call + XXH3 + probes) costs ${f1(perCall)} ns and has() measures ${f1(hasFull)} ns, so writing the key ` +
        `(charCodeAt up to 32 code units, encodeInto above: the rows above give both for every key) costs about ${f1(hasFull - perCall)} ns. ` +
        `2× bloomfilter test() (${f1(bloom)} ns) needs ≤ ${f1(bloom / 2)} ns.`,
      `- hasAll(): packing costs ${f1(pack)} ns per key, the answer array ${f1(answers)} ns, the wasm side ${f1(perBatch)} ns ` +
        `(sum ${f1(pack + answers + perBatch)} ns); hasAll() measures ${f1(ns('cuckoo-wasm hasAll()'))} ns. ` +
        `3× bloomfilter test() needs ≤ ${f1(bloom / 3)} ns, which leaves ${f1(bloom / 3 - pack - answers - perBatch)} ns beside those three.`,
    );
  }
  if (BLOOM_ROWS) {
    const wasmM = ns(`bf_contain per key, keys already in wasm memory`);
    const wasmHot = ns('bf_contain per key, 64-key');
    const wasmN = ns(`bf_contain per key, ${fmtInt(n)}-key BloomFilter (non-members)`);
    const hasM = ns(`BloomFilter has(), ${fmtInt(n)}-key filter (members)`);
    const hasN = ns(`BloomFilter has(), ${fmtInt(n)}-key filter (non-members)`);
    const cfSized = ns(`cf_contain per key, CuckooFilter sized`);
    const cfGrownNs = ns(`cf_contain per key, CuckooFilter grown`);
    const bfGrownNs = ns(`bf_contain per key, BloomFilter grown`);
    const hasCfSized = ns(`CuckooFilter has(), sized`);
    const hasCfGrown = ns(`CuckooFilter has(), grown`);
    const hasBfGrown = ns(`BloomFilter has(), grown`);
    lines.push(
      `- BloomFilter has() (members): ${f1(hasM)} ns = the wasm side ${f1(wasmM)} ns (call + XXH3 + k probes; with the bits in L1 cache ${f1(wasmHot)} ns, so the probes' cache misses cost ${f1(wasmM - wasmHot)} ns) ` +
        `+ writing the key and the call's JS side ${f1(hasM - wasmM)} ns (has() copies keys of up to 32 code units with charCodeAt: that copy + an empty call alone take ${f1(copyCall)} ns per key here; longer ones with encodeInto: ${f1(ns('TextEncoder.encodeInto'))} ns). ` +
        `bloomfilter test() takes ${f1(bloom)} ns, so 1.5× needs has() ≤ ${f1(bloom / 1.5)} ns (${f1(hasM - bloom / 1.5)} ns to go).`,
      `- BloomFilter has() (non-members, which stop at the first clear bit): ${f1(hasN)} ns, of which the wasm side ${f1(wasmN)} ns; bloomfilter test() ${f1(bloomNon)} ns (it computes all k positions first), so 1.5× needs ≤ ${f1(bloomNon / 1.5)} ns.`,
      `- Grown ${GROWN_PAST}× (non-members, four sub-filters): the wasm side of the cuckoo filter goes from ${f1(cfSized)} to ${f1(cfGrownNs)} ns (${f1(cfGrownNs / cfSized)}×), has() from ${f1(hasCfSized)} to ${f1(hasCfGrown)} ns (${f1(hasCfGrown / hasCfSized)}×); ` +
        `the Bloom filter's wasm side from ${f1(wasmN)} to ${f1(bfGrownNs)} ns (${f1(bfGrownNs / wasmN)}×), has() from ${f1(hasN)} to ${f1(hasBfGrown)} ns (${f1(hasBfGrown / hasN)}×). ` +
        'The key is written and hashed once either way: the difference is the probes of the extra sub-filters.',
    );
  }
  const floors = lines.join('\n');
  console.log(`${head}\n\n${table}\n${floors}`);
  if (opt.out) writeFileSync(opt.out, `# Per-key cost floor (bench/floor.mjs)\n\n${head}\n\n${table}\n${floors}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
