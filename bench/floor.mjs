// Where the time of one has() goes: microbenchmarks of each layer a lookup of a
// string key crosses, per key, on the real member keys (bench/data.mjs):
//
//   node --expose-gc bench/floor.mjs [--n 1000000] [--keys domains|urls] [--passes 7] [--out FILE.md]
//
// Each row is the median ns per key over --passes passes (min–max), and the
// lookups/s that cost alone would allow. The rows build up: the JS loop alone;
// the charCodeAt copy into a view over wasm memory that has() uses for short
// ASCII keys; TextEncoder.encodeInto (its path for other strings); the chunk
// packing of hasAll()/addAll() (offsets + rope concatenation + one encodeInto
// per chunk of ≤ 8192 keys and ≤ 64K code units), and the same with
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
// The cf_* rows reach into the filter's internals (core.hot, core.alloc): they
// measure the wasm side alone, which no public method does.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, loadKeys } from './data.mjs';
import { fmtNum, fmtOpsRange, markdownTable, stats, fmtInt } from './format.mjs';

const { values: opt } = parseArgs({
  options: {
    n: { type: 'string', default: '1000000' },
    passes: { type: 'string', default: '7' },
    eps: { type: 'string', default: '0.001' },
    keys: { type: 'string', default: 'domains' }, // or urls (bench/data.mjs); --n is then at most 49,256
    out: { type: 'string' }, // also write the table to this Markdown file
  },
});
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
  const { members } = loadKeys(N, { keys: opt.keys });
  const n = members.length;
  const { CuckooFilter } = await import(pathToFileURL(join(ROOT, 'dist', 'index.mjs')).href);
  const { BloomFilter } = await import('bloomfilter');
  const { instance } = await WebAssembly.instantiate(EMPTY_WASM);
  const empty = instance.exports.f;
  const encoder = new TextEncoder();
  const memory = new WebAssembly.Memory({ initial: 1 });
  const scratch = new Uint8Array(memory.buffer, 1024, 4096);
  const big = new Uint8Array(1 << 20);

  const full = await CuckooFilter.create({ capacity: n, falsePositiveRate: EPS });
  full.addAll(members);
  const tiny = await CuckooFilter.create({ capacity: 64, falsePositiveRate: EPS });
  for (let i = 0; i < 64; ++i) tiny.add(members[i]);
  const bloomFor = (items) => {
    const m = Math.ceil((-items * Math.log(EPS)) / (Math.LN2 * Math.LN2));
    return new BloomFilter(m, Math.round((m / items) * Math.LN2));
  };
  const bloomFull = bloomFor(n);
  for (let i = 0; i < n; ++i) bloomFull.add(members[i]);

  // Every member key packed once in wasm memory, for the cf_* rows.
  const core = full.core;
  const handle = full.live();
  const packed = [];
  for (let i = 0; i < n; i += 8192) {
    const chunk = members.slice(i, i + 8192);
    const bytes = encoder.encode(chunk.join(''));
    const keysPtr = core.copyIn(bytes);
    const offsetsPtr = core.alloc((chunk.length + 1) * 4);
    const resultsPtr = core.alloc(chunk.length);
    const offsets = new Uint32Array(chunk.length + 1);
    for (let j = 0, at = 0; j < chunk.length; ++j) {
      offsets[j] = at;
      at += encoder.encode(chunk[j]).length; // UTF-8 bytes: a few URLs are not ASCII
      offsets[j + 1] = at;
    }
    core.m.HEAPU32.set(offsets, offsetsPtr >>> 2);
    packed.push({ keysPtr, offsetsPtr, resultsPtr, offsets, count: chunk.length });
  }
  const wasmView = new Uint8Array(memory.buffer, 1024, 4096);
  // has()'s copy of a short key (js/wasm-core.ts writeKey): the code units,
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
  const contain = core.hot.cf_contain;
  const containBatch = core.hot.cf_contain_batch;

  const rows = [
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
    measure('chunk packing as hasAll() does it: chunks of ≤ 8192 keys and ≤ 64K units, offsets + rope concatenation + one encodeInto', n, () => {
      let s = 0;
      for (let a = 0; a < n; ) {
        let joined = '';
        let used = 0;
        let q = a;
        for (; q < n && q - a < 8192 && used < 65536; ++q) {
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
      const chunk = [];
      for (let a = 0; a < n; ) {
        let used = 0;
        let q = a;
        for (; q < n && q - a < 8192 && used < 65536; ++q) {
          const k = members[q];
          packOffsets[q - a] = used;
          used += k.length;
          chunk[q - a] = k;
        }
        chunk.length = q - a;
        packOffsets[q - a] = used;
        s += encoder.encodeInto(chunk.join(''), packBuffer).written;
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
    measure(`cf_contain per key, keys already in wasm memory (XXH3 + probes + call), ${fmtInt(n)} keys`, n, () => {
      let s = 0;
      for (const c of packed) {
        const o = c.offsets;
        for (let j = 0; j < c.count; ++j) s += contain(handle, c.keysPtr + o[j], o[j + 1] - o[j]);
      }
      return s;
    }),
    measure('cf_contain_batch per key, keys already in wasm memory', n, () => {
      for (const c of packed) containBatch(handle, c.keysPtr, c.offsetsPtr, c.count, c.resultsPtr);
      return 1;
    }),
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
  ];
  for (const c of packed) for (const ptr of [c.keysPtr, c.offsetsPtr, c.resultsPtr]) core.m._free(ptr);
  full.dispose();
  tiny.dispose();

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
  const ns = (prefix) => rows.find((r) => r.name.startsWith(prefix)).ns.median;
    const pack = ns('chunk packing as hasAll()');
  const answers = ns("hasAll()'s answer array");
  const perCall = ns('cf_contain per key');
  const perBatch = ns('cf_contain_batch');
  const bloom = ns('bloomfilter test()');
  const f1 = (x) => fmtNum(x, 1);
  const hasFull = ns(`cuckoo-wasm has(), ${fmtInt(n)}`);
  const floors = [
    `- has(): the wasm side (call + XXH3 + probes) costs ${f1(perCall)} ns and has() measures ${f1(hasFull)} ns, so writing the key ` +
      `(charCodeAt up to 64 code units, encodeInto above: the rows above give both for every key) costs about ${f1(hasFull - perCall)} ns. ` +
      `2× bloomfilter test() (${f1(bloom)} ns) needs ≤ ${f1(bloom / 2)} ns.`,
    `- hasAll(): packing costs ${f1(pack)} ns per key, the answer array ${f1(answers)} ns, the wasm side ${f1(perBatch)} ns ` +
      `(sum ${f1(pack + answers + perBatch)} ns); hasAll() measures ${f1(ns('cuckoo-wasm hasAll()'))} ns. ` +
      `3× bloomfilter test() needs ≤ ${f1(bloom / 3)} ns, which leaves ${f1(bloom / 3 - pack - answers - perBatch)} ns beside those three.`,
  ].join('\n');
  console.log(`${head}\n\n${table}\n${floors}`);
  if (opt.out) writeFileSync(opt.out, `# Per-key cost floor (bench/floor.mjs)\n\n${head}\n\n${table}\n${floors}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
