// Where the time of one has() goes: microbenchmarks of each layer a lookup of a
// string key crosses, per key, on the real member keys (bench/data.mjs):
//
//   node --expose-gc bench/floor.mjs [--n 1000000] [--passes 7] [--out bench/results/floor.md]
//
// Each row is the median ns per key over --passes passes (min–max), and the
// lookups/s that cost alone would allow. The rows build up: the JS loop alone;
// + TextEncoder.encodeInto into a scratch view (how has() writes a key); a
// charCodeAt copy (a batch path for ASCII keys); joining 8192 keys and encoding
// them with one encodeInto (another batch path); a 32-bit FNV-1a in JS over the
// UTF-16 code units (what hashing without any copy would cost); an empty WebAssembly call
// with has()'s arguments (a hand-assembled module: (i32, i32, i32) -> i32
// returning 0); encodeInto + that empty call (the boundary floor of a
// one-key-per-call wasm filter); cuckoo-wasm has() on a 64-key filter (table hot
// in L1: the floor plus XXH3 and the bucket probes); has() on the full filter
// (adds cache misses); hasAll() per key; and bloomfilter's test() split the same
// way (its FNV-1a over the string and the k indexes: locations() alone, then
// test() on the full filter; one bloomfilter size only, since a second size
// would give its code a second typed-array type and slow it: one shape per
// process, as in bench/worker.mjs). Differences between rows are the cost of
// each layer.
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
  const { members } = loadKeys(N);
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

  const rows = [
    measure('JS loop over the keys (reads length)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) s += members[i].length;
      return s;
    }),
    measure('TextEncoder.encodeInto into a scratch view', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) s += encoder.encodeInto(members[i], scratch).written;
      return s;
    }),
    measure('charCodeAt copy into a Uint8Array (batch path, ASCII)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) {
        const k = members[i];
        const len = k.length;
        for (let j = 0; j < len; ++j) scratch[j] = k.charCodeAt(j);
        s += len;
      }
      return s;
    }),
    measure('join 8192-key chunks alone (no encoding)', n, () => {
      let s = 0;
      for (let i = 0; i < n; i += 8192) s += members.slice(i, i + 8192).join('').length;
      return s;
    }),
    measure('join 8192-key chunks + one encodeInto per chunk (ASCII batch)', n, () => {
      let s = 0;
      for (let i = 0; i < n; i += 8192) {
        const chunk = members.slice(i, i + 8192).join('');
        s += encoder.encodeInto(chunk, big).written;
      }
      return s;
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
    measure('encodeInto + empty wasm call (boundary floor)', n, () => {
      let s = 0;
      for (let i = 0; i < n; ++i) s += empty(1024, encoder.encodeInto(members[i], scratch).written, 8);
      return s + 1;
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
  full.dispose();
  tiny.dispose();

  const avgLen = members.reduce((a, k) => a + k.length, 0) / n;
  const head = `floor: ${fmtInt(n)} member keys (average ${fmtNum(avgLen, 1)} bytes), ε = ${EPS}, median of ${PASSES} passes, node ${process.version}, ${os.cpus()[0]?.model?.trim()}, load average ${os.loadavg()[0].toFixed(2)}`;
  const table =
    markdownTable(
      ['what, per key', 'ns (min–max)', 'lookups/s at that cost alone'],
      rows.map((r) => [
        r.name,
        `${fmtNum(r.ns.median, 1)} (${fmtNum(r.ns.min, 1)}–${fmtNum(r.ns.max, 1)})`,
        fmtOpsRange({ median: 1e9 / r.ns.median, count: 1 }),
      ]),
    );
  console.log(`${head}\n\n${table}`);
  if (opt.out) writeFileSync(opt.out, `# Per-key cost floor (bench/floor.mjs)\n\n${head}\n\n${table}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
