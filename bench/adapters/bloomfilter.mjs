// Adapter: bloomfilter@1.1.0 (Jason Davies), a Bloom filter over a Uint32Array
// with 64-bit FNV-1a and enhanced double hashing. Sized with the standard
// m = -n ln ε / (ln 2)^2 bits and k = round(m/n · ln 2) hashes (the package
// rounds m up to a multiple of 32); or, given `sizing` { bits, hashes }, exactly
// that m and k (the comparison gives it those of this package's BloomFilter for
// the same N and ε, so both filters have the same size). Serialized as its README shows:
// JSON.stringify(bloom) (its toJSON: version, m, k and the buckets as numbers),
// loaded with BloomFilter.fromJSON. Its raw bit array (m bits) is reported too.
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
    return this.b.test(key);
  }
  serialize() {
    return encoder.encode(JSON.stringify(this.b));
  }
  memory() {
    return { bytes: this.b.buckets.byteLength, how: 'bit array (Uint32Array buckets)' };
  }
  /** Bits of the raw bit array, for the "fraction of bloomfilter's raw bits" target. */
  rawBits() {
    return this.b.buckets.byteLength * 8;
  }
  params() {
    return `m=${this.b.m} bits k=${this.b.k}`;
  }
  dispose() {}
}

export default {
  name: 'bloomfilter',
  kind: 'Bloom filter',
  version: `bloomfilter@${pkgVersion('bloomfilter')}`,
  async init() {
    ({ BloomFilter } = await import('bloomfilter'));
  },
  create(n, eps, sizing) {
    if (sizing) return new Filter(new BloomFilter(sizing.bits, sizing.hashes));
    const m = Math.ceil((-n * Math.log(eps)) / (Math.LN2 * Math.LN2));
    const k = Math.max(1, Math.round((m / n) * Math.LN2));
    return new Filter(new BloomFilter(m, k));
  },
  deserialize(bytes) {
    return new Filter(BloomFilter.fromJSON(decoder.decode(bytes)));
  },
};
