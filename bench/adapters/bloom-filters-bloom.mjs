// Adapter: bloom-filters@3.0.4 (Callidon) BloomFilter: a bit set over a
// Uint8Array, two xxhashjs XXH64 hashes per key, double hashing.
// BloomFilter.create(n, ε) sizes it (m = ceil(-n ln ε / (ln 2)^2), k = ceil(m/n ln 2)).
// Serialized with saveAsJSON() (bit set as base64) → JSON text; loaded with fromJSON.
import { createRequire } from 'node:module';
import { pkgVersion } from './version.mjs';

const require = createRequire(import.meta.url);
let BloomFilter;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

class Filter {
  constructor(b) {
    this.b = b;
  }
  add(key) {
    this.b.add(key);
    return true;
  }
  has(key) {
    return this.b.has(key);
  }
  serialize() {
    return encoder.encode(JSON.stringify(this.b.saveAsJSON()));
  }
  memory() {
    return { bytes: this.b._filter.array.byteLength, how: 'bit set (Uint8Array)' };
  }
  params() {
    return `m=${this.b.size} bits k=${this.b._nbHashes}`;
  }
  dispose() {}
}

export default {
  name: 'bloom-filters Bloom',
  kind: 'Bloom filter',
  version: `bloom-filters@${pkgVersion('bloom-filters')}`,
  async init() {
    ({ BloomFilter } = require('bloom-filters'));
  },
  create(n, eps) {
    return new Filter(BloomFilter.create(n, eps));
  },
  deserialize(bytes) {
    return new Filter(BloomFilter.fromJSON(JSON.parse(decoder.decode(bytes))));
  },
};
