// Adapter: this package (dist/index.mjs, built by `bash scripts/build.sh`).
// add/has/delete one key per call; addAll/hasAll cross into wasm once per batch;
// toBytes/fromBytes are the binary format of docs/FORMAT.md.
import { ROOT } from '../data.mjs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

let CuckooFilter;
let wasmMemoryUsage; // newer builds: bytes allocated in wasm memory

class Filter {
  constructor(f, allocatedBefore) {
    this.f = f;
    this.allocatedBefore = allocatedBefore;
  }
  add(key) {
    this.f.add(key); // throws FilterFullError when full: the harness reports it
    return true;
  }
  has(key) {
    return this.f.has(key);
  }
  delete(key) {
    return this.f.delete(key);
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
  /**
   * The packed table lives in wasm memory: measured as the growth of the bytes
   * allocated there (wasmMemoryUsage) across create + build, when dist has it;
   * else the serialized size (the table is the same bytes, header and checksum aside).
   */
  async memory() {
    if (wasmMemoryUsage && this.allocatedBefore != null) {
      const bytes = (await wasmMemoryUsage()).allocatedBytes - this.allocatedBefore;
      return { bytes, how: 'wasm memory allocated by create + build (wasmMemoryUsage)' };
    }
    return { bytes: this.f.byteLength, how: 'packed table in wasm memory (= toBytes() length)' };
  }
  params() {
    const f = this.f;
    const growth = f.expansion ? ` expansion=${f.expansion} sub-filters=${f.subFilterCount}` : '';
    return `f=${f.fingerprintBits} b=${f.bucketSize} m=${f.bucketCount} α=${f.loadFactor.toFixed(3)}${growth}`;
  }
  dispose() {
    this.f.dispose();
  }
}

/**
 * The adapter for a CuckooFilter created for capacity ⌈N / past⌉ with growth
 * `expansion` (past = 1, expansion 0: an ordinary filter sized for N).
 */
export function cuckooAdapter({ name, kind, past = 1, expansion = 0 }) {
  return {
    name,
    kind,
    version: 'dist/index.mjs',
    async init() {
      ({ CuckooFilter, wasmMemoryUsage } = await import(pathToFileURL(join(ROOT, 'dist', 'index.mjs')).href));
    },
    async create(n, eps) {
      const before = wasmMemoryUsage ? (await wasmMemoryUsage()).allocatedBytes : null;
      const options = { capacity: Math.max(1, Math.ceil(n / past)), falsePositiveRate: eps };
      if (expansion) options.expansion = expansion;
      return new Filter(await CuckooFilter.create(options), before);
    },
    async deserialize(bytes) {
      return new Filter(await CuckooFilter.fromBytes(bytes));
    },
  };
}

export default cuckooAdapter({ name: 'cuckoo-wasm', kind: 'cuckoo filter (this package, C++ → wasm)' });
