// Adapter: cuckoo-filter@1.1.4 (vijayee): buckets of Fingerprint objects, each
// holding a Buffer of the key's FNV-1a bytes; bucket index by a djb2-style hash.
// Its index.js also loads ScalableCuckooFilter, which needs 'cbor-js', a module
// the package does not declare, so the class is loaded from src/cuckoo-filter.js.
// Sized like the other JS cuckoo filter: b = 4, ceil(n / 4 / 0.955) buckets,
// fingerprint bytes = ceil(ceil(log2(2b/ε)) / 8) (2 bytes for ε = 1% and 0.1%).
// add returns false when it gives up (the harness counts refused adds).
// Serialized with toJSON() → JSON text (its README's other option, toCBOR, goes
// through the same object tree); loaded with CuckooFilter.fromJSON.
import { createRequire } from 'node:module';
import { pkgVersion } from './version.mjs';

const require = createRequire(import.meta.url);
let CuckooFilter;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const BUCKET_SIZE = 4;

class Filter {
  constructor(c, note) {
    this.c = c;
    this.note = note;
  }
  add(key) {
    return this.c.add(key);
  }
  has(key) {
    return this.c.contains(key);
  }
  delete(key) {
    return this.c.remove(key);
  }
  serialize() {
    return encoder.encode(JSON.stringify(this.c.toJSON()));
  }
  memory() {
    return null; // JS objects: measured as a heap delta by the harness
  }
  params() {
    return this.note;
  }
  dispose() {}
}

export default {
  name: 'cuckoo-filter',
  kind: 'cuckoo filter',
  version: `cuckoo-filter@${pkgVersion('cuckoo-filter')}`,
  async init() {
    CuckooFilter = require('cuckoo-filter/src/cuckoo-filter.js');
  },
  create(n, eps) {
    const buckets = Math.ceil(n / BUCKET_SIZE / 0.955);
    const fpBytes = Math.ceil(Math.ceil(Math.log2((2 * BUCKET_SIZE) / eps)) / 8);
    return new Filter(new CuckooFilter(buckets, BUCKET_SIZE, fpBytes), `buckets=${buckets} b=${BUCKET_SIZE} fingerprint=${fpBytes} bytes`);
  },
  deserialize(bytes) {
    const json = JSON.parse(decoder.decode(bytes));
    return new Filter(CuckooFilter.fromJSON(json), `buckets=${json.cfSize} b=${json.bSize} fingerprint=${json.fpSize} bytes`);
  },
};
