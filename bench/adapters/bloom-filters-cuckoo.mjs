// Adapter: bloom-filters@3.0.4 (Callidon) CuckooFilter: an array of bucket
// objects holding fingerprints as hex strings, xxhashjs XXH64.
// CuckooFilter.create(n, ε) (b = 4, 500 kicks, ceil(n / 4 / 0.955) buckets).
// add returns false when full (the harness counts refused adds); remove deletes.
// Serialized with saveAsJSON() → JSON text; loaded with fromJSON.
import { createRequire } from 'node:module';
import { pkgVersion } from './version.mjs';

const require = createRequire(import.meta.url);
let CuckooFilter;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

class Filter {
  constructor(c) {
    this.c = c;
  }
  add(key) {
    return this.c.add(key);
  }
  has(key) {
    return this.c.has(key);
  }
  delete(key) {
    return this.c.remove(key);
  }
  serialize() {
    return encoder.encode(JSON.stringify(this.c.saveAsJSON()));
  }
  memory() {
    return null; // JS objects: measured as a heap delta by the harness
  }
  params() {
    return `buckets=${this.c.size} b=${this.c.bucketSize} fingerprint=${this.c.fingerprintLength} hex chars`;
  }
  dispose() {}
}

export default {
  name: 'bloom-filters Cuckoo',
  kind: 'cuckoo filter',
  version: `bloom-filters@${pkgVersion('bloom-filters')}`,
  async init() {
    ({ CuckooFilter } = require('bloom-filters'));
  },
  create(n, eps) {
    return new Filter(CuckooFilter.create(n, eps));
  },
  deserialize(bytes) {
    return new Filter(CuckooFilter.fromJSON(JSON.parse(decoder.decode(bytes))));
  },
};
