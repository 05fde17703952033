// Adapter: this package's CuckooFilter (b = 4) grown 8× past its capacity:
// created for capacity ⌈N/8⌉ with expansion 2, then given all N keys, so new
// sub-filters of 2, 4, 8 times the buckets (and one more fingerprint bit each)
// take the keys the older ones have no room for. Compared with `cuckoo-wasm`, a
// filter sized for N from the start.
import { cuckooAdapter } from './cuckoo-wasm.mjs';

export default cuckooAdapter({
  name: 'cuckoo-wasm, grown 8×',
  kind: 'cuckoo filter with growth (this package)',
  past: 8,
  expansion: 2,
});
