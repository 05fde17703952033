// Adapter: this package's BloomFilter grown 8× past its capacity: created for
// capacity ⌈N/8⌉ with expansion 2, then given all N keys, so it holds
// sub-filters for C, 2C, 4C and 8C keys (C = N/8) at rates ε/2, ε/4, ε/8, ε/16.
// Compared with `cuckoo-wasm-bloom`, a filter sized for N from the start.
import { bloomAdapter } from './cuckoo-wasm-bloom.mjs';

export default bloomAdapter({
  name: 'cuckoo-wasm BloomFilter, grown 8×',
  kind: 'Bloom filter with growth (this package)',
  past: 8,
  expansion: 2,
});
