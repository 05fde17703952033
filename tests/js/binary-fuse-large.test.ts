// The binary fuse filter at a million keys (project `long`: about 5 s on an idle 2-core machine, 15 s on a busy one,
// most of it making the keys and looking them up): 1,000,000 random distinct keys (16 bytes from a seeded generator,
// the index in the first 4 so that no two are equal) built four-wise at f = 8 and three-wise at f = 16, and a million
// string keys: no false negative, in the full entry and in the reader loaded from its bytes; size the number of keys;
// the false-positive rate measured over a million keys not in the set within a few standard deviations of 2^-f; bits
// per key near the paper's 1.075·f (four-wise) and 1.125·f (three-wise). binary-fuse.test.ts holds the properties
// over smaller sets.
import { BinaryFuseFilter, wasmMemoryUsage } from 'cuckoo-wasm';
import type { BinaryFuseFilterOptions } from 'cuckoo-wasm';
import * as reader from 'cuckoo-wasm/reader';

const N = 1_000_000;

/** `n` distinct 16-byte keys: bytes 0..3 the index (`tag` in the top bits of byte 3), 4..15 from xorshift32(seed). */
function randomKeys(n: number, seed: number, tag: number): Uint8Array[] {
  const bytes = new Uint8Array(16 * n);
  const words = new Uint32Array(bytes.buffer);
  let s = seed | 1;
  for (let i = 0; i < n; i++) {
    words[4 * i] = (i | (tag << 30)) >>> 0;
    for (let w = 1; w < 4; w++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      words[4 * i + w] = s >>> 0;
    }
  }
  return Array.from({ length: n }, (_, i) => bytes.subarray(16 * i, 16 * i + 16));
}

/** How many of `answers` are 1. */
const ones = (answers: Uint8Array) => answers.reduce((sum, a) => sum + a, 0);

const runs: [string, () => (Uint8Array | string)[], () => (Uint8Array | string)[], BinaryFuseFilterOptions, number][] = [
  ['random 16-byte keys, four-wise, f = 8', () => randomKeys(N, 20260511, 0), () => randomKeys(N, 77, 1), {}, 1.075],
  ['random 16-byte keys, three-wise, f = 16', () => randomKeys(N, 31337, 0), () => randomKeys(N, 78, 1), { arity: 3, fingerprintBits: 16 }, 1.125],
  ['string keys, four-wise, f = 12', () => Array.from({ length: N }, (_, i) => `member-${i}.example`), () => Array.from({ length: N }, (_, i) => `absent-${i}.example`), { fingerprintBits: 12 }, 1.075],
];

test.each(runs)('%s: 1,000,000 keys, no false negative in either entry; the measured rate near 2^-f', async (name, members, others, options, factor) => {
  const keys = members();
  const started = Date.now();
  const f = await BinaryFuseFilter.build(keys, options);
  const built = Date.now() - started;
  const bits = f.fingerprintBits;
  expect(f.size).toBe(N);
  const answers = new Uint8Array(N);
  expect(ones(f.hasAll(keys, answers))).toBe(N);
  const r = await reader.BinaryFuseFilter.fromBytes(f.toBytes());
  answers.fill(0);
  expect(ones(r.hasAll(keys, answers))).toBe(N);
  // A million keys not in the set: each reported with probability 2^-f.
  const absent = others();
  const p = 2 ** -bits;
  const falsePositives = ones(f.hasAll(absent, answers));
  const sigma = Math.sqrt(N * p * (1 - p));
  expect(Math.abs(falsePositives - N * p)).toBeLessThan(5 * sigma + 2);
  expect(ones(r.hasAll(absent, answers))).toBe(falsePositives);
  // The table holds about factor·N slots of f bits (the paper's size factor for a million keys), plus 88 bytes.
  expect(f.bitsPerItem).toBeGreaterThan(factor * bits);
  expect(f.bitsPerItem).toBeLessThan(factor * bits * 1.01 + 0.01);
  console.log(
    `${name}: built in ${built} ms; ${f.byteLength} bytes, ${f.bitsPerItem.toFixed(3)} bits per key (${(f.bitsPerItem / bits).toFixed(4)}·f); ` +
      `${falsePositives} false positives in ${N} (${(falsePositives / N).toExponential(3)}, 2^-${bits} = ${p.toExponential(3)}); ` +
      `wasm heap ${(await wasmMemoryUsage()).heapBytes} bytes`,
  );
  f.dispose();
  r.dispose();
});
