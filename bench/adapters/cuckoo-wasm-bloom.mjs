// Adapter: this package's BloomFilter (dist/index.mjs): m = ⌈−N ln ε / (ln 2)²⌉
// bits, k = round(m/N · ln 2), k positions from one XXH3-64 hash of the key by
// enhanced double hashing. add/has one key per call; addAll/hasAll cross into
// wasm once per batch; toBytes/fromBytes are docs/FORMAT.md §10. No delete.
import { ROOT } from '../data.mjs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

let BloomFilter;
let wasmMemoryUsage;

class Filter {
  constructor(f, allocatedBefore) {
    this.f = f;
    this.allocatedBefore = allocatedBefore;
  }
  add(key) {
    this.f.add(key);
    return true;
  }
  has(key) {
    return this.f.has(key);
  }
  addAll(keys) {
    return this.f.addAll(keys);
  }
  hasAll(keys) {
    return this.f.hasAll(keys);
  }
  serialize() {
    return this.f.toBytes();
  }
  /** Bytes allocated in wasm memory by create + build (the bit array and the filter object). */
  async memory() {
    if (this.allocatedBefore == null) return { bytes: this.f.byteLength, how: 'toBytes() length' };
    const bytes = (await wasmMemoryUsage()).allocatedBytes - this.allocatedBefore;
    return { bytes, how: 'wasm memory allocated by create + build (wasmMemoryUsage)' };
  }
  params() {
    const f = this.f;
    return `m=${f.bitCount} bits k=${f.hashCount}${f.expansion ? ` expansion=${f.expansion} sub-filters=${f.subFilterCount}` : ''}`;
  }
  dispose() {
    this.f.dispose();
  }
}

/**
 * The adapter for a BloomFilter created for capacity ⌈N / past⌉ with growth
 * `expansion` (past = 1, expansion 0: an ordinary filter sized for N).
 */
export function bloomAdapter({ name, kind, past = 1, expansion = 0 }) {
  return {
    name,
    kind,
    version: 'dist/index.mjs',
    async init() {
      ({ BloomFilter, wasmMemoryUsage } = await import(pathToFileURL(join(ROOT, 'dist', 'index.mjs')).href));
    },
    async create(n, eps) {
      const before = (await wasmMemoryUsage()).allocatedBytes;
      const options = { capacity: Math.max(1, Math.ceil(n / past)), falsePositiveRate: eps };
      if (expansion) options.expansion = expansion;
      return new Filter(await BloomFilter.create(options), before);
    },
    async deserialize(bytes) {
      return new Filter(await BloomFilter.fromBytes(bytes));
    },
  };
}

export default bloomAdapter({ name: 'cuckoo-wasm BloomFilter', kind: 'Bloom filter (this package, C++ → wasm)' });
